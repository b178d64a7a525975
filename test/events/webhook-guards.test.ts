import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { describeDeliveryFailure, destinationLookupDeadlineMs, postWebhook } from '../../src/events/webhooks/destination.js';
import { maxEndpointsPerAccount } from '../../src/events/webhooks/endpoints.js';
import { newWebhookSecret } from '../../src/events/webhooks/signing.js';
import { newId } from '../../src/shared/ids.js';
import { apiClient, cursorParamOf, futureSlot } from '../support/http.js';
import { startReceiver } from '../support/receiver.js';
import { webhookQueueDepth } from '../support/metrics.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { requireService } from '../support/services.js';
import { openService } from '../support/bookable.js';

// The system resolver, failing as a real one can: it never answers for one name, says "try again" for another, and "no such name" for .invalid ones.
vi.mock('node:dns/promises', async (importOriginal) => {
  const resolver = await importOriginal<typeof import('node:dns/promises')>();
  const lookup = (host: string, options: object) => {
    if (host.endsWith('.resolver-hangs.test')) return new Promise(() => {});
    if (host.endsWith('.resolver-fails.test')) return Promise.reject(Object.assign(new Error(`getaddrinfo EAI_AGAIN ${host}`), { code: 'EAI_AGAIN' }));
    // Answered as a resolver answers a name that does not exist, whether or not this machine can reach one.
    if (host.endsWith('.invalid')) return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }));
    return resolver.lookup(host, options);
  };
  return { ...resolver, lookup, default: { ...resolver, lookup } };
});

const postgresUrl = await requireService('postgres');

let server: TestServer;
let strict: TestServer;
let serviceId: string;

beforeAll(async () => {
  server = await startTestServer({ seed: true, config: { WEBHOOK_POLL_MS: 25, WEBHOOK_RETRY_SCHEDULE: '50ms,50ms,50ms' } });
  strict = await startTestServer({ seed: true, config: { WEBHOOK_ALLOW_PRIVATE: false, WEBHOOK_POLL_MS: 25, WEBHOOK_RETRY_SCHEDULE: '1h' } });
  serviceId = await openService(server.prisma);
});
afterAll(async () => {
  await server?.close();
  await strict?.close();
});

const customer = { name: 'Guarded', email: 'guarded@example.com' };

function createGraphQLEndpoint(url: string, key: string, input: Record<string, unknown>) {
  return fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { endpoint { id } } }', variables: { input } }),
  }).then((response) => response.json());
}

