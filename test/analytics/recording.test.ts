import { createClient } from 'graphql-ws';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxOperationRoutesPerKeyMinute } from '../../src/analytics/recorder.js';
import type { PrismaClient } from '../../src/generated/prisma/client.js';
import { openService } from '../support/bookable.js';
import { apiClient } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** Every request of these tests falls in this minute. */
const now = new Date('2026-10-31T18:30:20Z');
const minute = new Date('2026-10-31T18:30:00Z');

async function bucketsOf(prisma: PrismaClient, apiKeyId: string) {
  const rows = await prisma.usageBucket.findMany({ where: { apiKeyId }, orderBy: [{ route: 'asc' }, { statusClass: 'asc' }] });
  return rows.map((row) => ({ minute: row.minute, route: row.route, statusClass: row.statusClass, requests: row.requests, bytes: Number(row.bytes) }));
}

/** Waits for the periodic flush to have written `requests` requests of the key (polling; no timing asserted). */
async function flushedRequests(prisma: PrismaClient, apiKeyId: string, requests: number) {
  for (;;) {
    const total = await prisma.usageBucket.aggregate({ where: { apiKeyId }, _sum: { requests: true } });
    if ((total._sum.requests ?? 0) >= requests) return bucketsOf(prisma, apiKeyId);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function postGraphQL(url: string, key: string, body: unknown) {
  return fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('usage recording with periodic flushes', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ seed: true, clock: () => now, config: { ANALYTICS_FLUSH_MS: 50 } });
  });
  afterAll(() => server?.close());

  it('aggregates REST requests per route template and status class', async () => {
    const { key, keyId } = await server.createKey();
    const call = apiClient(server.url, key);
    for (let index = 0; index < 3; index++) expect((await call('GET', '/api/v1/categories')).status).toBe(200);
    expect((await call('GET', '/v1/bookings/bk_missing')).status).toBe(404);
    expect((await call('GET', '/v1/nowhere')).status).toBe(404);

    const buckets = await flushedRequests(server.prisma, keyId, 5);
    expect(buckets.map(({ route, statusClass, requests }) => ({ route, statusClass, requests }))).toEqual([
      { route: 'GET /api/v1/categories', statusClass: '2xx', requests: 3 },
      { route: 'GET /v1/bookings/:id', statusClass: '4xx', requests: 1 },
      { route: 'unmatched', statusClass: '4xx', requests: 1 },
    ]);
    expect(buckets.every((bucket) => bucket.minute.getTime() === minute.getTime())).toBe(true);
    expect(buckets[0]!.bytes).toBeGreaterThan(0);
  });

  it('counts the requests of a verified key that the gate refuses (its address not allowed), REST, GraphQL and graphql-ws', async () => {
    const { key, keyId } = await server.createKey({ ipAllowlist: ['203.0.113.0/24'] });
    expect((await apiClient(server.url, key)('GET', '/api/v1/categories')).status).toBe(403);
    expect((await postGraphQL(server.url, key, { query: '{ __typename }' })).status).toBe(403);
    const socket = createClient({
      url: `${server.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${key}` },
      lazy: false,
      onNonLazyError: () => undefined,
      retryAttempts: 0,
    });
    const closed = await new Promise<CloseEvent>((resolve) => socket.on('closed', (event) => resolve(event as CloseEvent)));
    expect(closed.code).toBe(4403);
    await socket.dispose();
    // A key that is not one is nobody's usage.
    expect((await apiClient(server.url, `${key}x`)('GET', '/api/v1/categories')).status).toBe(401);

    const buckets = await flushedRequests(server.prisma, keyId, 3);
    expect(buckets.map(({ route, statusClass, requests }) => ({ route, statusClass, requests }))).toEqual([
      { route: 'GET /api/v1/categories', statusClass: '4xx', requests: 1 },
      { route: 'graphql:other', statusClass: '4xx', requests: 2 },
    ]);
  });

  it('names GraphQL requests by operation and adds later flushes to the same bucket', async () => {
    const { key, keyId } = await server.createKey();
    expect((await postGraphQL(server.url, key, { query: 'query Cats { categories(first: 1) { edges { node { slug } } } }' })).status).toBe(200);
    await flushedRequests(server.prisma, keyId, 1);
    await postGraphQL(server.url, key, { query: 'query A { viewer { accountId } } query B { viewer { scopes } }', operationName: 'B' });
    await postGraphQL(server.url, key, { query: '{ viewer { accountId } }' });
    await fetch(`${server.url}/graphql?query=${encodeURIComponent('query Cats { __typename }')}`, { headers: { authorization: `Bearer ${key}` } });

    const buckets = await flushedRequests(server.prisma, keyId, 4);
    expect(buckets.map(({ route, requests }) => ({ route, requests }))).toEqual([
      { route: 'graphql:B', requests: 1 },
      { route: 'graphql:Cats', requests: 2 },
      { route: 'graphql:other', requests: 1 },
    ]);
  });

  it(`counts a key under at most ${maxOperationRoutesPerKeyMinute} operations a minute, the rest as graphql:other, losing no request`, async () => {
    const { key, keyId } = await server.createKey({ scopes: ['analytics:read'] });
    const names = Array.from({ length: 300 }, (_, index) => `Op${index}`);
    for (const name of names) expect((await postGraphQL(server.url, key, { query: `query ${name} { __typename }` })).status).toBe(200);
    await flushedRequests(server.prisma, keyId, names.length);

    const usage = await apiClient(server.url, key)('GET', `/v1/usage?from=${minute.toISOString()}&to=${new Date(minute.getTime() + 60_000).toISOString()}&granularity=minute`);
    expect(usage.status).toBe(200);
    const operations = (usage.body.routes as { route: string; requests: number }[]).filter((row) => row.route.startsWith('graphql:'));
    expect(operations).toHaveLength(maxOperationRoutesPerKeyMinute + 1);
    expect(operations.find((row) => row.route === 'graphql:other')?.requests).toBe(names.length - maxOperationRoutesPerKeyMinute);
    expect(operations.reduce((sum, row) => sum + row.requests, 0)).toBe(names.length);
    expect(usage.body.buckets[0].requests).toBe(names.length);
  });

  it('counts each subscription started over graphql-ws', async () => {
    const { key, keyId } = await server.createKey();
    const client = createClient({
      url: `${server.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${key}` },
      retryAttempts: 0,
    });
    try {
      await new Promise<void>((resolve, reject) => {
        client.subscribe({ query: 'query Typename { __typename }' }, { next: () => undefined, error: reject, complete: resolve });
      });
    } finally {
      await client.dispose();
    }
    expect(await flushedRequests(server.prisma, keyId, 1)).toMatchObject([{ route: 'graphql:Typename', statusClass: '2xx', requests: 1 }]);
  });

  it('counts an event stream its client leaves: a GraphQL subscription over SSE and the availability stream', async () => {
    const { key, keyId } = await server.createKey();
    const serviceId = await openService(server.prisma);
    const day = now.toISOString().slice(0, 10);
    /** Opens the stream, and leaves once it has started, as a closed tab does. */
    const leaveOnceStarted = async (path: string, init: RequestInit = {}) => {
      const leaving = new AbortController();
      const response = await fetch(`${server.url}${path}`, {
        ...init,
        signal: leaving.signal,
        headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream', ...(init.headers as Record<string, string>) },
      });
      expect(response.status).toBe(200);
      leaving.abort();
    };
    const subscription = `subscription Slots { availabilityChanged(serviceId: "${serviceId}", startDate: "${day}", endDate: "${day}") { remaining } }`;
    await leaveOnceStarted('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: subscription }) });
    await leaveOnceStarted(`/v1/services/${serviceId}/availability?start_date=${day}&end_date=${day}`);
    expect(await flushedRequests(server.prisma, keyId, 2)).toMatchObject([
      { route: 'GET /v1/services/:id/availability', statusClass: '2xx', requests: 1 },
      { route: 'graphql:Slots', statusClass: '2xx', requests: 1 },
    ]);
  });
});

