import { connect } from 'node:net';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { apiClient, futureSlot } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { openService } from '../support/bookable.js';

let server: TestServer;

/** A stopped clock: the burst against the rate limit never straddles two minute windows. */
const now = new Date();

beforeAll(async () => {
  server = await startTestServer({ seed: true, clock: () => now });
});
afterAll(() => server?.close());

/** One sample of the exposition: the value of `name` with exactly these labels, 0 when absent. */
async function sample(name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const wanted = Object.entries(labels)
    .map(([label, value]) => `${label}="${value}"`)
    .join(',');
  const prefix = wanted ? `${name}{${wanted}} ` : `${name} `;
  const line = text.split('\n').find((row) => row.startsWith(prefix));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('/metrics', () => {
  it('counts requests by route template and GraphQL operation, with latency', async () => {
    const { key } = await server.createKey();
    const call = apiClient(server.url, key);
    await call('GET', '/v1/bookings/bk_missing');
    await call('GET', '/v1/bookings/bk_other');
    await call('POST', '/graphql', { query: 'query Haunts { categories { edges { node { slug } } } }' });
    expect(await sample('hallowgate_http_requests_total', { route: 'GET /v1/bookings/:id', status_class: '4xx' })).toBe(2);
    expect(await sample('hallowgate_http_requests_total', { route: 'graphql:Haunts', status_class: '2xx' })).toBe(1);
    expect(await sample('hallowgate_http_request_duration_seconds_count', { route: 'graphql:Haunts' })).toBe(1);
  });

  it('counts an event stream its client leaves, which never finishes', async () => {
    const { key } = await server.createKey();
    const serviceId = await openService(server.prisma);
    const day = now.toISOString().slice(0, 10);
    const route = { route: 'GET /v1/services/:id/availability', status_class: '2xx' };
    const before = await sample('hallowgate_http_requests_total', route);
    const leaving = new AbortController();
    const stream = await fetch(`${server.url}/v1/services/${serviceId}/availability?start_date=${day}&end_date=${day}`, {
      signal: leaving.signal,
      headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
    });
    expect(stream.status).toBe(200);
    leaving.abort();
    await expect.poll(() => sample('hallowgate_http_requests_total', route)).toBe(before + 1);
  });

  it('does not count a request its client left before any answer', async () => {
    const { key } = await server.createKey();
    const other = { route: 'other', status_class: '2xx' };
    const before = await sample('hallowgate_http_requests_total', other);
    // A body promised and never sent whole: the server waits for it, and the client leaves.
    const port = Number(new URL(server.url).port);
    await new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(
          `POST /v1/bookings HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"service_id"`,
        );
        setImmediate(() => socket.destroy());
      });
      socket.on('close', () => resolve());
    });
    // A request answered after it, on a connection of its own: the one left before it has been closed by then.
    await apiClient(server.url, key)('GET', '/v1/bookings/bk_after');
    // The scrape that read `before` is an `other` request too; nothing else is.
    expect(await sample('hallowgate_http_requests_total', other)).toBe(before + 1);
  });

  it('counts reads answered from the response cache and reads that ran, per surface', async () => {
    const call = apiClient(server.url, (await server.createKey()).key);
    const counts = async () =>
      Promise.all(
        (['rest', 'graphql'] as const).flatMap((surface) => (['hit', 'miss'] as const).map((outcome) => sample('hallowgate_response_cache_lookups_total', { surface, outcome }))),
      );
    const before = await counts();
    for (let time = 0; time < 3; time++) {
      expect((await call('GET', '/api/v1/categories?limit=3&fields=slug')).status).toBe(200);
      expect((await call('POST', '/graphql', { query: '{ categories(first: 3) { edges { node { name } } } }' })).body.errors).toBeUndefined();
    }
    const after = await counts();
    // Both surfaces keep an answer from the second time it is asked for.
    expect(after.map((count, index) => count - before[index]!)).toEqual([1, 2, 1, 2]);
  });

  it('labels GraphQL requests only by operations that ran, with short names, and stays small whatever names clients send', async () => {
    // Promo keys are not rate limited: hundreds of requests go through.
    const { key } = await server.createKey({ promo: true });
    const call = apiClient(server.url, key);
    const hugeName = 'N'.repeat(900_000);
    // Names of operations that did not run (absent from the document, or the document is refused) are never labels.
    await call('POST', '/graphql', { query: 'query Real { __typename }', operationName: 'Absent' });
    await call('POST', '/graphql', { query: 'query Broken { __typename', operationName: 'Broken' });
    await call('POST', '/graphql', { query: '{ __typename }', operationName: hugeName });
    expect((await call('POST', '/graphql', { query: `query ${hugeName} { __typename }` })).status).toBe(200);
    await call('POST', '/graphql', { query: `query ${'L'.repeat(65)} { __typename }` });
    const text = await (await fetch(`${server.url}/metrics`)).text();
    for (const name of ['Absent', 'Broken', 'Real', 'NNNN', 'L'.repeat(65)]) expect(text).not.toContain(`graphql:${name}`);
    expect(await sample('hallowgate_http_requests_total', { route: 'graphql:other', status_class: '2xx' })).toBeGreaterThanOrEqual(3);

    // Hundreds of distinct names that did run: labels stay bounded, and /metrics small.
    for (let batch = 0; batch < 6; batch++) {
      await Promise.all(Array.from({ length: 50 }, (_, index) => call('POST', '/graphql', { query: `query Junk${batch * 50 + index} { __typename }` })));
    }
    const metrics = await fetch(`${server.url}/metrics`);
    expect(metrics.status).toBe(200);
    const exposition = await metrics.text();
    expect(Buffer.byteLength(exposition)).toBeLessThan(1_000_000);
    const labels = new Set([...exposition.matchAll(/route="(graphql:[^"]*)"/g)].map((match) => match[1]));
    expect(labels.size).toBeLessThanOrEqual(201);
    expect(labels.has('graphql:other')).toBe(true);
    expect([...labels].filter((label) => label?.startsWith('graphql:Junk')).length).toBeGreaterThan(100);
  });

  it('counts rate-limit rejections by plan', async () => {
    const { key } = await server.createKey({ plan: 'free' });
    const call = apiClient(server.url, key);
    const statuses = await Promise.all(Array.from({ length: 103 }, () => call('GET', '/api/v1/categories').then((response) => response.status)));
    expect(statuses.filter((status) => status === 429)).toHaveLength(3);
    expect(await sample('hallowgate_rate_limit_rejections_total', { plan: 'free' })).toBe(3);
  });

  it('gauges open subscriptions and the webhook queue', async () => {
    const { key } = await server.createKey();
    const before = await sample('hallowgate_subscriptions_active');
    const client = createClient({
      url: `${server.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${key}` },
      retryAttempts: 0,
    });
    const stop = client.subscribe({ query: 'subscription { bookingEvents { id } }' }, { next: () => undefined, error: () => undefined, complete: () => undefined });
    await expect.poll(() => sample('hallowgate_subscriptions_active')).toBe(before + 1);
    stop();
    await expect.poll(() => sample('hallowgate_subscriptions_active')).toBe(before);
    await client.dispose();

    const call = apiClient(server.url, key);
    await call('POST', '/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/hooks' });
    await call('POST', '/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/other' });
    const serviceId = await openService(server.prisma);
    const queued = await sample('hallowgate_webhook_queue_depth');
    await call('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(44), customer: { name: 'Queue', email: 'queue@example.com' } });
    expect(await sample('hallowgate_webhook_queue_depth')).toBe(queued + 2);
  });
});
