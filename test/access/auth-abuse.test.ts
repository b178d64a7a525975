import { randomBytes } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { createWidgetToken } from '../../src/access/admin.js';
import { forgetCredential } from '../../src/access/credential-cache.js';
import { createApiKey, newApiKeyCredentials } from '../../src/access/keys.js';
import { failedAuthenticationsPerMinute } from '../../src/access/rate-limit.js';
import { createSecretBox, randomSecretsKey } from '../../src/shared/secrets.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { postGraphQL } from './requests.js';

const shop = 'https://shop.example';
const typename = '{ __typename }';

// Half-way through a one-minute window, so every count below stays in one window.
const now = new Date('2026-11-22T12:00:30.000Z');

let server: TestServer;
let statements: string[] = [];

beforeAll(async () => {
  // The test client is the proxy: X-Forwarded-For names the client address each request comes from.
  server = await startTestServer({ clock: () => now, config: { TRUSTED_PROXIES: '127.0.0.1/32, ::1' }, onQuery: (sql) => statements.push(sql) });
});
afterAll(() => server.close());

const credentialTables = /\b(api_keys|widget_tokens)\b/;

/** Credential lookups (SQL statements on the credential tables) while `work` runs. */
async function lookupsDuring(work: () => Promise<unknown>): Promise<number> {
  statements = [];
  await work();
  return statements.filter((sql) => credentialTables.test(sql)).length;
}

/** A client of its own for each use (its own /64, which limits count under): with TEST_REDIS_URL, counters outlive a run. */
const newAddress = () =>
  `2001:db8:${randomBytes(4)
    .toString('hex')
    .replace(/(....)(....)/, '$1:$2')}::1`;

/** Another address of the same client: the next one in its /64. */
const neighbourOf = (address: string, index: number) => address.replace(/::1$/, `::${(index + 2).toString(16)}`);

const unknownKey = () => `key_${randomBytes(8).toString('hex')}.sk_${randomBytes(16).toString('hex')}`;
const unknownWidgetToken = () => `wt_${randomBytes(12).toString('hex')}`;

async function callFrom(address: string, credential: string, headers: Record<string, string> = {}) {
  const response = await postGraphQL(server.url, credential, typename, { headers: { 'x-forwarded-for': address, ...headers } });
  const body = (await response.json()) as { errors?: Array<{ extensions: { code: string } }> };
  return { status: response.status, code: body.errors?.[0]?.extensions.code, headers: response.headers };
}

/**
 * Sends one GraphQL request per credential from `address`, all at once: over connections opened
 * beforehand, so every request reaches the server in the same moment. Their statuses, in order.
 */
async function sendAtOnce(address: string, credentials: string[]): Promise<number[]> {
  const agent = new Agent({ keepAlive: true });
  const send = (method: string, path: string, headers: Record<string, string> = {}, body = '') =>
    new Promise<number>((resolve, reject) => {
      const request = httpRequest(`${server.url}${path}`, { method, agent, headers: { 'x-forwarded-for': address, ...headers } }, (response) => {
        response.resume().on('end', () => resolve(response.statusCode!));
      });
      request.on('error', reject).end(body);
    });
  try {
    await Promise.all(credentials.map(() => send('GET', '/healthz')));
    const body = JSON.stringify({ query: typename });
    return await Promise.all(credentials.map((credential) => send('POST', '/graphql', { authorization: `Bearer ${credential}`, 'content-type': 'application/json' }, body)));
  } finally {
    agent.destroy();
  }
}

