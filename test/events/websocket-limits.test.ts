import { createClient, type Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { createWidgetToken } from '../../src/access/admin.js';
import { createApiKey, parseApiKey } from '../../src/access/keys.js';
import { planLimits } from '../../src/access/rate-limit.js';
import { newId } from '../../src/shared/ids.js';
import { everyFiveMinutes } from '../support/bookable.js';
import { loadConfig } from '../../src/config.js';
import { subscriptionLimits } from '../../src/server/subscription-quota.js';
import { createSecretBox } from '../../src/shared/secrets.js';
import { testSecretsKey } from '../support/secrets.js';
import { subscriptionsActive } from '../support/metrics.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { requireService } from '../support/services.js';

const redisUrl = await requireService('redis');

let server: TestServer;
let key: string;
const clients: Client[] = [];

beforeAll(async () => {
  server = await startTestServer();
  // Promo keys are not rate limited, so a thousand subscribes are not refused for that.
  ({ key } = await server.createKey({ scopes: ['bookings:read'], promo: true }));
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.dispose()));
  await server?.close();
});

function connect(url: string, credential = key): Client {
  const client = createClient({
    url: `${url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${credential}` },
    retryAttempts: 0,
    lazy: false,
    // Closed by the server when a test ends: what each test expects of a close, it asserts itself.
    onNonLazyError: () => undefined,
  });
  clients.push(client);
  return client;
}

/**
 * Waits until every socket is acknowledged, before any of them subscribes: on a loaded machine, a
 * socket's connection_init queued behind hundreds of subscriptions could outlast graphql-ws' 3 s wait.
 */
function acknowledged(sockets: Client[]): Promise<unknown> {
  return Promise.all(sockets.map((socket) => new Promise((resolve) => socket.on('connected', resolve))));
}

interface Outcome {
  errors?: { message: string; extensions?: { code?: string } }[];
  data?: unknown;
}

/** Runs a query (or the start of a subscription) and settles with its first answer or its error. */
function firstOutcome(client: Client, query: string, variables?: Record<string, unknown>): Promise<Outcome> {
  return new Promise((resolve) => {
    client.subscribe(
      { query, ...(variables ? { variables } : {}) },
      { next: (result) => resolve(result as Outcome), error: (error) => resolve({ errors: error as Outcome['errors'] }), complete: () => resolve({}) },
    );
  });
}

const subscription = 'subscription { bookingEvents { id } }';

function openServerSentEvents(url: string, credential: string): Promise<Response> {
  return fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query: subscription }),
  });
}

/** Starts `count` subscriptions on `client`; the refused ones are counted in `refusals` as their errors arrive. */
function subscribeMany(client: Client, count: number, refusals: string[]): (() => void)[] {
  return Array.from({ length: count }, () =>
    client.subscribe(
      { query: subscription },
      {
        next: () => undefined,
        error: (error) => refusals.push((error as Outcome['errors'])?.[0]?.extensions?.code ?? 'socket error'),
        complete: () => undefined,
      },
    ),
  );
}