describe('endpoints per account', () => {
  it(`allows ${maxEndpointsPerAccount} endpoints; the next is 422 too_many_endpoints over REST and GraphQL, and a deleted one frees its place`, async () => {
    const { key } = await server.createKey();
    const call = apiClient(server.url, key);
    for (let index = 0; index < maxEndpointsPerAccount; index++) {
      expect((await call('POST', '/v1/webhook_endpoints', { url: `http://127.0.0.1:9/${index}` })).status).toBe(201);
    }
    const refused = await call('POST', '/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/17' });
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('too_many_endpoints');
    const overGraphQL = await createGraphQLEndpoint(server.url, key, { url: 'http://127.0.0.1:9/17' });
    expect(overGraphQL.errors[0].extensions.code).toBe('too_many_endpoints');

    const [first] = (await call('GET', '/v1/webhook_endpoints?limit=1')).body.data;
    await call('DELETE', `/v1/webhook_endpoints/${first.id}`);
    expect((await call('POST', '/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/again' })).status).toBe(201);
  });

  it('pages on past an endpoint deleted since its page was sent, skipping none', async () => {
    const call = apiClient(server.url, (await server.createKey()).key);
    for (let index = 0; index < 5; index++) expect((await call('POST', '/v1/webhook_endpoints', { url: `http://127.0.0.1:9/page-${index}` })).status).toBe(201);
    const all = (await call('GET', '/v1/webhook_endpoints?limit=100')).body.data.map((endpoint: { id: string }) => endpoint.id);
    const first = await call('GET', '/v1/webhook_endpoints?limit=2');
    expect(first.body.data.map((endpoint: { id: string }) => endpoint.id)).toEqual(all.slice(0, 2));
    expect((await call('DELETE', `/v1/webhook_endpoints/${all[1]}`)).status).toBe(200);
    const second = await call('GET', `/v1/webhook_endpoints?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body).toMatchObject({ has_more: true, data: [{ id: all[2] }, { id: all[3] }] });
    // A cursor naming no endpoint of the account (made up, or another account's) is refused, not an empty last page.
    const strangers = apiClient(server.url, (await server.createKey()).key);
    for (const [caller, id] of [
      [call, 'we_zzzz'],
      [strangers, all[2]],
    ] as const) {
      const refused = await caller('GET', `/v1/webhook_endpoints?limit=2&cursor=${cursorParamOf(id)}`);
      expect([refused.status, refused.body.code]).toEqual([400, 'invalid_parameter']);
    }
    // An endpoint's deliveries refuse a cursor naming none of them.
    const madeUp = cursorParamOf('whd_0000000000doesnotexist');
    const deliveries = await call('GET', `/v1/webhook_endpoints/${all[0]}/deliveries?cursor=${madeUp}`);
    expect([deliveries.status, deliveries.body.errors?.[0]?.field]).toEqual([400, 'cursor']);
    expect((await call('GET', `/v1/webhook_endpoints/${all[0]}/deliveries`)).status).toBe(200);
  });

  it.skipIf(!postgresUrl)('lets only one of several concurrent creations take the last place (PostgreSQL)', async () => {
    const shared = await startTestServer({ postgresUrl: postgresUrl! });
    try {
      const call = apiClient(shared.url, (await shared.createKey()).key);
      for (let index = 0; index < maxEndpointsPerAccount - 1; index++) {
        expect((await call('POST', '/v1/webhook_endpoints', { url: `http://127.0.0.1:9/${index}` })).status).toBe(201);
      }
      const racing = await Promise.all(Array.from({ length: 6 }, (_, index) => call('POST', '/v1/webhook_endpoints', { url: `http://127.0.0.1:9/race-${index}` })));
      expect(racing.map((response) => response.status).sort()).toEqual([201, 422, 422, 422, 422, 422]);
      expect((await call('GET', '/v1/webhook_endpoints?limit=100')).body.data).toHaveLength(maxEndpointsPerAccount);
    } finally {
      await shared.close();
    }
  });
});

