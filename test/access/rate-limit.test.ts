import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client as WebSocketClient } from 'graphql-ws';
import { startTestServer, type TestServer } from '../support/server.js';
import { graphqlWsClient } from '../support/websocket.js';
import { bearer, burst, postGraphQL } from './requests.js';

// 12:00:30 UTC: half-way through a one-minute window, which ends at 12:01:00.
let now = new Date('2026-11-22T12:00:30.000Z');
const windowEnd = Date.parse('2026-11-22T12:01:00.000Z') / 1000;

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ clock: () => now });
});
afterAll(() => server.close());

const typename = '{ __typename }';

describe('rate limits per key per minute', () => {
  it('sends X-RateLimit-Limit/Remaining/Reset on authenticated GraphQL and REST responses, with Reset at the end of the minute', async () => {
    const { key } = await server.createKey({ plan: 'pro' });
    const graphql = await postGraphQL(server.url, key, typename);
    expect(graphql.status).toBe(200);
    expect(graphql.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(graphql.headers.get('x-ratelimit-remaining')).toBe('999');
    expect(graphql.headers.get('x-ratelimit-reset')).toBe(String(windowEnd));

    // A REST answer of any status after admission (here a 404 for an unknown route) carries them too.
    const rest = await fetch(`${server.url}/v1/no_such_route`, { headers: bearer(key) });
    expect(rest.status).toBe(404);
    expect(rest.headers.get('x-ratelimit-remaining')).toBe('998');
    expect(rest.headers.get('x-ratelimit-reset')).toBe(String(windowEnd));

    const directory = await fetch(`${server.url}/api/v1/no_such_route`, { headers: bearer(key) });
    expect(directory.headers.get('x-ratelimit-remaining')).toBe('997');
  });

  it('gives each plan its limit', async () => {
    const expected = { free: '100', pro: '1000', business: '10000', enterprise: '10000' } as const;
    for (const [plan, limit] of Object.entries(expected)) {
      const { key } = await server.createKey({ plan: plan as keyof typeof expected });
      const response = await postGraphQL(server.url, key, typename);
      expect(response.headers.get('x-ratelimit-limit'), plan).toBe(limit);
    }
  });

  it('rejects exactly the requests over the limit when N+10 arrive at once, with 429 problem+json and Retry-After', async () => {
    const { key } = await server.createKey({ plan: 'free' });
    const statuses = await burst(110, () => postGraphQL(server.url, key, typename));
    expect(Object.fromEntries(statuses)).toEqual({ 200: 100, 429: 10 });

    const refused = await fetch(`${server.url}/v1/no_such_route`, { headers: bearer(key) });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect(refused.headers.get('retry-after')).toBe('30');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('x-ratelimit-reset')).toBe(String(windowEnd));
    expect(await refused.json()).toMatchObject({ status: 429, code: 'rate_limited' });

    const overGraphQL = await postGraphQL(server.url, key, typename);
    expect(overGraphQL.status).toBe(429);
    expect((await overGraphQL.json()).errors[0].extensions.code).toBe('rate_limited');
  });

  it('starts a fresh budget in the next minute', async () => {
    const { key } = await server.createKey({ plan: 'free' });
    expect(Object.fromEntries(await burst(101, () => postGraphQL(server.url, key, typename)))).toEqual({ 200: 100, 429: 1 });
    now = new Date('2026-11-22T12:01:00.000Z');
    try {
      const response = await postGraphQL(server.url, key, typename);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-ratelimit-remaining')).toBe('99');
      expect(response.headers.get('x-ratelimit-reset')).toBe(String(windowEnd + 60));
    } finally {
      now = new Date('2026-11-22T12:00:30.000Z');
    }
  });

  it('counts keys separately', async () => {
    const first = await server.createKey({ plan: 'free' });
    const second = await server.createKey({ plan: 'free', accountId: first.accountId });
    await burst(100, () => postGraphQL(server.url, first.key, typename));
    expect((await postGraphQL(server.url, first.key, typename)).status).toBe(429);
    expect((await postGraphQL(server.url, second.key, typename)).status).toBe(200);
  });

  it('leaves anonymous requests without rate-limit headers', async () => {
    const response = await postGraphQL(server.url, null, typename);
    expect(response.headers.get('x-ratelimit-limit')).toBeNull();
  });
});

describe('rate limits over WebSocket', () => {
  const connect = (key: string): WebSocketClient => graphqlWsClient(server.url, key);

  function execute(client: WebSocketClient, query: string): Promise<{ data?: unknown; errors?: Array<{ extensions?: { code?: string } }> }> {
    return new Promise((resolve) => {
      let result: { data?: unknown; errors?: Array<{ extensions?: { code?: string } }> } = {};
      client.subscribe(
        { query },
        {
          next: (value) => (result = value as typeof result),
          error: (errors) => resolve({ errors: errors as typeof result.errors }),
          complete: () => resolve(result),
        },
      );
    });
  }

  it('counts connection_init and every operation on the socket against the same budget', async () => {
    const { key } = await server.createKey({ plan: 'free' });
    const client = connect(key);
    try {
      // connection_init takes 1 of the 100; 99 operations fit, the 100th is refused.
      const results = await Promise.all(Array.from({ length: 100 }, () => execute(client, typename)));
      const refused = results.filter((result) => result.errors?.[0]?.extensions?.code === 'rate_limited');
      expect(refused).toHaveLength(1);
      expect(results.filter((result) => result.data)).toHaveLength(99);
      expect((await postGraphQL(server.url, key, typename)).status).toBe(429);
    } finally {
      await client.dispose();
    }
  });
});
