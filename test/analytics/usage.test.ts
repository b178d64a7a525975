import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxReportedRoutes } from '../../src/analytics/usage.js';
import { apiClient, type ApiCall } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
let keyId: string;
/** The credential of the key whose usage is stored. */
let ownKey: string;
let call: ApiCall;

/** Usage of the key written as flushed buckets: two minutes of one hour, one minute of the next. */
const stored = [
  { minute: '2026-10-31T18:05:00Z', route: 'GET /v1/bookings', statusClass: '2xx', requests: 8, totalLatencyMs: 80, bytes: 8000n },
  { minute: '2026-10-31T18:05:00Z', route: 'GET /v1/bookings', statusClass: '4xx', requests: 2, totalLatencyMs: 10, bytes: 200n },
  { minute: '2026-10-31T18:59:00Z', route: 'graphql:Cats', statusClass: '5xx', requests: 1, totalLatencyMs: 30, bytes: 100n },
  { minute: '2026-10-31T19:00:00Z', route: 'graphql:Cats', statusClass: '2xx', requests: 4, totalLatencyMs: 40, bytes: 400n },
];

beforeAll(async () => {
  server = await startTestServer({ config: { ANALYTICS_ENABLED: false } });
  const created = await server.createKey({ scopes: ['analytics:read'] });
  keyId = created.keyId;
  ownKey = created.key;
  call = apiClient(server.url, created.key);
  await server.prisma.usageBucket.createMany({ data: stored.map((row) => ({ ...row, apiKeyId: keyId, minute: new Date(row.minute) })) });
});
afterAll(() => server?.close());

const usageQuery = `query Usage($from: DateTime!, $to: DateTime!, $granularity: UsageGranularity) {
  viewer { usage(from: $from, to: $to, granularity: $granularity) {
    apiKeyId granularity
    buckets { start requests errors averageLatencyMs bytes }
    routes { route requests errors averageLatencyMs bytes }
  } }
}`;

async function graphql(key: string, query: string, variables: Record<string, unknown>) {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return response.json();
}

describe('Viewer.usage', () => {
  it('sums buckets per hour with errors, mean latency and bytes, and a per-route breakdown', async () => {
    // Another key's usage never shows in this key's report.
    const { key: otherKey } = await server.createKey({ scopes: ['analytics:read'] });
    expect((await graphql(otherKey, usageQuery, { from: '2026-10-31T18:00:00Z', to: '2026-10-31T20:00:00Z' })).data.viewer.usage.buckets[0].requests).toBe(0);

    const result = await graphql(ownKey, usageQuery, { from: '2026-10-31T18:00:00Z', to: '2026-10-31T20:00:00Z', granularity: 'HOUR' });
    expect(result.errors).toBeUndefined();
    expect(result.data.viewer.usage).toEqual({
      apiKeyId: keyId,
      granularity: 'HOUR',
      buckets: [
        { start: '2026-10-31T18:00:00Z', requests: 11, errors: 3, averageLatencyMs: 120 / 11, bytes: 8300 },
        { start: '2026-10-31T19:00:00Z', requests: 4, errors: 0, averageLatencyMs: 10, bytes: 400 },
      ],
      routes: [
        { route: 'GET /v1/bookings', requests: 10, errors: 2, averageLatencyMs: 9, bytes: 8200 },
        { route: 'graphql:Cats', requests: 5, errors: 1, averageLatencyMs: 14, bytes: 500 },
      ],
    });
  });

  it(`lists at most ${maxReportedRoutes} routes, the quietest summed as "other", so many operation names cannot grow the answer`, async () => {
    const { keyId: busyKeyId, key: busyKey } = await server.createKey({ scopes: ['analytics:read'] });
    const names = Array.from({ length: maxReportedRoutes + 50 }, (_, index) => `graphql:Op${index}`);
    // Op0 is the busiest, Op249 the quietest: the last 51 are summed (the 200th place is "other").
    await server.prisma.usageBucket.createMany({
      data: names.map((route, index) => ({
        apiKeyId: busyKeyId,
        minute: new Date('2026-10-31T18:05:00Z'),
        route,
        statusClass: '2xx',
        requests: 1000 - index,
        totalLatencyMs: 0,
        bytes: 1n,
      })),
    });
    const { routes } = (await graphql(busyKey, usageQuery, { from: '2026-10-31T18:00:00Z', to: '2026-10-31T19:00:00Z', granularity: 'HOUR' })).data.viewer.usage;
    expect(routes).toHaveLength(maxReportedRoutes);
    expect(routes.slice(0, 2).map((route: { route: string }) => route.route)).toEqual(['graphql:Op0', 'graphql:Op1']);
    const quietest = names.slice(maxReportedRoutes - 1).map((_, index) => 1000 - (maxReportedRoutes - 1 + index));
    expect(routes.at(-1)).toMatchObject({ route: 'other', requests: quietest.reduce((sum, requests) => sum + requests, 0), bytes: quietest.length });
  });

  it('weighs buckets and routes by how many they can hold: eight reports in one query are refused before anything runs', async () => {
    const reports = (count: number) =>
      `query Many($from: DateTime!, $to: DateTime!) { viewer { ${Array.from({ length: count }, (_, index) => `r${index}: usage(from: $from, to: $to) { buckets { start requests errors averageLatencyMs bytes } routes { route requests errors averageLatencyMs bytes } }`).join(' ')} } }`;
    const variables = { from: '2026-10-31T18:00:00Z', to: '2026-10-31T19:00:00Z' };
    expect((await graphql(ownKey, reports(1), variables)).errors).toBeUndefined();
    expect((await graphql(ownKey, reports(8), variables)).errors[0].extensions.code).toBe('query_too_complex');
  });

  it('includes empty minutes and leaves out usage outside [from, to)', async () => {
    const result = await graphql(ownKey, usageQuery, { from: '2026-10-31T18:58:00Z', to: '2026-10-31T19:00:00Z', granularity: 'MINUTE' });
    expect(result.data.viewer.usage.buckets.map((bucket: { requests: number }) => bucket.requests)).toEqual([0, 1]);
    expect(result.data.viewer.usage.routes).toEqual([{ route: 'graphql:Cats', requests: 1, errors: 1, averageLatencyMs: 30, bytes: 100 }]);
  });

  it('refuses an empty range, too many buckets, and keys without analytics:read', async () => {
    const backwards = await graphql(ownKey, usageQuery, { from: '2026-10-31T19:00:00Z', to: '2026-10-31T18:00:00Z' });
    expect(backwards.errors[0].extensions.code).toBe('invalid_parameter');
    const tooFine = await graphql(ownKey, usageQuery, { from: '2026-10-01T00:00:00Z', to: '2026-11-01T00:00:00Z', granularity: 'MINUTE' });
    expect(tooFine.errors[0].extensions.code).toBe('invalid_parameter');
    const { key: directoryOnly } = await server.createKey({ scopes: ['directory:read'] });
    const refused = await graphql(directoryOnly, usageQuery, { from: '2026-10-31T18:00:00Z', to: '2026-10-31T19:00:00Z' });
    expect(refused.errors[0].extensions.code).toBe('insufficient_scope');
  });
});