describe('an endpoint that answers 410 Gone', () => {
  it('is disabled after that one attempt, saying why, and not retried', async () => {
    const receiver = await startReceiver(() => 410);
    const call = apiClient(server.url, (await server.createKey()).key);
    const endpoint = await call('POST', '/v1/webhook_endpoints', { url: receiver.url, events: ['booking.created'] });
    await call('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(70), customer });
    await expect.poll(async () => (await call('GET', `/v1/webhook_endpoints/${endpoint.body.id}`)).body.enabled, { timeout: 5000 }).toBe(false);
    const disabled = await call('GET', `/v1/webhook_endpoints/${endpoint.body.id}`);
    expect(disabled.body.disabled_reason).toMatch(/410 Gone/);
    const [delivery] = (await call('GET', `/v1/webhook_endpoints/${endpoint.body.id}/deliveries`)).body.data;
    expect(delivery).toMatchObject({ status: 'failed', attempt_count: 1, next_attempt_at: null });
    expect(receiver.received).toHaveLength(1);

    // A disabled endpoint receives nothing, so it refuses a redelivery (which would wait, pending) until enabled.
    const redeliver = () => call('POST', `/v1/webhook_endpoints/${endpoint.body.id}/deliveries/${delivery.id}/redeliver`);
    const refused = await redeliver();
    expect([refused.status, refused.body.code]).toEqual([409, 'endpoint_disabled']);
    expect(refused.body.detail).toMatch(/410 Gone/);
    expect((await call('POST', `/v1/webhook_endpoints/${endpoint.body.id}/deliveries/whd_nothing/redeliver`)).status).toBe(404);
    const enabled = await call('PATCH', `/v1/webhook_endpoints/${endpoint.body.id}`, { enabled: true });
    // The endpoint as it now is, with the ETag its GET answers.
    expect(enabled.headers.get('etag')).toBe((await call('GET', `/v1/webhook_endpoints/${endpoint.body.id}`)).headers.get('etag'));
    expect((await redeliver()).status).toBe(202);
    await receiver.waitFor(2);
    await receiver.close();
  });
});

describe('an endpoint disabled for failing WEBHOOK_DISABLE_AFTER_MS', () => {
  it('keeps the deliveries it had queued pending, out of the queue depth and refused a redelivery (endpoint_disabled), and sends them at once in log order when enabled again', async () => {
    const hourMs = 3_600_000;
    // Moved an hour ahead below, so the endpoint's failures last the hour that disables it without waiting for it.
    let offsetMs = 0;
    const disabling = await startTestServer({
      seed: true,
      clock: () => new Date(Date.now() + offsetMs),
      config: { WEBHOOK_POLL_MS: 25, WEBHOOK_RETRY_SCHEDULE: '1h,1h', WEBHOOK_DISABLE_AFTER_MS: hourMs },
    });
    let failing = true;
    const receiver = await startReceiver(() => (failing ? 500 : 200));
    const witness = await startReceiver();
    try {
      const call = apiClient(disabling.url, (await disabling.createKey()).key);
      const endpoint = (await call('POST', '/v1/webhook_endpoints', { url: receiver.url, events: ['booking.created'] })).body;
      const deliveries = async (id: string) =>
        (await call('GET', `/v1/webhook_endpoints/${id}/deliveries`)).body.data as { id: string; status: string; attempt_count: number; attempts: unknown[] }[];
      const disablingServiceId = await openService(disabling.prisma);
      const book = async (days: number) => (await call('POST', '/v1/bookings', { service_id: disablingServiceId, start_time: futureSlot(days), customer })).body.id as string;

      const firstBooking = await book(72);
      // Its first attempt fails and is recorded, due again in an hour; the next two wait behind it.
      await expect.poll(async () => (await deliveries(endpoint.id))[0]?.attempts.length, { timeout: 5000 }).toBe(1);
      const waiting = [await book(73), await book(74)];
      expect(await webhookQueueDepth(disabling.url)).toBe(3);

      // An hour on, its retry fails too, an hour after the first failure: the endpoint is disabled, and
      // the delivery is due again in another hour.
      offsetMs = hourMs;
      await expect.poll(async () => (await call('GET', `/v1/webhook_endpoints/${endpoint.id}`)).body.enabled, { timeout: 5000 }).toBe(false);
      const disabled = await deliveries(endpoint.id);
      expect(disabled.map((delivery) => [delivery.status, delivery.attempt_count])).toEqual([
        ['pending', 0],
        ['pending', 0],
        ['pending', 2],
      ]);

      // A later event to another endpoint is claimed after them (it is due later), so once it is
      // delivered, they would have been claimed too had they been claimable.
      const other = (await call('POST', '/v1/webhook_endpoints', { url: witness.url, events: ['booking.created'] })).body;
      await book(75);
      await expect.poll(async () => (await deliveries(other.id))[0]?.status, { timeout: 5000 }).toBe('succeeded');
      expect((await deliveries(endpoint.id)).map((delivery) => delivery.attempt_count)).toEqual([0, 0, 2]);
      expect(receiver.received).toHaveLength(2);
      expect(await webhookQueueDepth(disabling.url)).toBe(0);
      const refused = await call('POST', `/v1/webhook_endpoints/${endpoint.id}/deliveries/${disabled[0]!.id}/redeliver`);
      expect([refused.status, refused.body.code]).toEqual([409, 'endpoint_disabled']);
      expect(refused.body.detail).toMatch(/No successful delivery since/);

      // Enabled again within that hour (the clock does not move): all three are sent now, in log order.
      failing = false;
      expect((await call('PATCH', `/v1/webhook_endpoints/${endpoint.id}`, { enabled: true })).status).toBe(200);
      const resumed = (await receiver.waitFor(5)).slice(2);
      expect(resumed.map((webhook) => (JSON.parse(webhook.body) as { data: { id: string } }).data.id)).toEqual([firstBooking, ...waiting]);
      await expect.poll(async () => (await deliveries(endpoint.id)).map((delivery) => delivery.status), { timeout: 5000 }).toEqual(['succeeded', 'succeeded', 'succeeded']);
    } finally {
      await receiver.close();
      await witness.close();
      await disabling.close();
    }
  });
});

describe('who may register an endpoint that receives booking events', () => {
  it('needs bookings:read besides webhooks:manage for all events or booking.*, not for usage alerts only', async () => {
    const { key } = await server.createKey({ scopes: ['webhooks:manage'] });
    const call = apiClient(server.url, key);
    for (const events of [undefined, [], ['booking.created'], ['api_key.usage_alert', 'booking.cancelled']]) {
      const refused = await call('POST', '/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/x', ...(events ? { events } : {}) });
      expect(refused.status, JSON.stringify(events)).toBe(403);
      expect(refused.body.code).toBe('insufficient_scope');
      expect(refused.body.detail).toContain('bookings:read');
    }
    expect((await createGraphQLEndpoint(server.url, key, { url: 'http://127.0.0.1:9/x' })).errors[0].extensions.code).toBe('insufficient_scope');

    const alerts = await call('POST', '/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/alerts', events: ['api_key.usage_alert'] });
    expect(alerts.status).toBe(201);
    expect((await call('PATCH', `/v1/webhook_endpoints/${alerts.body.id}`, { events: [] })).status).toBe(403);
    expect((await call('PATCH', `/v1/webhook_endpoints/${alerts.body.id}`, { events: ['booking.updated'] })).status).toBe(403);
    expect((await call('PATCH', `/v1/webhook_endpoints/${alerts.body.id}`, { url: 'http://127.0.0.1:9/moved' })).status).toBe(200);

    // Redirecting an endpoint that already receives booking events is as good as registering one.
    const owner = apiClient(
      server.url,
      (await server.createKey({ accountId: (await server.prisma.apiKey.findFirstOrThrow({ where: { id: key.split('.')[0]! } })).accountId })).key,
    );
    const bookingsEndpoint = await owner('POST', '/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/bookings' });
    expect(bookingsEndpoint.status).toBe(201);
    expect((await call('PATCH', `/v1/webhook_endpoints/${bookingsEndpoint.body.id}`, { url: 'http://127.0.0.1:9/elsewhere' })).status).toBe(403);
  });
});