describe('usage recording on shutdown', () => {
  it('flushes what is still in memory when the app closes', async () => {
    // A flush interval far longer than the test: only the shutdown flush can write these.
    const server = await startTestServer({ clock: () => now, config: { ANALYTICS_FLUSH_MS: 600_000 } });
    try {
      const { key, keyId } = await server.createKey();
      const call = apiClient(server.url, key);
      await Promise.all(Array.from({ length: 25 }, () => call('GET', '/api/v1/categories')));
      expect(await server.prisma.usageBucket.count({ where: { apiKeyId: keyId } })).toBe(0);
      await server.app.close();
      expect(await bucketsOf(server.prisma, keyId)).toMatchObject([{ route: 'GET /api/v1/categories', statusClass: '2xx', requests: 25 }]);
    } finally {
      await server.database.close();
    }
  });

  it('adds the buckets of two instances sharing one database into the same rows', async () => {
    const first = await startTestServer({ clock: () => now, config: { ANALYTICS_FLUSH_MS: 600_000 } });
    const second = first.sibling(() => now);
    try {
      const secondUrl = await second.listen(0, '127.0.0.1');
      const { key, keyId } = await first.createKey();
      await Promise.all([
        ...Array.from({ length: 7 }, () => apiClient(first.url, key)('GET', '/api/v1/categories')),
        ...Array.from({ length: 5 }, () => apiClient(secondUrl, key)('GET', '/api/v1/categories')),
      ]);
      await second.close();
      await first.app.close();
      expect(await bucketsOf(first.prisma, keyId)).toMatchObject([{ route: 'GET /api/v1/categories', statusClass: '2xx', requests: 12 }]);
    } finally {
      await first.database.close();
    }
  });

  it('records nothing when analytics are turned off', async () => {
    const server = await startTestServer({ config: { ANALYTICS_ENABLED: false } });
    try {
      const { key } = await server.createKey();
      await apiClient(server.url, key)('GET', '/api/v1/categories');
      await server.app.close();
      expect(await server.prisma.usageBucket.count()).toBe(0);
    } finally {
      await server.database.close();
    }
  });
});
