import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from 'graphql-ws';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { signRequest } from '../../src/access/signing.js';
import { redisSilenceLimitMs, unhurriedCommandTimeoutMs } from '../../src/shared/redis.js';
import { closeOpenConnections, openSocket } from '../access/connections.js';
import { startFaultProxy, type FaultProxy } from './proxy.js';
import { answersWithin, outageModes, readiness, slowMachineMarginMs } from './timing.js';
import { apiClient, futureSlot, type ApiCall } from '../support/http.js';
import { subscriptionsActive } from '../support/metrics.js';
import { startReceiver } from '../support/receiver.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { requireService } from '../support/services.js';
import { openService } from '../support/bookable.js';

const redisUrl = await requireService('redis');

/** REDIS_COMMAND_TIMEOUT_MS's default (other tests raise it): a request waits at most this long for Redis. */
const redisDeadlineMs = 100;
const requestDeadlineMs = redisDeadlineMs + slowMachineMarginMs;
/** Shorter than the default 30 s, so that a place left uncounted is seen to end within the test. */
const subscriptionLeaseMs = 10_000;

describe.skipIf(!redisUrl).each(outageModes)('a Redis outage (%s)', (mode) => {
  let proxy: FaultProxy;
  let server: TestServer;
  let call: ApiCall;
  let signed: { key: string; signingSecret: string };
  /** Redis itself, not through the proxy: what the server left there. */
  let inspector: Redis;

  beforeAll(async () => {
    proxy = await startFaultProxy(redisUrl!);
    server = await startTestServer({
      seed: true,
      config: { REDIS_URL: proxy.url, REDIS_COMMAND_TIMEOUT_MS: redisDeadlineMs, WEBHOOK_POLL_MS: 100, ANALYTICS_FLUSH_MS: 200, SUBSCRIPTION_LEASE_MS: subscriptionLeaseMs },
    });
    call = apiClient(server.url, (await server.createKey({ plan: 'free' })).key);
    const enterprise = await server.createKey({ plan: 'enterprise', requireSignature: true });
    signed = { key: enterprise.key, signingSecret: enterprise.signingSecret! };
    inspector = new Redis(redisUrl!);
  });
  // A test that fails mid-outage leaves none for the next.
  afterEach(() => proxy?.restore());
  afterAll(async () => {
    await closeOpenConnections();
    inspector?.disconnect();
    await server?.close();
    await proxy?.close();
  });

  const signedCall = () =>
    fetch(`${server.url}/api/v1/categories`, {
      headers: { authorization: `Bearer ${signed.key}`, ...signRequest({ signingSecret: signed.signingSecret, method: 'GET', url: '/api/v1/categories' }) },
    });

  it('keeps serving with per-instance rate limits, refuses signed requests (fail closed), all within the deadline, and recovers', async () => {
    // Redis answers within the deadline before the outage (on a loaded machine, maybe not the first time).
    await expect.poll(async () => (await signedCall()).status, { timeout: 10_000, interval: 200 }).toBe(200);
    const before = await call('GET', '/api/v1/categories');
    expect(before.status).toBe(200);
    await expect.poll(() => readiness(server.url), { timeout: 10_000, interval: 200 }).toEqual({ status: 200, body: { status: 'ready', checks: { database: 'ok', redis: 'ok' } } });
    const document = `query Outage${mode} { viewer { accountId } }`;
    const persisted = { extensions: { persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(document).digest('hex') } } };
    expect((await call('POST', '/graphql', { query: document, ...persisted })).status).toBe(200);
    const { key: bookerKey } = await server.createKey();
    const booker = apiClient(server.url, bookerKey);
    const receiver = await startReceiver();
    expect((await booker('POST', '/v1/webhook_endpoints', { url: receiver.url, events: ['booking.created'] })).status).toBe(201);
    const serviceId = await openService(server.prisma);

    proxy[mode]();
    // The in-process insurance limiter counts on: the limit holds per instance.
    let remaining = 100;
    let window: string | null = null;
    for (let request = 0; request < 3; request++) {
      const during = await answersWithin(requestDeadlineMs, () => call('GET', '/api/v1/categories'));
      expect(during.status).toBe(200);
      expect(during.headers.get('x-ratelimit-limit')).toBe('100');
      // A new minute (real time here) starts a new count.
      const sameWindow = during.headers.get('x-ratelimit-reset') === window;
      expect(Number(during.headers.get('x-ratelimit-remaining'))).toBeLessThan(sameWindow ? remaining : 100);
      remaining = Number(during.headers.get('x-ratelimit-remaining'));
      window = during.headers.get('x-ratelimit-reset');
    }
    const booked = await answersWithin(requestDeadlineMs, () =>
      booker('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(33), customer: { name: 'Outage', email: 'outage@example.com' } }),
    );
    expect(booked.status).toBe(201);
    const refused = await answersWithin(requestDeadlineMs, signedCall);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.json()).toMatchObject({ code: 'service_unavailable' });
    // A document this instance registered is still found by its hash.
    const byHash = await answersWithin(requestDeadlineMs, () => call('POST', '/graphql', persisted));
    expect(byHash.body).toEqual({ data: { viewer: { accountId: expect.any(String) } } });
    expect(await answersWithin(2000 + slowMachineMarginMs, () => readiness(server.url))).toEqual({
      status: 200,
      body: { status: 'ready', checks: { database: 'ok', redis: 'degraded' } },
    });
    // Webhooks and analytics run on PostgreSQL alone.
    const [delivered] = await receiver.waitFor(1);
    expect(delivered!.body).toContain(booked.body.id);
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await expect
      .poll(async () => (await booker('GET', `/v1/usage?from=${today}T00:00:00Z&to=${tomorrow}T00:00:00Z&granularity=day`)).body.buckets[0]?.requests, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(2);
    await receiver.close();

    proxy.restore();
    await expect.poll(async () => (await signedCall()).status, { timeout: 15_000, interval: 500 }).toBe(200);
    await expect.poll(async () => (await readiness(server.url)).body, { timeout: 15_000, interval: 500 }).toMatchObject({ checks: { redis: 'ok' } });
  });

  /** A new key of a new account with a service of its own, to book and to subscribe with. */
  async function newBooker() {
    const { key, keyId } = await server.createKey();
    const booker = apiClient(server.url, key);
    const serviceId = await openService(server.prisma);
    let day = 60;
    /** Books the next day's slot, within the deadline whatever Redis does; answers the booking's id. */
    const book = async () => {
      const booked = await answersWithin(requestDeadlineMs, () =>
        booker('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(day++), customer: { name: 'Live', email: 'live@example.com' } }),
      );
      expect(booked.status).toBe(201);
      return booked.body.id as string;
    };
    /** Books until a booking id not `seen` is `streamed()`: then the subscriber hears the bus through Redis. Answers what it booked. */
    const bookUntilStreamed = async (streamed: () => string[], seen: string[]) => {
      const booked: string[] = [];
      const deadline = Date.now() + 20_000;
      while (!streamed().some((id) => !seen.includes(id))) {
        expect(Date.now(), `nothing streamed of ${booked.length} bookings`).toBeLessThan(deadline);
        booked.push(await book());
        await sleep(200);
      }
      return booked;
    };
    return { key, keyId, booker, book, bookUntilStreamed };
  }

  it('keeps a live subscriber through a long outage and streams it what was booked meanwhile', async () => {
    const { key, booker, book, bookUntilStreamed } = await newBooker();
    const subscriber = createClient({
      url: `${server.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${key}` },
      retryAttempts: 0,
    });
    const streamed: string[] = [];
    subscriber.subscribe<{ bookingCreated: { booking: { id: string } } }>(
      { query: 'subscription { bookingCreated { booking { id } } }' },
      { next: ({ data }) => void streamed.push(data!.bookingCreated.booking.id), error: (error) => streamed.push(`error: ${JSON.stringify(error)}`), complete: () => undefined },
    );
    const joined = await bookUntilStreamed(() => streamed, []);

    proxy[mode]();
    // Once signed requests are refused, the server's Redis clients have seen the outage.
    await expect.poll(async () => (await signedCall()).status).toBe(503);
    const duringOutage = await book();
    // A long outage: past ioredis's reconnection attempts (cut) and past the health probe's
    // deadline, which drops a silent connection and makes a new one (freeze). Announcing that
    // booking must not crash the server, nor hold the request.
    await sleep(redisSilenceLimitMs + slowMachineMarginMs);
    expect((await answersWithin(requestDeadlineMs, () => booker('GET', `/v1/bookings/${duringOutage}`))).status).toBe(200);

    // Pub/sub keeps nothing for a subscriber that was cut off, but the first announcement it hears
    // after the outage makes it read the log past its last event: the missed booking comes first.
    proxy.restore();
    const afterwards = await bookUntilStreamed(() => streamed, [...joined, ...streamed]);
    const sinceJoined = streamed.filter((id) => !joined.includes(id));
    expect(sinceJoined).toEqual([duringOutage, ...afterwards].slice(0, sinceJoined.length));
    await subscriber.dispose();
  }, 60_000);

  it('answers a hash registered on another instance (so only in Redis) PERSISTED_QUERY_NOT_FOUND within the deadline, and the document sent again', async () => {
    const { key } = await server.createKey();
    const call = apiClient(server.url, key);
    const document = `query RegisteredElsewhere${mode} { viewer { accountId } }`;
    const hash = createHash('sha256').update(document).digest('hex');
    const byHash = { extensions: { persistedQuery: { version: 1, sha256Hash: hash } } };
    const answer = { data: { viewer: { accountId: expect.any(String) } } };
    const sibling = server.sibling();
    try {
      const registerOnSibling = apiClient(await sibling.listen(0, '127.0.0.1'), key);
      // Registered in Redis (a loaded machine may miss the deadline once: the sibling then keeps it in its memory only).
      await expect
        .poll(
          async () => {
            expect((await registerOnSibling('POST', '/graphql', { query: document, ...byHash })).body).toEqual(answer);
            return inspector.exists(`hallowgate:apq:${hash}`);
          },
          { timeout: 10_000, interval: 200 },
        )
        .toBe(1);
    } finally {
      await sibling.close();
    }
    // This instance finds it in Redis; a lookup keeps nothing in its memory.
    await expect.poll(async () => (await call('POST', '/graphql', byHash)).body, { timeout: 10_000, interval: 200 }).toEqual(answer);

    proxy[mode]();
    const notFound = await answersWithin(requestDeadlineMs, () => call('POST', '/graphql', byHash));
    expect(notFound.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect(notFound.body.data).toBeUndefined();
    // The client sends the document with its hash, as the protocol has it: answered, and registered in this instance's memory.
    expect((await answersWithin(requestDeadlineMs, () => call('POST', '/graphql', { query: document, ...byHash }))).body).toEqual(answer);
    expect((await answersWithin(requestDeadlineMs, () => call('POST', '/graphql', byHash))).body).toEqual(answer);
  });

  it('admits a new subscription (within its wait for a place when frozen), counts no place for it, and streams it what was booked meanwhile once Redis is back', async () => {
    const { key, keyId, book, bookUntilStreamed } = await newBooker();
    const places = `hallowgate:subscriptions:${keyId}`;
    /** The key's places whose lease has not ended, by Redis' clock as the server counts them (an ended one stays in the set until the next take drops it). */
    const countedPlaces = async () => {
      const [seconds, microseconds] = await inspector.time();
      return inspector.zrangebyscore(places, `(${Number(seconds) * 1000 + Math.floor(Number(microseconds) / 1000)}`, '+inf');
    };
    await expect.poll(async () => (await signedCall()).status, { timeout: 15_000, interval: 200 }).toBe(200);
    // A subscription of the same key from before the outage, on another channel of the bus than
    // bookings': its place is counted in Redis, and renewed there.
    const witness = await openSocket(server.url, key);
    witness.subscribe('subscription { usageAlerts { id } }');
    await expect.poll(countedPlaces, { timeout: 10_000 }).toHaveLength(1);
    const [witnessPlace] = await countedPlaces();
    const active = await subscriptionsActive(server.url);

    proxy[mode]();
    await expect.poll(async () => (await signedCall()).status).toBe(503);
    const subscriber = await openSocket(server.url, key);
    const streamed = () => subscriber.payloads.map((payload) => (payload.data as { bookingCreated: { booking: { id: string } } }).bookingCreated.booking.id);
    // Admitted once its place could not be counted: frozen, after the place-counting command's deadline.
    await answersWithin(unhurriedCommandTimeoutMs + slowMachineMarginMs, async () => {
      subscriber.subscribe('subscription { bookingCreated { booking { id } } }');
      await expect.poll(() => subscriptionsActive(server.url), { timeout: 10_000, interval: 50 }).toBe(active + 1);
    });
    const duringOutage = await book();

    proxy.restore();
    // It joined the bus during the outage: the first announcement it hears after it makes it read the log from where it started.
    const afterwards = await bookUntilStreamed(streamed, []);
    expect(streamed()).toEqual([duringOutage, ...afterwards].slice(0, streamed().length));
    expect([...witness.failures, ...subscriber.failures]).toEqual([]);

    // Its place is not counted after the outage either, while it stays open: none is held or
    // renewed for it. (Its place-counting command may still reach Redis once the proxy lets through
    // what waited: that place ends with its lease, never renewed.)
    await expect.poll(countedPlaces, { timeout: subscriptionLeaseMs + slowMachineMarginMs + 5_000, interval: 500 }).toEqual([witnessPlace]);
    const witnessExpiry = Number(await inspector.zscore(places, witnessPlace!));
    await expect
      .poll(async () => Number(await inspector.zscore(places, witnessPlace!)), { timeout: subscriptionLeaseMs / 3 + slowMachineMarginMs + 3_000, interval: 500 })
      .toBeGreaterThan(witnessExpiry);
    expect(await countedPlaces()).toEqual([witnessPlace]);
    expect(subscriber.closeCode).toBeUndefined();

    await Promise.all([witness.client.dispose(), subscriber.client.dispose()]);
    await expect.poll(countedPlaces).toEqual([]);
  }, 90_000);
});
