import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { openService } from '../support/bookable.js';
import { apiClient, futureSlot } from '../support/http.js';
import { openFeed, type AvailabilityFeed, type Transport } from '../support/live-availability.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { requireService } from '../support/services.js';

// Under CI=true a missing Redis fails this file instead of skipping it.
const redisUrl = await requireService('redis');

const slotsPerDay = 288;

/** Two instances on one database and one Redis: what one commits reaches the other's subscribers only through Redis. */
describe.skipIf(!redisUrl)('live availability on two instances', () => {
  let first: TestServer;
  let second: App;
  let secondUrl: string;
  let redis: Redis;
  const feeds: AvailabilityFeed[] = [];

  beforeAll(async () => {
    first = await startTestServer({ seed: true });
    second = first.sibling();
    secondUrl = await second.listen(0, '127.0.0.1');
    redis = new Redis(redisUrl!, { lazyConnect: true });
  });
  afterAll(async () => {
    for (const feed of feeds) feed.close();
    await second?.close();
    await first?.close();
    redis?.disconnect();
  });

  it.each(['graphql-ws', 'rest-sse'] as const)('a booking on one instance reaches a subscriber over %s on the other', async (transport: Transport) => {
    const serviceId = await openService(first.prisma, { capacity: 5 });
    const days = transport === 'rest-sse' ? 40 : 41;
    const day = futureSlot(days).slice(0, 10);
    const { key } = await first.createKey({ scopes: ['bookings:read', 'bookings:write'] });
    const feed = await openFeed(transport, { baseUrl: secondUrl, credential: key, serviceId, startDate: day, endDate: day });
    feeds.push(feed);
    await feed.take(slotsPerDay);
    const booked = await apiClient(first.url, key)('POST', '/v1/bookings', {
      service_id: serviceId,
      start_time: futureSlot(days, 20),
      party_size: 2,
      customer: { name: 'A', email: 'a@example.com' },
    });
    expect(booked.status).toBe(201);
    expect(await feed.next()).toMatchObject({ serviceId, startTime: futureSlot(days, 20), remaining: 3 });
  });

  it.each(['graphql-ws', 'rest-sse'] as const)(
    'a subscriber over %s that leaves lets go of its service’s channel at once, not at its next change',
    async (transport: Transport) => {
      const serviceId = await openService(first.prisma, { capacity: 5 });
      const day = futureSlot(42).slice(0, 10);
      const { key } = await first.createKey({ scopes: ['bookings:read'] });
      const feed = await openFeed(transport, { baseUrl: secondUrl, credential: key, serviceId, startDate: day, endDate: day });
      feeds.push(feed);
      await feed.take(slotsPerDay);
      const channel = `availability-change:${serviceId}`;
      const listeners = async () => ((await redis.pubsub('NUMSUB', channel)) as [string, number])[1];
      expect(await listeners()).toBe(1);
      feed.close();
      await expect.poll(listeners).toBe(0);
    },
  );
});