describe('GET /v1/usage', () => {
  it('answers the same report in snake_case with a lower-case granularity', async () => {
    const response = await call('GET', '/v1/usage?from=2026-10-31T00:00:00Z&to=2026-11-01T00:00:00Z&granularity=day');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      api_key_id: keyId,
      granularity: 'day',
      buckets: [{ start: '2026-10-31T00:00:00Z', requests: 15, errors: 3, average_latency_ms: 160 / 15, bytes: 8700 }],
      routes: [{ route: 'GET /v1/bookings' }, { route: 'graphql:Cats' }],
    });
  });

  it('answers every period of a range before 1970 too, from the one its start falls in', async () => {
    const response = await call('GET', '/v1/usage?from=1969-12-31T22:30:00Z&to=1970-01-01T01:00:00Z&granularity=hour');
    expect(response.status).toBe(200);
    expect(response.body.buckets.map((bucket: { start: string }) => bucket.start)).toEqual(['1969-12-31T22:00:00Z', '1969-12-31T23:00:00Z', '1970-01-01T00:00:00Z']);
  });

  it('answers 400 for missing or malformed parameters and 403 without the scope', async () => {
    const missing = await call('GET', '/v1/usage?from=2026-10-31T00:00:00Z');
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0].field).toBe('to');
    const badGranularity = await call('GET', '/v1/usage?from=2026-10-31T00:00:00Z&to=2026-11-01T00:00:00Z&granularity=week');
    expect(badGranularity.status).toBe(400);
    expect(badGranularity.body.errors[0].field).toBe('granularity');
    const badTimestamp = await call('GET', '/v1/usage?from=yesterday&to=2026-11-01T00:00:00Z');
    expect(badTimestamp.status).toBe(400);
    expect(badTimestamp.body.errors[0].field).toBe('from');
    const { key } = await server.createKey({ scopes: ['bookings:read'] });
    expect((await apiClient(server.url, key)('GET', '/v1/usage?from=2026-10-31T00:00:00Z&to=2026-11-01T00:00:00Z')).status).toBe(403);
  });
});

describe('operator view', () => {
  it('reads any key’s usage with the admin scope, in GraphQL and REST', async () => {
    const { key: operator } = await server.createKey({ scopes: ['admin'] });
    const query = `query ($keyId: ID!) { apiKeyUsage(keyId: $keyId, from: "2026-10-31T00:00:00Z", to: "2026-11-01T00:00:00Z", granularity: DAY) { buckets { requests } } }`;
    expect((await graphql(operator, query, { keyId })).data.apiKeyUsage.buckets).toEqual([{ requests: 15 }]);
    expect((await graphql(operator, query, { keyId: 'key_unknown' })).errors[0].extensions.code).toBe('not_found');
    expect((await graphql(ownKey, query, { keyId })).errors[0].extensions.code).toBe('insufficient_scope');

    const rest = await apiClient(server.url, operator)('GET', `/v1/admin/api_keys/${keyId}/usage?from=2026-10-31T00:00:00Z&to=2026-11-01T00:00:00Z&granularity=day`);
    expect(rest.status).toBe(200);
    expect(rest.body.buckets[0].requests).toBe(15);
  });
});