describe('failed authentications per client address', () => {
  it(`refuses the ${failedAuthenticationsPerMinute + 1}st failure in a minute with 429 before any lookup, while good keys from that address still work`, async () => {
    const attacker = newAddress();
    const good = await server.createKey();
    expect((await callFrom(attacker, good.key)).status).toBe(200);

    const failures = await Promise.all(Array.from({ length: failedAuthenticationsPerMinute }, () => callFrom(attacker, unknownKey())));
    expect(failures.map((failure) => failure.status)).toEqual(Array(failedAuthenticationsPerMinute).fill(401));
    let refused!: Awaited<ReturnType<typeof callFrom>>;
    const lookups = await lookupsDuring(async () => {
      refused = await callFrom(attacker, unknownKey());
      expect((await callFrom(attacker, unknownWidgetToken(), { origin: shop })).status).toBe(429);
    });
    expect(refused).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(refused.headers.get('retry-after')).toBe('30');
    expect(lookups).toBe(0);

    // Only failures are limited: a key that works is still admitted (looked up again, as when its
    // cache entry has expired, since it is known to exist), and other addresses are untouched.
    forgetCredential(good.keyId);
    expect((await callFrom(attacker, good.key)).status).toBe(200);
    expect((await callFrom(newAddress(), unknownKey())).status).toBe(401);
  });

  it('counts an IPv6 client by its /64: a new address of the same /64 for each guess is refused as one client', async () => {
    const attacker = newAddress();
    const failures = await Promise.all(Array.from({ length: failedAuthenticationsPerMinute }, (_, index) => callFrom(neighbourOf(attacker, index), unknownKey())));
    expect(failures.map((failure) => failure.status)).toEqual(Array(failedAuthenticationsPerMinute).fill(401));
    expect(await callFrom(neighbourOf(attacker, failedAuthenticationsPerMinute), unknownKey())).toMatchObject({ status: 429, code: 'rate_limited' });
    expect((await callFrom(newAddress(), unknownKey())).status).toBe(401);
  });

  it('past the limit of one key id, verifies nothing: its right secret gets the same 429 as wrong guesses', async () => {
    const attacker = newAddress();
    const target = await server.createKey();
    const other = await server.createKey();
    // Both known and cached: a lookup would cost nothing, and yet the target's secret must not be checked.
    expect((await callFrom(attacker, target.key)).status).toBe(200);
    expect((await callFrom(attacker, other.key)).status).toBe(200);
    const wrongSecret = () => `${target.keyId}.sk_${randomBytes(16).toString('hex')}`;
    const failures = await Promise.all(Array.from({ length: failedAuthenticationsPerMinute }, () => callFrom(attacker, wrongSecret())));
    expect(failures.map((failure) => failure.status)).toEqual(Array(failedAuthenticationsPerMinute).fill(401));

    const guesses = [await callFrom(attacker, wrongSecret()), await callFrom(attacker, target.key), await callFrom(attacker, wrongSecret())];
    expect(guesses.map(({ status, code }) => ({ status, code }))).toEqual(Array(3).fill({ status: 429, code: 'rate_limited' }));
    // Another good key from that address, and the same key from another, are unaffected.
    expect((await callFrom(attacker, other.key)).status).toBe(200);
    expect((await callFrom(newAddress(), target.key)).status).toBe(200);
  });

  it('counts a burst of guesses sent at once before it admits the right secret among them: no more verdicts than the limit', async () => {
    const attacker = newAddress();
    const target = await server.createKey();
    // Known and cached, as a key in use is.
    expect((await callFrom(newAddress(), target.key)).status).toBe(200);
    const wrongSecret = () => `${target.keyId}.sk_${randomBytes(16).toString('hex')}`;
    const statuses = await sendAtOnce(attacker, [...Array.from({ length: 120 }, wrongSecret), target.key]);
    expect(statuses.filter((status) => status === 401)).toHaveLength(failedAuthenticationsPerMinute);
    // The right secret came after more guesses than the limit: it is refused as they are.
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.filter((status) => status === 200)).toEqual([]);
  });

  it("past an address's limit, a known key id's wrong secret is 401 as before, not the 429 that would tell it from the right one", async () => {
    const attacker = newAddress();
    const target = await server.createKey();
    expect((await callFrom(attacker, target.key)).status).toBe(200);
    const spent = await Promise.all(Array.from({ length: failedAuthenticationsPerMinute }, () => callFrom(attacker, unknownKey())));
    expect(spent.map((failure) => failure.status)).toEqual(Array(failedAuthenticationsPerMinute).fill(401));
    expect((await callFrom(attacker, unknownKey())).status).toBe(429);

    // The key id's own counter decides: below its limit every wrong secret is 401 and the right one
    // 200; past it, all are 429 alike.
    const wrongSecret = () => `${target.keyId}.sk_${randomBytes(16).toString('hex')}`;
    const guesses = [];
    for (let guess = 0; guess < failedAuthenticationsPerMinute; guess++) guesses.push((await callFrom(attacker, wrongSecret())).status);
    expect(guesses).toEqual(Array(failedAuthenticationsPerMinute).fill(401));
    expect((await callFrom(newAddress(), target.key)).status).toBe(200);
    const past = [await callFrom(attacker, wrongSecret()), await callFrom(attacker, target.key)];
    expect(past.map(({ status, code }) => ({ status, code }))).toEqual(Array(2).fill({ status: 429, code: 'rate_limited' }));
  });

  it('remembers unknown ids, so repeating one costs no lookup after the first, like a known one', async () => {
    const address = newAddress();
    const key = unknownKey();
    const token = unknownWidgetToken();
    const good = await server.createKey();
    expect(await lookupsDuring(() => callFrom(address, key))).toBe(1);
    expect(await lookupsDuring(() => callFrom(address, token, { origin: shop }))).toBe(1);
    expect(await lookupsDuring(() => callFrom(address, good.key))).toBe(1);
    for (let attempt = 0; attempt < 3; attempt++) {
      expect(await lookupsDuring(() => callFrom(address, key))).toBe(0);
      expect(await lookupsDuring(() => callFrom(address, token, { origin: shop }))).toBe(0);
      expect(await lookupsDuring(() => callFrom(address, good.key))).toBe(0);
    }
  });

  it('lets a key created after its id was remembered as unknown work at once', async () => {
    const credentials = newApiKeyCredentials();
    const address = newAddress();
    expect((await callFrom(address, credentials.key)).status).toBe(401);
    const accountId = await server.createAccount();
    await createApiKey(server.prisma, createSecretBox(randomSecretsKey()), { accountId, plan: 'pro', scopes: ['directory:read'] }, credentials);
    expect((await callFrom(address, credentials.key)).status).toBe(200);
  });
});