describe('destinations', () => {
  const forbidden = [
    'http://127.0.0.1:9/x',
    'http://10.1.2.3/x',
    'http://169.254.169.254/latest',
    'http://[::1]/x',
    'http://[fc00::1]/x',
    'http://[fe80::1]/x',
    'http://[::ffff:127.0.0.1]/x',
    'http://[::127.0.0.1]/x',
    'http://[64:ff9b::7f00:1]/x',
    'http://[64:ff9b::a9fe:a9fe]/x',
    'http://[2002:7f00:1::]/x',
    'http://[::ffff:0:7f00:1]/x',
    'http://[fec0::1]/x',
    'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/x',
    'http://localhost/x',
  ];

  it('refuses every address that is not global unicast, in any IPv6 form, and accepts public ones', async () => {
    const call = apiClient(strict.url, (await strict.createKey()).key);
    for (const url of forbidden) {
      const response = await call('POST', '/v1/webhook_endpoints', { url });
      expect(response.status, url).toBe(422);
      expect(response.body.errors[0].field).toBe('url');
      expect(response.body.errors[0].message, url).toContain('start the server with WEBHOOK_ALLOW_PRIVATE=1');
    }
    for (const url of ['https://[2606:4700::1111]/hooks', 'https://1.1.1.1/hooks']) {
      expect((await call('POST', '/v1/webhook_endpoints', { url })).status, url).toBe(201);
    }
  });

  it('answers 503 with Retry-After, within its deadline, when the resolver does not answer for the host; 422 when the host does not exist', async () => {
    const call = apiClient(strict.url, (await strict.createKey()).key);
    const startedAt = Date.now();
    const hung = await call('POST', '/v1/webhook_endpoints', { url: 'https://hooks.resolver-hangs.test/in' });
    expect(Date.now() - startedAt).toBeLessThan(destinationLookupDeadlineMs + 2_000);
    expect(hung.status).toBe(503);
    expect(hung.headers.get('retry-after')).toBe('5');
    expect(hung.body.detail).toContain('hooks.resolver-hangs.test could not be looked up now');
    const failed = await call('POST', '/v1/webhook_endpoints', { url: 'https://hooks.resolver-fails.test/in' });
    expect(failed.status).toBe(503);
    const missing = await call('POST', '/v1/webhook_endpoints', { url: 'https://no-such-host.invalid/in' });
    expect(missing.status).toBe(422);
    expect(missing.body.errors[0].field).toBe('url');
  }, 15_000);

  it('answers a host that does not resolve as one that resolves to loopback, byte for byte, so that saving endpoints tells no internal names', async () => {
    const { key } = await strict.createKey();
    const saved = (await apiClient(strict.url, key)('POST', '/v1/webhook_endpoints', { url: 'https://1.1.1.1/hooks' })).body;
    // One request id for all, so that nothing but the host could make the answers differ.
    const answer = async (method: string, path: string, url: string) => {
      const response = await fetch(`${strict.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': 'req_same' },
        body: JSON.stringify({ url }),
      });
      return { status: response.status, body: await response.text() };
    };
    for (const [method, path] of [
      ['POST', '/v1/webhook_endpoints'],
      ['PATCH', `/v1/webhook_endpoints/${saved.id}`],
    ] as const) {
      const loopback = await answer(method, path, 'https://localhost/hooks');
      expect(loopback.status).toBe(422);
      expect(JSON.parse(loopback.body).errors).toEqual([
        { field: 'url', code: 'invalid', message: expect.stringMatching(/^url's host does not resolve to a public address \(.*WEBHOOK_ALLOW_PRIVATE=1\.$/) },
      ]);
      expect(await answer(method, path, 'https://no-such-host.invalid/hooks')).toEqual(loopback);
    }
    const [loopback, missing] = await Promise.all(['https://localhost/hooks', 'https://no-such-host.invalid/hooks'].map((url) => createGraphQLEndpoint(strict.url, key, { url })));
    expect(loopback.errors[0].extensions.code).toBe('validation_failed');
    expect(missing).toEqual(loopback);
  });

  it('refuses at delivery a host that resolves to a forbidden address, without saying which address, nor telling it from a host that does not resolve', async () => {
    const send = (url: string) => postWebhook(new URL(url), {}, '{}', { allowPrivate: false, signal: AbortSignal.timeout(5000) }).catch((error: unknown) => error);
    const refused = await send('http://localhost:9/x');
    expect(refused).toMatchObject({ code: 'EFORBIDDEN' });
    const recorded = describeDeliveryFailure(refused);
    expect(recorded).toMatch(/^The host does not resolve to an address webhooks may be sent to/);
    expect(recorded).not.toMatch(/127\.0\.0\.1|::1/);
    const missing = await send('http://no-such-host.invalid/x');
    expect(missing).toMatchObject({ code: 'ENOTFOUND' });
    expect(describeDeliveryFailure(missing)).toBe(recorded);
  });

  it('records delivery failures on attempts without the address connected to', async () => {
    // Saved before the rules were this strict (or aimed at a closed port): delivery checks again, and says only what failed.
    const cases = [
      { on: strict, url: 'http://localhost:9/rebound', error: /^The host does not resolve to an address webhooks may be sent to/ },
      { on: server, url: 'http://127.0.0.1:9/closed', error: /^The connection was refused\.$/ },
    ];
    for (const { on, url, error } of cases) {
      const { key, accountId } = await on.createKey();
      const endpoint = await on.prisma.webhookEndpoint.create({
        data: { id: newId('webhookEndpoint'), accountId, url, events: ['booking.created'], secret: on.app.services.secrets.seal(newWebhookSecret()) },
      });
      await apiClient(on.url, key)('POST', '/v1/bookings', { service_id: await openService(on.prisma), start_time: futureSlot(71), customer });
      await expect.poll(() => on.prisma.webhookAttempt.findFirst({ where: { delivery: { endpointId: endpoint.id } } }), { timeout: 5000 }).not.toBeNull();
      const attempt = await on.prisma.webhookAttempt.findFirstOrThrow({ where: { delivery: { endpointId: endpoint.id } } });
      expect(attempt.error).toMatch(error);
      expect(attempt.error).not.toMatch(/127\.0\.0\.1|::1/);
    }
  });
});
