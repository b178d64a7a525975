import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTestEventBody } from '../../src/events/webhooks/worker.js';
import { documentProse } from '../../src/rest/openapi/prose.js';
import { openService } from '../support/bookable.js';
import { apiClient, futureSlot, type ApiCall } from '../support/http.js';
import { startReceiver } from '../support/receiver.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
let call: ApiCall;
let key: string;
let accountId: string;
let serviceId: string;

interface EventBody {
  id: string;
  event: string;
  created: string;
  data: Record<string, unknown>;
  test?: boolean;
}

beforeAll(async () => {
  server = await startTestServer({ seed: true, config: { WEBHOOK_POLL_MS: 25 } });
  ({ key, accountId } = await server.createKey({ scopes: ['bookings:read', 'bookings:write', 'webhooks:manage'] }));
  call = apiClient(server.url, key);
  serviceId = await openService(server.prisma);
});
afterAll(() => server?.close());

function book(days: number) {
  return call('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(days), customer: { name: 'Real Customer', email: 'real@example.com' } });
}

/** The account's booking events over SSE, after a known event, as a subscriber reads them. */
async function subscribeAfter(eventId: string) {
  const controller = new AbortController();
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    signal: controller.signal,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query: 'subscription ($after: ID) { bookingEvents(after: $after) { id event data } }', variables: { after: eventId } }),
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  return {
    async next(): Promise<EventBody> {
      for (;;) {
        const match = /(?:^|\n)event: next\ndata: (.*)\n\n/.exec(buffered);
        if (match) {
          buffered = buffered.slice(match.index + match[0].length);
          return (JSON.parse(match[1]!) as { data: { bookingEvents: EventBody } }).data.bookingEvents;
        }
        const chunk = await reader.read();
        if (chunk.done) throw new Error(`the stream ended; unread: ${buffered}`);
        buffered += decoder.decode(chunk.value, { stream: true });
      }
    },
    close: () => controller.abort(),
  };
}

async function loggedEvents(): Promise<EventBody[]> {
  return (await call('GET', '/v1/booking_events?limit=100')).body.data;
}