/** Starts subscriptions one after another on one connection; each gives the error code it ended with. */
async function subscriptionOutcomes(credential: string, address: string, count: number): Promise<string[]> {
  const client = createClient({
    url: `${server.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: class extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols, { headers: { origin: shop, 'x-forwarded-for': address } });
      }
    },
    connectionParams: { authorization: `Bearer ${credential}` },
    retryAttempts: 0,
  });
  const outcomes: string[] = [];
  try {
    for (let index = 0; index < count; index++) {
      outcomes.push(
        await new Promise<string>((resolve) => {
          client.subscribe(
            { query: 'subscription { bookingEvents { id } }' },
            {
              next: (message) => resolve((message.errors?.[0]?.extensions?.['code'] as string | undefined) ?? 'started'),
              error: (error) => resolve(Array.isArray(error) ? ((error[0] as { extensions?: { code?: string } }).extensions?.code ?? 'error') : 'closed'),
              complete: () => resolve('complete'),
            },
          );
        }),
      );
    }
  } finally {
    await client.dispose();
  }
  return outcomes;
}

describe("a widget token's budget per client address", () => {
  it('gives each address a tenth of it, so one client forging Origin cannot spend it for everyone', async () => {
    const accountId = await server.createAccount();
    const token = (await createWidgetToken(server.prisma, { accountId, allowedOrigins: [shop], rateLimitPerMinute: 20 })).id;
    const forger = newAddress();
    expect((await callFrom(forger, token, { origin: shop })).status).toBe(200);
    expect((await callFrom(forger, token, { origin: shop })).status).toBe(200);
    const refused = await callFrom(forger, token, { origin: shop });
    expect(refused).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(refused.headers.get('x-ratelimit-limit')).toBe('2');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('retry-after')).toBe('30');

    const visitor = await callFrom(newAddress(), token, { origin: shop });
    expect(visitor.status).toBe(200);
    // The token's own budget is still counted: two requests of the forger and this one.
    expect(visitor.headers.get('x-ratelimit-limit')).toBe('20');
    expect(visitor.headers.get('x-ratelimit-remaining')).toBe('17');

    // Another address of the forger's /64 is the same client: its share is spent.
    expect(await callFrom(neighbourOf(forger, 0), token, { origin: shop })).toMatchObject({ status: 429, code: 'rate_limited' });
  });

  it('counts WebSocket operations against the same share', { timeout: 10_000 }, async () => {
    const accountId = await server.createAccount();
    const token = (await createWidgetToken(server.prisma, { accountId, allowedOrigins: [shop], rateLimitPerMinute: 20 })).id;
    // The connection takes one request of the share of 2, the first subscribe the other.
    expect(await subscriptionOutcomes(token, newAddress(), 3)).toEqual(['insufficient_scope', 'rate_limited', 'rate_limited']);
    expect((await callFrom(newAddress(), token, { origin: shop })).status).toBe(200);
  });
});

describe('several Authorization headers', () => {
  /** fetch() would fold them into one line; node:http sends each as given. */
  function sendTwice(path: string, authorizations: string[]): Promise<{ status: number; contentType: string; body: string }> {
    return new Promise((resolve, reject) => {
      const request = httpRequest(
        `${server.url}${path}`,
        { headers: ['host', new URL(server.url).host, ...authorizations.flatMap((value) => ['authorization', value]), 'accept', 'application/json'] },
        (response) => {
          let body = '';
          response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
          response.on('end', () => resolve({ status: response.statusCode!, contentType: response.headers['content-type'] ?? '', body }));
        },
      );
      request.on('error', reject).end();
    });
  }

  it('are refused with 400 before either is used, on REST and GraphQL', async () => {
    const good = await server.createKey();
    const lookups = await lookupsDuring(async () => {
      const rest = await sendTwice('/api/v1/categories', [`Bearer ${good.key}`, 'Bearer key_other.sk_another_secret_value']);
      expect(rest).toMatchObject({ status: 400, contentType: 'application/problem+json' });
      expect(JSON.parse(rest.body)).toMatchObject({ code: 'invalid_request', detail: expect.stringContaining('one Authorization header') });
      const graphql = await sendTwice(`/graphql?query=${encodeURIComponent(typename)}`, [`Bearer ${good.key}`, `Bearer ${good.key}`]);
      expect(graphql.status).toBe(400);
      expect(JSON.parse(graphql.body).errors[0].extensions.code).toBe('invalid_request');
    });
    expect(lookups).toBe(0);
  });
});
