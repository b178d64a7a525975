import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { apiClient, futureSlot } from '../support/http.js';
import { startReceiver, type ReceivedWebhook } from '../support/receiver.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { openService } from '../support/bookable.js';

let server: TestServer;
/** The server's clock; the test moves it to the next minute. */
let now = new Date('2026-10-31T18:30:10Z');

beforeAll(async () => {
  server = await startTestServer({ seed: true, clock: () => now, config: { ANALYTICS_FLUSH_MS: 50, WEBHOOK_POLL_MS: 50 } });
});
afterAll(() => server?.close());

interface Delivered {
  id: string;
  event: string;
  created: string;
  data: Record<string, unknown>;
}

/** Verifies a delivery as a receiver living at the server's (moved) clock would: signatures carry that time. */
function verified(secret: string, webhook: ReceivedWebhook): Delivered {
  vi.useFakeTimers({ toFake: ['Date'], now });
  try {
    return new Webhook(secret).verify(webhook.body, webhook.headers as Record<string, string>) as Delivered;
  } finally {
    vi.useRealTimers();
  }
}

describe('api_key.usage_alert webhooks', () => {
  it('deliver each alert once, signed, to the endpoints that take it, in order with booking events', async () => {
    const { key, keyId } = await server.createKey({ plan: 'free' });
    const call = apiClient(server.url, key);
    const [alertsOnly, everything, bookingsOnly] = await Promise.all([startReceiver(), startReceiver(), startReceiver()]);
    const endpoint = async (url: string, events: string[]) => (await call('POST', '/v1/webhook_endpoints', { url, events })).body as { id: string; secret: string };
    const alertsEndpoint = await endpoint(alertsOnly.url, ['api_key.usage_alert']);
    const allEndpoint = await endpoint(everything.url, []);
    await endpoint(bookingsOnly.url, ['booking.created']);
    const serviceId = await openService(server.prisma);
    const book = (days: number) => call('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(days), customer: { name: 'Alert', email: 'alert@example.com' } });

    const before = await book(30);
    // Free plan: 100 requests a minute; the rule fires at 5, and once only in this minute.
    const rule = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'mutation { createAlertRule(input: { metric: RATE_LIMIT_SHARE, threshold: 0.05 }) { id } }' }),
    }).then((response) => response.json());
    const ruleId = rule.data.createAlertRule.id as string;
    for (let index = 0; index < 20; index++) await call('GET', '/api/v1/categories');
    await alertsOnly.waitFor(1);
    const after = await book(31);
    now = new Date('2026-10-31T18:31:10Z');
    for (let index = 0; index < 6; index++) await call('GET', '/api/v1/categories');
    await Promise.all([alertsOnly.waitFor(2), everything.waitFor(4), bookingsOnly.waitFor(2)]);
    // Ten poll intervals more: time for any extra delivery to show up.
    await new Promise((resolve) => setTimeout(resolve, 500));

    const alerts = alertsOnly.received.map((webhook) => verified(alertsEndpoint.secret, webhook));
    const stored = await server.prisma.usageAlert.findMany({ where: { apiKeyId: keyId }, orderBy: { windowStart: 'asc' } });
    expect(stored).toHaveLength(2);
    expect(alertsOnly.received).toHaveLength(2);
    expect(alerts.map((alert) => [alert.event, alert.data['id'], alert.data['window_start']])).toEqual([
      ['api_key.usage_alert', stored[0]!.id, '2026-10-31T18:30:00Z'],
      ['api_key.usage_alert', stored[1]!.id, '2026-10-31T18:31:00Z'],
    ]);
    expect(alerts[0]).toMatchObject({
      id: expect.stringMatching(/^msg_/),
      data: { api_key_id: keyId, rule_id: ruleId, metric: 'rate_limit_share', threshold: 0.05, window_minutes: 1, window_end: '2026-10-31T18:31:00Z' },
    });
    expect(alerts[0]!.data['value']).toBeGreaterThanOrEqual(0.05);
    expect(alertsOnly.received[0]!.headers['webhook-id']).toBe(alerts[0]!.id);

    const all = everything.received.map((webhook) => verified(allEndpoint.secret, webhook));
    expect(all.map((message) => [message.event, message.data['id']])).toEqual([
      ['booking.created', before.body.id],
      ['api_key.usage_alert', stored[0]!.id],
      ['booking.created', after.body.id],
      ['api_key.usage_alert', stored[1]!.id],
    ]);
    expect(bookingsOnly.received.map((webhook) => (JSON.parse(webhook.body) as Delivered).event)).toEqual(['booking.created', 'booking.created']);

    await Promise.all([alertsOnly, everything, bookingsOnly].map((receiver) => receiver.close()));
  });

  it('fire once per window when two instances sharing a database both see the threshold crossed', async () => {
    now = new Date('2026-10-31T19:00:10Z');
    const first = await startTestServer({ clock: () => now, config: { ANALYTICS_FLUSH_MS: 50, WEBHOOK_POLL_MS: 50 } });
    const second = first.sibling(() => now);
    const receiver = await startReceiver();
    try {
      const secondUrl = await second.listen(0, '127.0.0.1');
      const { key, keyId } = await first.createKey({ plan: 'free' });
      const hook = (await apiClient(first.url, key)('POST', '/v1/webhook_endpoints', { url: receiver.url, events: ['api_key.usage_alert'] })).body as {
        id: string;
        secret: string;
      };
      await first.prisma.alertRule.create({ data: { id: 'alr_twoinstances', apiKeyId: keyId, metric: 'rate_limit_share', threshold: 0.05 } });
      // Five requests each: every flush of either instance finds the 5 % share reached and tries to store the alert.
      await Promise.all([first.url, secondUrl].flatMap((url) => Array.from({ length: 5 }, () => apiClient(url, key)('GET', '/api/v1/categories'))));
      await receiver.waitFor(1);
      // Closing flushes and evaluates what each instance still holds, so every attempt has been made.
      await second.close();
      await first.app.close();

      expect(await first.prisma.usageAlert.count({ where: { apiKeyId: keyId } })).toBe(1);
      expect(await first.prisma.webhookDelivery.count({ where: { endpointId: hook.id } })).toBe(1);
      expect(receiver.received).toHaveLength(1);
      expect(verified(hook.secret, receiver.received[0]!)).toMatchObject({
        event: 'api_key.usage_alert',
        data: { rule_id: 'alr_twoinstances', window_start: '2026-10-31T19:00:00Z' },
      });
    } finally {
      await receiver.close();
      await first.database.close();
    }
  });

  it('accepts api_key.usage_alert in an endpoint’s events and refuses kinds that do not exist', async () => {
    const call = apiClient(server.url, (await server.createKey()).key);
    const created = await call('POST', '/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/hooks', events: ['api_key.usage_alert', 'booking.cancelled'] });
    expect(created.status).toBe(201);
    expect(created.body.events).toEqual(['api_key.usage_alert', 'booking.cancelled']);
    const refused = await call('POST', '/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/hooks', events: ['api_key.usage'] });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0].field).toMatch(/^events/);
  });
});
