import type { Socket } from 'node:net';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unansweredGraceMs } from '../../src/db/connection.js';
import { openService } from '../support/bookable.js';
import { apiClient, futureSlot, type ApiCall } from '../support/http.js';
import { openFeed, type AvailabilityFeed } from '../support/live-availability.js';
import { subscriptionsActive } from '../support/metrics.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { requireService } from '../support/services.js';
import { startFaultProxy, type FaultProxy } from './proxy.js';
import { answersWithin, slowMachineMarginMs } from './timing.js';

const postgresUrl = await requireService('postgres');
const deadlines = { DATABASE_CONNECT_TIMEOUT_MS: 1000, DATABASE_STATEMENT_TIMEOUT_MS: 1000 };

/**
 * A proxy in front of PostgreSQL that, once told what to wait for, holds back for good every answer
 * to the first session whose statements sent since then match: its writes land, their answers are lost.
 */
async function startHoldingProxy() {
  const held: Socket[] = [];
  let matches: ((sent: string) => boolean) | undefined;
  const proxy = await startFaultProxy(postgresUrl!, (client) => {
    let sent = '';
    client.on('data', (chunk: Buffer) => {
      if (!matches) return (sent = '');
      sent += chunk.toString('latin1');
      if (!matches(sent)) return;
      matches = undefined;
      // What PostgreSQL answers to this session is written to the client no more.
      client.cork();
      held.push(client);
    });
  });
  return {
    proxy,
    held,
    holdAnswersOnceSent(match: (sent: string) => boolean) {
      matches = match;
    },
    release() {
      for (const socket of held) socket.destroy();
    },
  };
}
type HoldingProxy = Awaited<ReturnType<typeof startHoldingProxy>>;

/**
 * A commit that lands while its answer is lost: the session that sends COMMIT hears nothing back
 * (its replies are held), every other session works. The client is told 503; the booking is in.
 */
describe.skipIf(!postgresUrl)('a booking whose COMMIT landed but whose answer was lost', () => {
  let proxy: FaultProxy;
  let server: TestServer;
  let call: ApiCall;
  let serviceId: string;
  let key: string;
  let holding: HoldingProxy;
  let feed: AvailabilityFeed | undefined;
  let logClient: Client | undefined;

  beforeAll(async () => {
    holding = await startHoldingProxy();
    proxy = holding.proxy;
    server = await startTestServer({ seed: true, postgresUrl: proxy.url, config: { ...deadlines, REDIS_URL: undefined } });
    ({ key } = await server.createKey());
    call = apiClient(server.url, key);
    serviceId = await openService(server.prisma, { capacity: 4 });
  });
  afterAll(async () => {
    feed?.close();
    await logClient?.dispose();
    holding?.release();
    await server?.close();
    await proxy?.close();
  });

  it('is still announced: live availability sends the slot it changed, and the log subscription its event', async () => {
    const streamsBefore = await subscriptionsActive(server.url);
    logClient = createClient({ url: `${server.url.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${key}` } });
    const logged: string[] = [];
    logClient.subscribe<{ bookingEvents: { event: string; booking: { id: string } } }>(
      { query: 'subscription { bookingEvents { event booking { id } } }' },
      { next: ({ data }) => data && logged.push(data.bookingEvents.event), error: () => undefined, complete: () => undefined },
    );
    await expect.poll(() => subscriptionsActive(server.url), { timeout: 10_000 }).toBe(streamsBefore + 1);
    const day = futureSlot(40).slice(0, 10);
    const slotsOfDay = (await call('GET', `/v1/services/${serviceId}/availability?start_date=${day}&end_date=${day}`)).body.data as unknown[];
    feed = await openFeed('graphql-ws', { baseUrl: server.url, credential: key, serviceId, startDate: day, endDate: day, timeoutMs: 10_000 });
    await feed.take(slotsOfDay.length);

    // The session that inserts the booking, once it sends COMMIT.
    holding.holdAnswersOnceSent((sent) => sent.includes('INSERT INTO') && sent.includes('bookings') && sent.includes('COMMIT'));
    const start = futureSlot(40, 18);
    const booking = await answersWithin(deadlines.DATABASE_STATEMENT_TIMEOUT_MS + unansweredGraceMs + slowMachineMarginMs, () =>
      call('POST', '/v1/bookings', { service_id: serviceId, start_time: start, party_size: 3, customer: { name: 'Lost', email: 'lost@example.com' } }),
    );
    expect(holding.held).toHaveLength(1);
    expect(booking.status).toBe(503);
    expect(await server.prisma.booking.count({ where: { serviceId } })).toBe(1);
    const changed = await feed.next();
    expect([changed.startTime, changed.remaining]).toEqual([start, 1]);
    await expect.poll(() => logged, { timeout: 10_000 }).toEqual(['booking.created']);
  });
});

/** Requests of one key on one route, as usage_buckets holds them. */
async function requestsCounted(server: TestServer, keyId: string, route: string): Promise<number> {
  const rows = await server.prisma.usageBucket.findMany({ where: { apiKeyId: keyId, route } });
  return rows.reduce((sum, row) => sum + row.requests, 0);
}

describe.skipIf(!postgresUrl)('usage flushes under a database that stops answering', () => {
  let proxy: FaultProxy;
  let server: TestServer;
  let holding: HoldingProxy;

  beforeAll(async () => {
    holding = await startHoldingProxy();
    proxy = holding.proxy;
    server = await startTestServer({ postgresUrl: proxy.url, config: { ...deadlines, REDIS_URL: undefined, ANALYTICS_FLUSH_MS: 100 } });
  });
  afterAll(async () => {
    proxy?.restore();
    holding?.release();
    await server?.database.close();
    await proxy?.close();
  });

  it('adds a flush that landed with its answer lost once, though it is sent again', async () => {
    const { key, keyId } = await server.createKey();
    const call = apiClient(server.url, key);
    holding.holdAnswersOnceSent((sent) => sent.includes('usage_buckets'));
    for (let index = 0; index < 11; index++) expect((await call('GET', '/v1/services?limit=1')).status).toBe(200);
    await expect.poll(() => holding.held.length, { timeout: 10_000 }).toBe(1);
    await expect.poll(() => requestsCounted(server, keyId, 'GET /v1/services'), { timeout: 20_000 }).toBe(11);
    // Flushes go out oldest first: once a later request is counted, the lost one was sent again before it.
    expect((await call('GET', '/v1/bookings?limit=1')).status).toBe(200);
    await expect.poll(() => requestsCounted(server, keyId, 'GET /v1/bookings'), { timeout: 20_000 }).toBe(1);
    expect(await requestsCounted(server, keyId, 'GET /v1/services')).toBe(11);
  });

  it('stops within its deadlines when the database hangs, however many flush ticks passed meanwhile', async () => {
    const call = apiClient(server.url, (await server.createKey()).key);
    expect((await call('GET', '/v1/services?limit=1')).status).toBe(200);
    proxy.freeze();
    // Twenty ticks of the flush timer while every flush waits out its deadline.
    await new Promise((resolve) => setTimeout(resolve, 20 * 100));
    await answersWithin(2 * (deadlines.DATABASE_STATEMENT_TIMEOUT_MS + unansweredGraceMs) + slowMachineMarginMs, () => server.app.close());
  });
});
