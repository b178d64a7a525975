import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { signRequest } from '../../src/access/signing.js';
import { startFaultProxy } from '../support/fault-proxy.js';
import { apiClient, futureSlot, type ApiCall } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { requireService } from '../support/services.js';
import { openService } from '../support/bookable.js';

const redisUrl = await requireService('redis');

describe.skipIf(!redisUrl)('a Redis outage', () => {
  let proxy: Awaited<ReturnType<typeof startFaultProxy>>;
  let server: TestServer;
  let call: ApiCall;
  let signed: { key: string; signingSecret: string };

  beforeAll(async () => {
    proxy = await startFaultProxy(redisUrl!);
    server = await startTestServer({ seed: true, config: { REDIS_URL: proxy.url } });
    call = apiClient(server.url, (await server.createKey({ plan: 'free' })).key);
    const enterprise = await server.createKey({ plan: 'enterprise', requireSignature: true });
    signed = { key: enterprise.key, signingSecret: enterprise.signingSecret! };
  });
  afterAll(async () => {
    proxy?.restore();
    await server?.close();
    await proxy?.close();
  });

  const signedCall = () =>
    fetch(`${server.url}/api/v1/categories`, {
      headers: { authorization: `Bearer ${signed.key}`, ...signRequest({ signingSecret: signed.signingSecret, method: 'GET', url: '/api/v1/categories' }) },
    });

  it('keeps serving with per-instance rate limits, refuses signed requests (fail closed), and recovers', async () => {
    expect((await signedCall()).status).toBe(200);
    const before = await call('GET', '/api/v1/categories');
    expect(before.status).toBe(200);

    proxy.cut();
    const during = await call('GET', '/api/v1/categories');
    expect(during.status).toBe(200);
    // The in-process insurance limiter counts on: the limit holds per instance.
    expect(during.headers.get('x-ratelimit-limit')).toBe('100');
    expect(Number(during.headers.get('x-ratelimit-remaining'))).toBeLessThan(100);
    const serviceId = await openService(server.prisma);
    const booked = await apiClient(server.url, (await server.createKey()).key)('POST', '/v1/bookings', {
      service_id: serviceId,
      start_time: futureSlot(33),
      customer: { name: 'Outage', email: 'outage@example.com' },
    });
    expect(booked.status).toBe(201);
    const refused = await signedCall();
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ code: 'service_unavailable' });
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);

    proxy.restore();
    await expect.poll(async () => (await signedCall()).status, { timeout: 15_000, interval: 500 }).toBe(200);
  });

  it('keeps a live subscriber through a long outage and streams it what was booked meanwhile', async () => {
    const { key } = await server.createKey();
    const booker = apiClient(server.url, key);
    const serviceId = await openService(server.prisma);
    const book = async (days: number) => {
      const booked = await booker('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(days), customer: { name: 'Live', email: 'live@example.com' } });
      expect(booked.status).toBe(201);
      return booked.body.id as string;
    };
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
    // Books until an event not yet `seen` streams: then the subscriber hears the bus through Redis.
    let day = 60;
    const bookUntilStreamed = async (seen: string[]) => {
      const booked: string[] = [];
      while (!streamed.some((id) => !seen.includes(id))) {
        booked.push(await book(day++));
        await sleep(200);
      }
      return booked;
    };
    const joined = await bookUntilStreamed([]);

    proxy.cut();
    // Once signed requests are refused, the server's Redis clients have seen the cut.
    await expect.poll(async () => (await signedCall()).status).toBe(503);
    const duringOutage = await book(day++);
    // Outlast ioredis's 20 reconnection attempts (about 11 s), after which it rejects queued commands:
    // announcing that booking must not crash the server.
    await sleep(13_000);
    expect((await booker('GET', `/v1/bookings/${duringOutage}`)).status).toBe(200);

    // Pub/sub keeps nothing for a subscriber that was cut off, but the first announcement it hears
    // after the outage makes it read the log past its last event: the missed booking comes first.
    proxy.restore();
    const afterwards = await bookUntilStreamed([...joined, ...streamed]);
    const sinceJoined = streamed.filter((id) => !joined.includes(id));
    expect(sinceJoined).toEqual([duringOutage, ...afterwards].slice(0, sinceJoined.length));
    await subscriber.dispose();
  }, 60_000);
});