describe('graphql-ws limits', () => {
  it('closes a socket that sends a message over MAX_BODY_BYTES with 1009, reporting no internal error', async () => {
    const consoleError = vi.spyOn(console, 'error');
    try {
      const socket = new WebSocket(`${server.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
      await new Promise((resolve) => socket.once('open', resolve));
      const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
      socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${key}`, padding: 'x'.repeat(3_000_000) } }));
      expect(await closed).toBe(1009);
      // The server handles the message's error before its close frame can arrive, so by now it has said all it would.
      expect(consoleError).not.toHaveBeenCalled();
    } finally {
      consoleError.mockRestore();
    }
  });

  it('refuses a connection without a credential with 4403', async () => {
    const socket = new WebSocket(`${server.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
    await new Promise((resolve) => socket.once('open', resolve));
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    socket.send(JSON.stringify({ type: 'connection_init', payload: {} }));
    expect(await closed).toBe(4403);
  });

  it('closes a connection over its rate limit with 1013, try again later, which clients retry; not 4403, after which they stop for good', async () => {
    // A clock that stays in one minute: the limit's window never turns over during the test.
    const stopped = new Date('2026-11-22T12:00:30.000Z');
    const limiting = await startTestServer({ clock: () => stopped });
    try {
      const { key: limited } = await limiting.createKey({ scopes: ['bookings:read'], plan: 'free' });
      const answers = await Promise.all(
        Array.from({ length: planLimits.free + 1 }, () =>
          fetch(`${limiting.url}/v1/bookings?limit=1`, { headers: { authorization: `Bearer ${limited}` } }).then((response) => response.status),
        ),
      );
      expect(answers).toContain(429);
      const socket = new WebSocket(`${limiting.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
      await new Promise((resolve) => socket.once('open', resolve));
      const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
      socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${limited}` } }));
      expect(await closed).toBe(1013);
    } finally {
      await limiting.close();
    }
  });

  it('answers a syntax error with an error for that operation and keeps the socket', async () => {
    const client = connect(server.url);
    const broken = await firstOutcome(client, '{ __typename');
    // Only the code: how an HTTP request would have been answered is no business of a socket.
    expect(broken.errors?.[0]?.extensions).toEqual({ code: 'invalid_request' });
    expect((await firstOutcome(client, '{ noSuchField }')).errors?.[0]?.extensions).toEqual({ code: 'invalid_request' });
    const deep = await firstOutcome(client, `{ ${'a { '.repeat(5000)}b${' }'.repeat(5000)} }`);
    expect(deep.errors?.[0]?.extensions?.code).toBe('query_too_complex');
    expect(await firstOutcome(client, '{ __typename }')).toEqual({ data: { __typename: 'Query' } });
  });

  it('refuses an argument its checks refuse (a NUL in an id) with an error for that operation: the socket and its subscriptions go on', async () => {
    const { key: reader } = await server.createKey({ scopes: ['bookings:read', 'directory:read'], promo: true });
    const client = connect(server.url, reader);
    const live: string[] = [];
    client.subscribe({ query: subscription }, { next: () => live.push('next'), error: () => live.push('error'), complete: () => live.push('complete') });
    const refusals = [
      await firstOutcome(client, 'subscription { bookingEvents(after: "msg_\\u0000") { id } }'),
      await firstOutcome(client, '{ event(id: "ev_\\u0000") { id } }'),
      await firstOutcome(client, 'query($id: ID!) { event(id: $id) { id } }', { id: 'ev_\u0000' }),
    ];
    for (const refused of refusals) expect(refused, JSON.stringify(refused)).toMatchObject({ errors: [{ extensions: { code: 'invalid_parameter' } }] });
    expect(await firstOutcome(client, '{ __typename }')).toEqual({ data: { __typename: 'Query' } });
    expect(live).toEqual([]);
  });

  it('refuses variables nested past 32 levels with an error for that operation, and keeps the socket', async () => {
    const client = connect(server.url);
    const deep = JSON.parse(`${'['.repeat(1000)}${']'.repeat(1000)}`) as unknown;
    const refused = await firstOutcome(client, '{ __typename }', { deep });
    expect(refused.errors?.[0]?.extensions?.code).toBe('invalid_request');
    expect(await firstOutcome(client, '{ __typename }')).toEqual({ data: { __typename: 'Query' } });
  });

  it(`refuses the subscription past ${subscriptionLimits.perSocket} on one socket, and the socket goes on`, async () => {
    const { key: ownKey } = await server.createKey({ scopes: ['bookings:read'], promo: true });
    const client = connect(server.url, ownKey);
    const refusals: string[] = [];
    const before = await subscriptionsActive(server.url);
    const stops = subscribeMany(client, subscriptionLimits.perSocket + 1, refusals);
    await expect.poll(() => refusals, { timeout: 10_000 }).toEqual(['too_many_subscriptions']);
    await expect.poll(() => subscriptionsActive(server.url), { timeout: 10_000 }).toBe(before + subscriptionLimits.perSocket);
    expect(await firstOutcome(client, '{ __typename }')).toEqual({ data: { __typename: 'Query' } });
    // A completed subscription frees its place on the socket.
    stops[0]!();
    await expect.poll(() => subscriptionsActive(server.url)).toBe(before + subscriptionLimits.perSocket - 1);
    subscribeMany(client, 1, refusals);
    await expect.poll(() => subscriptionsActive(server.url)).toBe(before + subscriptionLimits.perSocket);
    expect(refusals).toEqual(['too_many_subscriptions']);
    await client.dispose();
    await expect.poll(() => subscriptionsActive(server.url)).toBe(before);
  });

  it('ends every stream of a socket that reuses an id while its first operation is still starting, and counts none of them after', async () => {
    const before = await subscriptionsActive(server.url);
    const closes: number[] = [];
    for (let round = 0; round < 4; round++) {
      const socket = new WebSocket(`${server.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
      await new Promise((resolve) => socket.once('open', resolve));
      socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${key}` } }));
      await new Promise<void>((resolve) => socket.on('message', (data) => JSON.parse(String(data)).type === 'connection_ack' && resolve()));
      const subscribe = (id: string) => JSON.stringify({ id, type: 'subscribe', payload: { query: 'subscription { bookingEvents { id } }' } });
      // Sent back to back: the second subscribe of an id comes while the first is still being admitted.
      for (let index = 0; index < 50; index++) {
        const id = `x${index}`;
        socket.send(subscribe(id));
        socket.send(JSON.stringify({ id, type: 'complete' }));
        socket.send(subscribe(id));
      }
      const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
      // What the server answers to the burst has been sent once a ping sent after it is answered.
      socket.send(JSON.stringify({ type: 'ping' }));
      await Promise.race([closed, new Promise((resolve) => socket.on('message', (data) => JSON.parse(String(data)).type === 'pong' && resolve(undefined)))]);
      socket.close();
      closes.push(await closed);
    }
    await expect.poll(() => subscriptionsActive(server.url), { timeout: 10_000 }).toBe(before);
    // The reused id closes the socket, as the protocol closes one that reuses an id in use.
    expect(closes).toEqual([4409, 4409, 4409, 4409]);
  });

  it(`refuses the subscription past ${subscriptionLimits.perCredential} of one key across sockets`, async () => {
    const { key: ownKey } = await server.createKey({ scopes: ['bookings:read'], promo: true });
    const refusals: string[] = [];
    const before = await subscriptionsActive(server.url);
    const sockets = Array.from({ length: subscriptionLimits.perCredential / subscriptionLimits.perSocket }, () => connect(server.url, ownKey));
    await acknowledged(sockets);
    for (const socket of sockets) subscribeMany(socket, subscriptionLimits.perSocket, refusals);
    await expect.poll(() => subscriptionsActive(server.url), { timeout: 30_000 }).toBe(before + subscriptionLimits.perCredential);
    expect(refusals).toEqual([]);
    const extra = connect(server.url, ownKey);
    const refused = await firstOutcome(extra, subscription);
    expect(refused.errors?.[0]?.extensions?.code).toBe('too_many_subscriptions');
    expect(await firstOutcome(extra, '{ __typename }')).toEqual({ data: { __typename: 'Query' } });
    expect(refusals).toEqual([]);
    // SSE subscriptions hold the same credential's places.
    const refusedStream = await openServerSentEvents(server.url, ownKey);
    expect(refusedStream.status).toBe(429);
    expect(await refusedStream.text()).toContain('"code":"too_many_subscriptions"');
    // Closing sockets frees their subscriptions' places.
    await Promise.all(sockets.map((socket) => socket.dispose()));
    await expect.poll(() => subscriptionsActive(server.url), { timeout: 10_000 }).toBe(before);
    subscribeMany(extra, 1, refusals);
    await expect.poll(() => subscriptionsActive(server.url)).toBe(before + 1);
    const stream = await openServerSentEvents(server.url, ownKey);
    expect(stream.status).toBe(200);
    await expect.poll(() => subscriptionsActive(server.url)).toBe(before + 2);
    await stream.body?.cancel();
    await expect.poll(() => subscriptionsActive(server.url)).toBe(before + 1);
    expect(refusals).toEqual([]);
  });
});

describe('the open subscriptions of a widget token', () => {
  const shop = 'https://haunts.example';
  let proxied: TestServer;
  let token: string;
  let serviceId: string;

  beforeAll(async () => {
    // Behind a trusted proxy, so each connection says which visitor it is for.
    proxied = await startTestServer({ config: { TRUSTED_PROXIES: '127.0.0.1' } });
    token = (await createWidgetToken(proxied.prisma, { accountId: await proxied.createAccount(), allowedOrigins: [shop], rateLimitPerMinute: 1_000_000 })).id;
    const attraction = await proxied.prisma.attraction.create({
      data: { id: newId('attraction'), name: 'Quota test', description: 'A test place.', city: 'Nowhere', cityKey: 'nowhere', region: 'XX' },
    });
    serviceId = (await proxied.prisma.service.create({ data: { id: newId('service'), name: 'Entry', attractionId: attraction.id, capacity: 10, ...everyFiveMinutes() } })).id;
  });
  afterAll(() => proxied?.close());

  /** A visitor's page: a socket from its address, as the widget opens one. */
  function visitor(address: string): Client {
    const client = createClient({
      url: `${proxied.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: class extends WebSocket {
        constructor(url: string, protocols?: string | string[]) {
          super(url, protocols, { headers: { origin: shop, 'x-forwarded-for': address } });
        }
      },
      connectionParams: { authorization: `Bearer ${token}` },
      retryAttempts: 0,
      lazy: false,
      // Closed by the server when a test ends: what each test expects of a close, it asserts itself.
      onNonLazyError: () => undefined,
    });
    clients.push(client);
    return client;
  }

  const day = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const live = { query: 'subscription ($id: ID!, $day: Date!) { availabilityChanged(serviceId: $id, startDate: $day, endDate: $day) { startTime remaining } }' };

  it(`are counted per visitor (client address), ${subscriptionLimits.perWidgetVisitor} each, so the visitors of a busy page do not share them`, async () => {
    const variables = { id: serviceId, day };
    const first = visitor('203.0.113.7');
    const refusals: string[] = [];
    for (let index = 0; index < subscriptionLimits.perWidgetVisitor; index++) {
      first.subscribe({ ...live, variables }, { next: () => undefined, error: (error) => refusals.push(JSON.stringify(error)), complete: () => undefined });
    }
    const before = await subscriptionsActive(proxied.url);
    await expect.poll(() => subscriptionsActive(proxied.url), { timeout: 30_000 }).toBeGreaterThanOrEqual(subscriptionLimits.perWidgetVisitor);
    expect(refusals).toEqual([]);
    // The same visitor on a second socket is past its share.
    const again = await firstOutcome(visitor('203.0.113.7'), live.query, variables);
    expect(again.errors?.[0]?.extensions?.code).toBe('too_many_subscriptions');
    expect(again.errors?.[0]?.message).toContain('A visitor of a widget');
    // Another visitor of the same token has a share of its own.
    const other = await firstOutcome(visitor('198.51.100.23'), live.query, variables);
    expect(other.errors).toBeUndefined();
    expect(before).toBeGreaterThanOrEqual(0);
  });
});

describe.skipIf(!redisUrl)('graphql-ws subscription limit across instances sharing Redis', () => {
  let second: TestServer;

  beforeAll(async () => {
    second = await startTestServer({ config: { REDIS_URL: redisUrl! } });
  });
  afterAll(() => second?.close());

  it(`refuses the subscription past ${subscriptionLimits.perCredential} of one key, counted on both instances`, async () => {
    const first = await startTestServer({ config: { REDIS_URL: redisUrl! } });
    try {
      const { key: sharedKey, accountId } = await first.createKey({ scopes: ['bookings:read'], promo: true });
      // The same key in the second instance's database, as if both served one database.
      const { keyId, secret } = parseApiKey(sharedKey)!;
      await second.prisma.account.create({ data: { id: accountId, name: 'Shared' } });
      await createApiKey(
        second.prisma,
        createSecretBox(loadConfig({ SECRETS_KEY: testSecretsKey }).SECRETS_KEY!),
        { accountId, plan: 'business', scopes: ['bookings:read'], promo: true },
        { keyId, secret, key: sharedKey },
      );

      const refusals: string[] = [];
      const half = subscriptionLimits.perCredential / subscriptionLimits.perSocket / 2;
      const sockets = [first.url, second.url].flatMap((url) => Array.from({ length: half }, () => connect(url, sharedKey)));
      await acknowledged(sockets);
      for (const socket of sockets) subscribeMany(socket, subscriptionLimits.perSocket, refusals);
      await expect.poll(async () => (await subscriptionsActive(first.url)) + (await subscriptionsActive(second.url)), { timeout: 30_000 }).toBe(subscriptionLimits.perCredential);
      for (const url of [first.url, second.url]) {
        const refused = await firstOutcome(connect(url, sharedKey), subscription);
        expect(refused.errors?.[0]?.extensions?.code).toBe('too_many_subscriptions');
      }
      expect(refusals).toEqual([]);
    } finally {
      await Promise.all(clients.splice(0).map((client) => client.dispose()));
      await first.close();
    }
  });
});
