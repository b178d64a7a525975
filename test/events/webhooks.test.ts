import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, futureSlot, type ApiCall } from '../support/http.js';
import { startReceiver } from '../support/receiver.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { openService } from '../support/bookable.js';

let server: TestServer;
let call: ApiCall;
let serviceId: string;

const customer = { name: 'Hook Tester', email: 'hooks@example.com' };

beforeAll(async () => {
  server = await startTestServer({
    seed: true,
    config: { WEBHOOK_RETRY_SCHEDULE: '100ms,200ms,300ms', WEBHOOK_POLL_MS: 25 },
  });
  call = apiClient(server.url, (await server.createKey({ scopes: ['bookings:read', 'bookings:write', 'webhooks:manage'] })).key);
  serviceId = await openService(server.prisma);
});
afterAll(() => server?.close());

function book(days: number) {
  return call('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(days), customer });
}

describe('webhook endpoints', () => {
  it('delivers every booking event, signed per Standard Webhooks, in log order', async () => {
    const receiver = await startReceiver();
    const created = await call('POST', '/v1/webhook_endpoints', { url: receiver.url, description: 'all events' });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_/);
    expect(created.body).toMatchObject({ url: receiver.url, events: [], enabled: true });
    expect((await call('GET', `/v1/webhook_endpoints/${created.body.id}`)).body.secret).toBeUndefined();

    const booking = await book(50);
    await call('PATCH', `/v1/bookings/${booking.body.id}`, { customer: { name: 'Renamed' } });
    await call('DELETE', `/v1/bookings/${booking.body.id}`);
    const received = await receiver.waitFor(3);

    const verifier = new Webhook(created.body.secret);
    const bodies = received.map((webhook) => verifier.verify(webhook.body, webhook.headers as Record<string, string>) as { id: string; event: string; data: { id: string } });
    expect(bodies.map((body) => body.event)).toEqual(['booking.created', 'booking.updated', 'booking.cancelled']);
    expect(bodies.every((body) => body.data.id === booking.body.id)).toBe(true);
    expect(received.map((webhook) => webhook.headers['webhook-id'])).toEqual(bodies.map((body) => body.id));
    const log = await call('GET', '/v1/booking_events?limit=100');
    const logged = log.body.data.filter((event: { data: { id: string } }) => event.data.id === booking.body.id);
    expect(bodies).toEqual(logged);

    const deliveries = await call('GET', `/v1/webhook_endpoints/${created.body.id}/deliveries`);
    expect(deliveries.body.data).toHaveLength(3);
    expect(deliveries.body.data[0]).toMatchObject({ status: 'succeeded', attempt_count: 1 });
    expect(deliveries.body.data[0].attempts[0].response_status).toBe(200);
    await call('DELETE', `/v1/webhook_endpoints/${created.body.id}`);
    await receiver.close();
  });

  it('retries a failing receiver with the same webhook-id until it recovers, and records each attempt', async () => {
    const receiver = await startReceiver((_webhook, index) => (index < 2 ? 503 : 204));
    const endpoint = await call('POST', '/v1/webhook_endpoints', { url: receiver.url, events: ['booking.created'] });
    await book(51);
    const received = await receiver.waitFor(3);
    expect(new Set(received.map((webhook) => webhook.headers['webhook-id'])).size).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const [delivery] = (await call('GET', `/v1/webhook_endpoints/${endpoint.body.id}/deliveries`)).body.data;
    expect(delivery.status).toBe('succeeded');
    expect(delivery.attempts.map((attempt: { response_status: number }) => attempt.response_status)).toEqual([503, 503, 204]);

    const again = await call('POST', `/v1/webhook_endpoints/${endpoint.body.id}/deliveries/${delivery.id}/redeliver`);
    expect(again.status).toBe(202);
    await receiver.waitFor(4);
    expect(received[3]!.headers['webhook-id']).toBe(received[0]!.headers['webhook-id']);
    await call('DELETE', `/v1/webhook_endpoints/${endpoint.body.id}`);
    await receiver.close();
  });

  it('sends a redelivery only once the delivery being sent is answered: one at a time per endpoint', async () => {
    let open = 0;
    let mostOpen = 0;
    let releaseHeld: (() => void) | undefined;
    const receiver = await startReceiver(async (_webhook, index) => {
      mostOpen = Math.max(mostOpen, ++open);
      // The second delivery is held for a second, or until another arrives beside it.
      if (index === 1) await new Promise<void>((resolve) => setTimeout((releaseHeld = resolve), 1000));
      else releaseHeld?.();
      open--;
      return 200;
    });
    const endpoint = await call('POST', '/v1/webhook_endpoints', { url: receiver.url, events: ['booking.created'] });
    await book(55);
    const [first] = await receiver.waitFor(1);
    const deliveries = () => call('GET', `/v1/webhook_endpoints/${endpoint.body.id}/deliveries`);
    while ((await deliveries()).body.data[0].status !== 'succeeded') await new Promise((resolve) => setTimeout(resolve, 20));
    const [delivered] = (await deliveries()).body.data;

    await book(56);
    await receiver.waitFor(2);
    expect((await call('POST', `/v1/webhook_endpoints/${endpoint.body.id}/deliveries/${delivered.id}/redeliver`)).status).toBe(202);
    const received = await receiver.waitFor(3);
    expect(received[2]!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(mostOpen).toBe(1);
    await call('DELETE', `/v1/webhook_endpoints/${endpoint.body.id}`);
    await receiver.close();
  });

  it('abandons the deliveries of a deleted endpoint, the one being sent too, whatever its answer', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const receiver = await startReceiver(async () => {
      await released;
      return 500;
    });
    const endpoint = await call('POST', '/v1/webhook_endpoints', { url: receiver.url, events: ['booking.created'] });
    await book(57);
    await receiver.waitFor(1);
    expect((await call('DELETE', `/v1/webhook_endpoints/${endpoint.body.id}`)).status).toBe(200);
    release();
    // The attempt under way is recorded once it is answered, and leaves the delivery as the deletion did.
    await expect.poll(() => server.prisma.webhookAttempt.count({ where: { delivery: { endpointId: endpoint.body.id } } }), { timeout: 5000 }).toBe(1);
    const deliveries = await server.prisma.webhookDelivery.findMany({ where: { endpointId: endpoint.body.id } });
    expect(deliveries.map((delivery) => delivery.status)).toEqual(['failed']);
    await receiver.close();
  });

  it('gives up after the last retry, and sends only the kinds an endpoint asked for', async () => {
    const receiver = await startReceiver(() => 500);
    const endpoint = await call('POST', '/v1/webhook_endpoints', { url: receiver.url, events: ['booking.cancelled'] });
    const booking = await book(52);
    await call('DELETE', `/v1/bookings/${booking.body.id}`);
    await receiver.waitFor(4);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).toHaveLength(4);
    expect(receiver.received.every((webhook) => JSON.parse(webhook.body).event === 'booking.cancelled')).toBe(true);
    const [delivery] = (await call('GET', `/v1/webhook_endpoints/${endpoint.body.id}/deliveries`)).body.data;
    expect(delivery).toMatchObject({ status: 'failed', attempt_count: 4, next_attempt_at: null });
    await receiver.close();
  });

  it('signs with both secrets for 24 h after a rotation, one old secret at a time', async () => {
    const receiver = await startReceiver();
    const endpoint = await call('POST', '/v1/webhook_endpoints', { url: receiver.url, events: ['booking.created'] });
    const rotated = await call('POST', `/v1/webhook_endpoints/${endpoint.body.id}/rotate_secret`);
    expect(rotated.body.secret).not.toBe(endpoint.body.secret);
    await book(53);
    const [webhook] = await receiver.waitFor(1);
    expect(String(webhook!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [endpoint.body.secret, rotated.body.secret]) {
      expect(() => new Webhook(secret).verify(webhook!.body, webhook!.headers as Record<string, string>)).not.toThrow();
    }
    // One old secret at a time: rotated again within the 24 h, the first stops signing at once.
    const again = await call('POST', `/v1/webhook_endpoints/${endpoint.body.id}/rotate_secret`);
    await book(54);
    const [, later] = await receiver.waitFor(2);
    expect(String(later!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [rotated.body.secret, again.body.secret]) {
      expect(() => new Webhook(secret).verify(later!.body, later!.headers as Record<string, string>)).not.toThrow();
    }
    expect(() => new Webhook(endpoint.body.secret).verify(later!.body, later!.headers as Record<string, string>)).toThrow();
    await call('DELETE', `/v1/webhook_endpoints/${endpoint.body.id}`);
    await receiver.close();
  });

  it('validates input, keeps accounts apart and needs webhooks:manage', async () => {
    const bad = await call('POST', '/v1/webhook_endpoints', { url: 'ftp://example.com', events: ['booking.exploded'] });
    expect(bad.status).toBe(422);
    const fields = bad.body.errors.map((error: { field: string }) => error.field);
    expect(fields).toContain('url');
    expect(fields.some((field: string) => field.startsWith('events'))).toBe(true);
    const receiver = await startReceiver();
    const mine = await call('POST', '/v1/webhook_endpoints', { url: receiver.url });
    const stranger = apiClient(server.url, (await server.createKey({ scopes: ['webhooks:manage'] })).key);
    expect((await stranger('GET', `/v1/webhook_endpoints/${mine.body.id}`)).status).toBe(404);
    expect((await stranger('GET', '/v1/webhook_endpoints')).body.data).toEqual([]);
    const reader = apiClient(server.url, (await server.createKey({ scopes: ['bookings:read'] })).key);
    expect((await reader('GET', '/v1/webhook_endpoints')).status).toBe(403);
    await receiver.close();
  });
});

describe('attempts', () => {
  it('run from their request to its answer: started_at is when the request went, duration_ms the time its answer took', async () => {
    const answerMs = 1234;
    // The server's clock stands still but while the receiver holds the request, which takes answerMs of
    // it: an attempt measured from its request to its answer lasts exactly that.
    let now = new Date();
    const timed = await startTestServer({ seed: true, clock: () => now, config: { WEBHOOK_POLL_MS: 25 } });
    let sentAt: Date | undefined;
    const receiver = await startReceiver(() => {
      sentAt = now;
      now = new Date(now.getTime() + answerMs);
      return 200;
    });
    try {
      const timedCall = apiClient(timed.url, (await timed.createKey()).key);
      const endpoint = await timedCall('POST', '/v1/webhook_endpoints', { url: receiver.url, events: ['booking.created'] });
      await timedCall('POST', '/v1/bookings', { service_id: await openService(timed.prisma), start_time: futureSlot(58), customer });
      const deliveries = async () => (await timedCall('GET', `/v1/webhook_endpoints/${endpoint.body.id}/deliveries`)).body.data;
      await expect.poll(async () => (await deliveries())[0]?.status, { timeout: 5000 }).toBe('succeeded');
      const [delivery] = await deliveries();
      const [attempt] = delivery.attempts;
      expect(Date.parse(attempt.started_at)).toBe(sentAt!.getTime());
      expect(Date.parse(attempt.started_at)).toBeGreaterThanOrEqual(Date.parse(delivery.created_at));
      expect(attempt.duration_ms).toBe(answerMs);
      expect(Date.parse(delivery.completed_at)).toBe(sentAt!.getTime() + answerMs);
    } finally {
      await receiver.close();
      await timed.close();
    }
  });
});

describe('destinations', () => {
  it('refuses private, loopback and link-local URLs unless WEBHOOK_ALLOW_PRIVATE is on', async () => {
    const strict = await startTestServer({ config: { WEBHOOK_ALLOW_PRIVATE: false } });
    try {
      const strictCall = apiClient(strict.url, (await strict.createKey({ scopes: ['webhooks:manage', 'bookings:read'] })).key);
      for (const url of ['http://127.0.0.1:9/x', 'http://10.1.2.3/x', 'http://169.254.169.254/latest', 'http://[::1]/x', 'http://localhost/x']) {
        const response = await strictCall('POST', '/v1/webhook_endpoints', { url });
        expect(response.status, url).toBe(422);
        expect(response.body.errors[0].field).toBe('url');
      }
      expect((await strictCall('POST', '/v1/webhook_endpoints', { url: 'https://93.184.215.14/hooks' })).status).toBe(201);
    } finally {
      await strict.close();
    }
  });
});
