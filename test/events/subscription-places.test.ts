import { createClient, type Client } from 'graphql-ws';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { pino } from 'pino';
import { createSubscriptionQuota, subscriptionLimits } from '../../src/server/subscription-quota.js';
import { subscriptionsActive } from '../support/metrics.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { requireService } from '../support/services.js';

const redisUrl = await requireService('redis');

const subscription = 'subscription { bookingEvents { id } }';
const bursts = 50;

/** A raw graphql-ws socket that sends `count` subscribes once acknowledged and closes at once, while they are still being admitted. */
async function subscribeAndClose(baseUrl: string, key: string, count: number): Promise<void> {
  const socket = new WebSocket(`${baseUrl.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
  const closed = new Promise((resolve) => socket.once('close', resolve));
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  const acknowledged = new Promise((resolve) => socket.on('message', (data: Buffer) => JSON.parse(data.toString()).type === 'connection_ack' && resolve(undefined)));
  socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${key}` } }));
  await acknowledged;
  for (let id = 0; id < count; id++) socket.send(JSON.stringify({ id: String(id), type: 'subscribe', payload: { query: subscription } }));
  socket.close();
  await closed;
}

/** A graphql-ws client whose subscriptions report refusals (by code) and first events. */
function connect(baseUrl: string, key: string, clients: Client[]) {
  const client = createClient({
    url: `${baseUrl.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${key}` },
    retryAttempts: 0,
    lazy: false,
  });
  clients.push(client);
  const refusals: string[] = [];
  const subscribe = () =>
    client.subscribe(
      { query: subscription },
      {
        next: () => undefined,
        error: (error) => void refusals.push((error as { extensions?: { code?: string } }[])[0]?.extensions?.code ?? 'socket error'),
        complete: () => undefined,
      },
    );
  return { refusals, subscribe };
}

describe.skipIf(!redisUrl)('subscription places with Redis, whatever the order of subscribe and close', () => {
  let server: TestServer;
  let redis: Redis;
  const clients: Client[] = [];

  beforeAll(async () => {
    // Renewed every second: the test sees a renewal without waiting for the default's 10 s.
    server = await startTestServer({ config: { REDIS_URL: redisUrl!, SUBSCRIPTION_LEASE_MS: 3000 } });
    // The server's own URL, with its key prefix: the same keys it counts places under.
    redis = new Redis(server.app.services.config.REDIS_URL!);
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.dispose()));
    redis?.disconnect();
    await server?.close();
  });

  it(`${bursts} sockets that send ${subscriptionLimits.perSocket} subscribes and close at once leave no place held, even after a renewal`, async () => {
    // Promo keys are not rate limited, so no subscribe is refused for that.
    const { key, keyId } = await server.createKey({ scopes: ['bookings:read'], promo: true });
    const places = `hallowgate:subscriptions:${keyId}`;
    // A live subscription of the same key: its lease's expiry moves when this instance renews what it holds.
    const witness = connect(server.url, key, clients);
    witness.subscribe();
    await expect.poll(() => redis.zcard(places)).toBe(1);
    const [witnessMember, firstExpiry] = await redis.zrange(places, 0, -1, 'WITHSCORES');

    for (let burst = 0; burst < bursts; burst++) await subscribeAndClose(server.url, key, subscriptionLimits.perSocket);

    await expect.poll(() => redis.zrange(places, 0, -1), { timeout: 15_000, interval: 200 }).toEqual([witnessMember]);
    // A place taken after its socket closed used to join the renewal set and come back at the next renewal.
    await expect.poll(async () => Number(await redis.zscore(places, witnessMember!)), { timeout: 30_000, interval: 500 }).toBeGreaterThan(Number(firstExpiry));
    expect(await redis.zrange(places, 0, -1)).toEqual([witnessMember]);

    // New subscriptions of that key are admitted.
    const fresh = connect(server.url, key, clients);
    fresh.subscribe();
    await expect.poll(() => redis.zcard(places)).toBe(2);
    expect([...witness.refusals, ...fresh.refusals]).toEqual([]);
  }, 120_000);
});

describe('subscription places without Redis, whatever the order of subscribe and close', () => {
  let server: TestServer;
  const clients: Client[] = [];

  beforeAll(async () => {
    server = await startTestServer({ config: { REDIS_URL: undefined } });
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.dispose()));
    await server?.close();
  });

  it(`after ${bursts} sockets that subscribe and close at once, the key still opens all of its ${subscriptionLimits.perCredential} subscriptions`, async () => {
    const { key } = await server.createKey({ scopes: ['bookings:read'], promo: true });
    for (let burst = 0; burst < bursts; burst++) await subscribeAndClose(server.url, key, subscriptionLimits.perSocket);
    await expect.poll(() => subscriptionsActive(server.url), { timeout: 15_000 }).toBe(0);

    const sockets = Array.from({ length: subscriptionLimits.perCredential / subscriptionLimits.perSocket }, () => connect(server.url, key, clients));
    for (const socket of sockets) for (let index = 0; index < subscriptionLimits.perSocket; index++) socket.subscribe();
    await expect.poll(() => subscriptionsActive(server.url), { timeout: 30_000 }).toBe(subscriptionLimits.perCredential);
    expect(sockets.flatMap((socket) => socket.refusals)).toEqual([]);
  }, 120_000);
});

describe.skipIf(!redisUrl)('subscription places of instances with different leases', () => {
  it('keep the longest lease on the key: a shorter one never ends the places of the other', async () => {
    const logger = pino({ level: 'silent' });
    const long = createSubscriptionQuota({ redisUrl: redisUrl!, leaseMs: 60_000, logger });
    const short = createSubscriptionQuota({ redisUrl: redisUrl!, leaseMs: 3_000, logger });
    const redis = new Redis(redisUrl!);
    const subject = { key: `lease-test-${Date.now()}`, limit: 10, refusal: 'too many' };
    try {
      expect(await long.take(subject, 'on-the-long-lease')).toBe(true);
      expect(await short.take(subject, 'on-the-short-lease')).toBe(true);
      expect(await redis.pttl(`hallowgate:subscriptions:${subject.key}`)).toBeGreaterThan(50_000);
    } finally {
      redis.disconnect();
      await Promise.all([long.close(), short.close()]);
    }
  });
});