describe('POST /v1/webhook_endpoints/{id}/test', () => {
  it('sends one signed test event of the real shape, recorded as a delivery, that no log, subscriber or other endpoint sees', async () => {
    const receiver = await startReceiver();
    const bystander = await startReceiver();
    const endpoint = (await call('POST', '/v1/webhook_endpoints', { url: receiver.url })).body;
    await call('POST', '/v1/webhook_endpoints', { url: bystander.url });
    const before = await book(40);
    await bystander.waitFor(1);
    const [lastReal] = (await loggedEvents()).slice(-1);
    const subscription = await subscribeAfter(lastReal!.id);

    const sent = await call('POST', `/v1/webhook_endpoints/${endpoint.id}/test`, { event: 'booking.cancelled' });
    expect(sent.status).toBe(202);
    expect(sent.body).toMatchObject({ event: 'booking.cancelled', test: true, status: 'succeeded', attempt_count: 1 });
    expect(sent.body.attempts).toEqual([expect.objectContaining({ attempt_number: 1, response_status: 200, error: null })]);

    const received = await receiver.waitFor(2);
    const testWebhook = received.find((webhook) => webhook.headers['webhook-id'] === sent.body.event_id)!;
    const body = new Webhook(endpoint.secret).verify(testWebhook.body, testWebhook.headers as Record<string, string>) as EventBody;
    expect(body.test).toBe(true);
    expect(body.id).toBe(sent.body.event_id);
    expect(body.id).toMatch(/^msg_\w{22}$/);
    expect(body.id).not.toBe(lastReal!.id);
    expect(body.event).toBe('booking.cancelled');
    expect(body.data).toMatchObject({ status: 'cancelled', cancelled_at: body.created, cancellation: { by: key.split('.')[0], reason: expect.any(String) } });

    // Exactly the shape of a real event of the log, plus the marker.
    const { test, ...unmarked } = body;
    expect(test).toBe(true);
    expect(Object.keys(unmarked).sort()).toEqual(Object.keys(lastReal!).sort());
    // A real booking.cancelled carries its cancellation besides the booking the real booking.created carries.
    expect(Object.keys(body.data).sort()).toEqual([...Object.keys(lastReal!.data), 'cancellation'].sort());
    expect(Object.keys(body.data['customer'] as object).sort()).toEqual(Object.keys(lastReal!.data['customer'] as object).sort());

    const after = await book(41);
    const streamed = await subscription.next();
    subscription.close();
    expect(streamed.data['id']).toBe(after.body.id);
    const log = await loggedEvents();
    expect(log.map((event) => event.id)).not.toContain(body.id);
    expect(log.some((event) => event.test !== undefined)).toBe(false);
    const toBystander = await bystander.waitFor(2);
    expect(toBystander.map((webhook) => (JSON.parse(webhook.body) as EventBody).data['id'])).toEqual([before.body.id, after.body.id]);

    const deliveries = (await call('GET', `/v1/webhook_endpoints/${endpoint.id}/deliveries`)).body.data as { event_id: string; test: boolean }[];
    expect(deliveries.filter((delivery) => delivery.test).map((delivery) => delivery.event_id)).toEqual([body.id]);
    await receiver.close();
    await bystander.close();
  });

  it('sends booking.created without a body, and a usage alert of the documented shape', async () => {
    const receiver = await startReceiver();
    const endpoint = (await call('POST', '/v1/webhook_endpoints', { url: receiver.url, events: ['booking.created', 'api_key.usage_alert'] })).body;
    const verifier = new Webhook(endpoint.secret);

    const created = await call('POST', `/v1/webhook_endpoints/${endpoint.id}/test`);
    expect(created.body).toMatchObject({ event: 'booking.created', status: 'succeeded', test: true });
    const alert = await call('POST', `/v1/webhook_endpoints/${endpoint.id}/test`, { event: 'api_key.usage_alert' });
    expect(alert.body).toMatchObject({ event: 'api_key.usage_alert', status: 'succeeded', test: true });
    const [first, second] = (await receiver.waitFor(2)).map((webhook) => verifier.verify(webhook.body, webhook.headers as Record<string, string>) as EventBody);
    expect([first!.event, first!.test, first!.data['status']]).toEqual(['booking.created', true, 'confirmed']);
    const documented = documentProse.v1.schemas!['UsageAlertEvent'] as { required: string[]; properties: { data: { required: string[] } } };
    expect(
      Object.keys(second!)
        .filter((name) => name !== 'test')
        .sort(),
    ).toEqual([...documented.required].sort());
    expect(Object.keys(second!.data).sort()).toEqual([...documented.properties.data.required].sort());
    expect(second!.test).toBe(true);
    expect(second!.id).not.toBe(first!.id);
    await receiver.close();
  });

  it('takes its turn as deliveries do: never beside a delivery being sent to the endpoint', async () => {
    const owner = await server.createKey({ scopes: ['bookings:read', 'bookings:write', 'webhooks:manage'] });
    const ownerCall = apiClient(server.url, owner.key);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // The booking's delivery is answered once released, so it stays under way until then.
    const receiver = await startReceiver(async (webhook) => {
      if (!isTestEventBody(JSON.parse(webhook.body))) await released;
      return 200;
    });
    const [busy, other] = await Promise.all(
      [['booking.created'], ['api_key.usage_alert']].map(async (events) => (await ownerCall('POST', '/v1/webhook_endpoints', { url: receiver.url, events })).body),
    );
    await ownerCall('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(42), customer: { name: 'Real Customer', email: 'real@example.com' } });
    await receiver.waitFor(1);

    const whileSending = await ownerCall('POST', `/v1/webhook_endpoints/${busy.id}/test`, { event: 'booking.created' });
    expect([whileSending.status, whileSending.body.code]).toEqual([409, 'endpoint_busy']);
    // Another endpoint of the account is not held back.
    expect((await ownerCall('POST', `/v1/webhook_endpoints/${other.id}/test`, { event: 'api_key.usage_alert' })).body).toMatchObject({ status: 'succeeded' });

    release();
    await expect.poll(async () => (await ownerCall('POST', `/v1/webhook_endpoints/${busy.id}/test`, { event: 'booking.created' })).status, { timeout: 5000 }).toBe(202);
    await receiver.close();
  });

  it('records a failing receiver once, without retrying it, and refuses what the endpoint or key may not receive', async () => {
    const receiver = await startReceiver(() => 500);
    const endpoint = (await call('POST', '/v1/webhook_endpoints', { url: receiver.url, events: ['api_key.usage_alert'] })).body;
    const failed = await call('POST', `/v1/webhook_endpoints/${endpoint.id}/test`, { event: 'api_key.usage_alert' });
    expect(failed.body).toMatchObject({ status: 'failed', attempt_count: 1, next_attempt_at: null });
    expect(failed.body.attempts.map((attempt: { response_status: number }) => attempt.response_status)).toEqual([500]);
    // Redelivered, it is attempted once more and not retried either.
    expect((await call('POST', `/v1/webhook_endpoints/${endpoint.id}/deliveries/${failed.body.id}/redeliver`)).status).toBe(202);
    // Read until it is no longer pending (a list read while its attempt is recorded may show the attempt beside the claim).
    const redelivered = async () =>
      (await call('GET', `/v1/webhook_endpoints/${endpoint.id}/deliveries`)).body.data.find((delivery: { id: string }) => delivery.id === failed.body.id);
    await expect.poll(async () => (await redelivered()).status, { timeout: 5000 }).not.toBe('pending');
    expect(await redelivered()).toMatchObject({ status: 'failed', attempt_count: 2, next_attempt_at: null });

    const notTaken = await call('POST', `/v1/webhook_endpoints/${endpoint.id}/test`, { event: 'booking.created' });
    expect(notTaken.status).toBe(422);
    expect(notTaken.body.errors[0].field).toBe('event');
    const unknown = await call('POST', `/v1/webhook_endpoints/${endpoint.id}/test`, { event: 'booking.deleted' });
    expect(unknown.status).toBe(422);
    expect((await call('POST', '/v1/webhook_endpoints/we_nothing/test')).status).toBe(404);

    // Booking events carry customer data: a key that cannot read bookings may not have them sent either.
    const hooksOnly = apiClient(server.url, (await server.createKey({ accountId, scopes: ['webhooks:manage'] })).key);
    const allEndpoint = (await call('POST', '/v1/webhook_endpoints', { url: receiver.url })).body;
    expect((await hooksOnly('POST', `/v1/webhook_endpoints/${allEndpoint.id}/test`, { event: 'api_key.usage_alert' })).status).toBe(202);
    const refused = await hooksOnly('POST', `/v1/webhook_endpoints/${allEndpoint.id}/test`, { event: 'booking.created' });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('insufficient_scope');
    await receiver.close();
  });
});
