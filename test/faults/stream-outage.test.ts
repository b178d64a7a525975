import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnnouncements, type Announcements } from '../../src/events/bus.js';
import { openService } from '../support/bookable.js';
import { futureSlot } from '../support/http.js';
import { openFeed, StreamRefusal, type AvailabilityFeed } from '../support/live-availability.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { requireService } from '../support/services.js';
import { startFaultProxy, type FaultProxy } from './proxy.js';

const postgresUrl = await requireService('postgres');
const redisUrl = await requireService('redis');
const deadlines = { DATABASE_CONNECT_TIMEOUT_MS: 1000, DATABASE_STATEMENT_TIMEOUT_MS: 1000 };

/** An instance whose database stops answering hears, through Redis, of a change another instance made. */
describe.skipIf(!postgresUrl || !redisUrl)('a live availability stream on an instance whose database is frozen', () => {
  let proxy: FaultProxy;
  let server: TestServer;
  let otherInstance: Announcements;
  let feed: AvailabilityFeed | undefined;

  beforeAll(async () => {
    proxy = await startFaultProxy(postgresUrl!);
    server = await startTestServer({ seed: true, postgresUrl: proxy.url, config: { ...deadlines, REDIS_URL: redisUrl } });
    otherInstance = createAnnouncements({ redisUrl });
  });
  afterAll(async () => {
    feed?.close();
    proxy?.restore();
    await otherInstance?.close();
    await server?.close();
    await proxy?.close();
  });

  it('ends over REST with a 503 problem naming the outage, not a 500', async () => {
    const serviceId = await openService(server.prisma);
    const day = futureSlot(45).slice(0, 10);
    feed = await openFeed('rest-sse', { baseUrl: server.url, credential: (await server.createKey()).key, serviceId, startDate: day, endDate: day, timeoutMs: 20_000 });
    await feed.next();
    proxy.freeze();
    otherInstance.availability.publish(serviceId);
    const ended = await feed.take(10_000).catch((error: unknown) => error);
    expect(ended).toBeInstanceOf(StreamRefusal);
    expect({ code: (ended as StreamRefusal).code, status: (ended as StreamRefusal).status }).toEqual({ code: 'service_unavailable', status: 503 });
  });
});
