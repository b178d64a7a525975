import type { Socket } from 'node:net';
import type { Client } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runningPerSocket, waitingPerSocket } from '../../src/server/websocket.js';
import { openService } from '../support/bookable.js';
import { futureSlot } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { requireService } from '../support/services.js';
import { graphqlWsClient } from '../support/websocket.js';
import { startFaultProxy, type FaultProxy } from './proxy.js';

const postgresUrl = await requireService('postgres');
const redisUrl = await requireService('redis');
/** The pool: the instance runs two operations fewer at once (src/app.ts), one more than a socket may. */
const poolSize = runningPerSocket + 3;

/**
 * A proxy in front of PostgreSQL that, while holding, keeps back every answer to a session once it
 * has sent a read of places (the availability's named statement): those reads hang as on a slow
 * database, and every other session works.
 */
async function startPlacesHoldingProxy() {
  const held = new Set<Socket>();
  let holding = false;
  let readsSent = 0;
  const proxy = await startFaultProxy(postgresUrl!, (client) => {
    client.on('data', (chunk: Buffer) => {
      if (!chunk.includes('hallowgate_places_taken')) return;
      readsSent++;
      if (!holding || held.has(client)) return;
      client.cork();
      held.add(client);
    });
  });
  return {
    proxy,
    /** Reads of places sent to PostgreSQL so far (a session sends one at a time, each in one write). */
    get readsSent() {
      return readsSent;
    },
    hold() {
      holding = true;
    },
    release() {
      holding = false;
      for (const socket of held) socket.uncork();
      held.clear();
    },
    /** Lets one session's held answer through; the session is held again at its next read of places. */
    releaseOne() {
      const [socket] = held;
      held.delete(socket!);
      socket!.uncork();
    },
  };
}

/** A gauge of operations by state (hallowgate_operations, hallowgate_websocket_operations), as /metrics shows it now. */
async function operationsGauge(baseUrl: string, name: string): Promise<{ running: number; waiting: number }> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const read = (state: string) => Number(new RegExp(`^${name}\\{state="${state}"\\} (\\S+)$`, 'm').exec(text)?.[1]);
  return { running: read('running'), waiting: read('waiting') };
}
const socketOperations = (baseUrl: string) => operationsGauge(baseUrl, 'hallowgate_websocket_operations');

const bookingMutation = `mutation Book($input: CreateBookingInput!) { createBooking(input: $input) { booking { id } } }`;

const availabilityQuery = `query Places($id: ID!, $startDate: Date!, $endDate: Date!) {
  service(id: $id) { availability(startDate: $startDate, endDate: $endDate) { startTime remaining } }
}`;

/**
 * One graphql-ws socket that starts many queries at once runs a few of them at a time and queues the
 * rest, so it cannot take every database connection of the instance from other clients; and the
 * instance's queries and mutations, over every transport, take turns round the keys once the pool
 * is busy (src/graphql/fair-turns.ts). The database is made slow by holding the answers to reads of
 * places, as long as a test says.
 */
describe.skipIf(!postgresUrl)('operations taking turns while the database is slow', () => {
  let holding: Awaited<ReturnType<typeof startPlacesHoldingProxy>>;
  let proxy: FaultProxy;
  let server: TestServer;
  let key: string;
  let serviceId: string;
  let socket: Client | undefined;

  beforeAll(async () => {
    holding = await startPlacesHoldingProxy();
    proxy = holding.proxy;
    server = await startTestServer({
      seed: true,
      postgresUrl: proxy.url,
      config: { DATABASE_POOL_SIZE: poolSize, DATABASE_CONNECT_TIMEOUT_MS: 3000, DATABASE_STATEMENT_TIMEOUT_MS: 30_000, REDIS_URL: undefined },
    });
    ({ key } = await server.createKey({ scopes: ['bookings:read'], promo: true }));
    serviceId = await openService(server.prisma);
  });
  afterEach(async () => {
    holding.release();
    await socket?.dispose();
    socket = undefined;
  });
  afterAll(async () => {
    holding?.release();
    await server?.close();
    await proxy?.close();
  });

  const connect = () => graphqlWsClient(server.url, key, { onNonLazyError: () => undefined });

  /** An operation started on a socket: its answer once settled, and how to complete (cancel) it before. */
  interface Read {
    answer: Promise<{ data?: unknown; errors?: unknown }>;
    complete(): void;
  }

  /** Days read so far: each read is of a day of its own, so none is answered from the response cache. */
  let daysRead = 0;
  /** The variables of a read of places of the next day not read yet. */
  const nextRead = () => {
    const day = futureSlot(++daysRead).slice(0, 10);
    return { id: serviceId, startDate: day, endDate: day };
  };

  /** Starts an operation on the socket. */
  function start(client: Client, payload: { query: string; variables: Record<string, unknown> }): Read {
    let complete = () => undefined as void;
    const answer = new Promise<{ data?: unknown; errors?: unknown }>((resolve) => {
      let answer: { data?: unknown; errors?: unknown } = {};
      complete = client.subscribe(payload, {
        next: (value) => void (answer = value as typeof answer),
        error: (error) => resolve({ errors: error }),
        complete: () => resolve(answer),
      });
    });
    return { answer, complete };
  }

  /** Starts `count` reads of places on the socket, each of a day of its own. */
  function startReads(client: Client, count: number): Read[] {
    return Array.from({ length: count }, () => start(client, { query: availabilityQuery, variables: nextRead() }));
  }

  /** Starts `count` bookings on the socket for `customerName`, each of a slot of its own. */
  function startBookings(client: Client, count: number, customerName: string): Read[] {
    return Array.from({ length: count }, (_, index) =>
      start(client, {
        query: bookingMutation,
        variables: { input: { serviceId, startTime: futureSlot(3, 10 + index), partySize: 1, customer: { name: customerName, email: 'turns@example.com' } } },
      }),
    );
  }

  const turns = poolSize - 2;
  const operations = () => operationsGauge(server.url, 'hallowgate_operations');

  async function post(credential: string, query: string, variables?: Record<string, unknown>) {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await response.json()) as { data?: unknown; errors?: unknown };
    return { ...body, status: response.status, retryAfter: response.headers.get('retry-after') };
  }

  /** Sends `count` reads of places of the key's at once over HTTP, each of a day of its own. */
  function readsOverHttp(count: number) {
    return Array.from({ length: count }, () => post(key, availabilityQuery, nextRead()));
  }

  it(`runs ${runningPerSocket} at a time: another client still gets a database connection, and every query is answered in the end`, async () => {
    holding.hold();
    socket = connect();
    const reads = startReads(socket, 20);
    await expect.poll(() => socketOperations(server.url), { timeout: 10_000 }).toEqual({ running: runningPerSocket, waiting: 20 - runningPerSocket });

    // A turn and the pool's connections the socket's held reads do not take: another client is served.
    const other = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: `query { service(id: "${serviceId}") { id capacity } }` }),
    });
    expect(other.status).toBe(200);
    expect(await other.json()).toEqual({ data: { service: { id: serviceId, capacity: 1000 } } });

    holding.release();
    const settled = await Promise.all(reads.map((read) => read.answer));
    for (const answer of settled) {
      expect(answer.errors).toBeUndefined();
      expect((answer.data as { service: { availability: unknown[] } }).service.availability.length).toBeGreaterThan(0);
    }
    expect(await socketOperations(server.url)).toEqual({ running: 0, waiting: 0 });
  });

  it('runs nothing of what still waits once the socket closes', async () => {
    holding.hold();
    socket = connect();
    void startReads(socket, 20);
    await expect.poll(() => socketOperations(server.url), { timeout: 10_000 }).toEqual({ running: runningPerSocket, waiting: 20 - runningPerSocket });
    const readsBefore = holding.readsSent;

    await socket.dispose();
    socket = undefined;
    await expect.poll(() => socketOperations(server.url), { timeout: 10_000 }).toEqual({ running: runningPerSocket, waiting: 0 });
    holding.release();
    await expect.poll(() => socketOperations(server.url), { timeout: 10_000 }).toEqual({ running: 0, waiting: 0 });
    // The reads that waited never reached the database, before or after the running ones ended.
    expect(holding.readsSent).toBe(readsBefore);
  });

  it('runs nothing of what waits once its client completes it, and answers the rest', async () => {
    holding.hold();
    socket = connect();
    const reads = startReads(socket, 20);
    await expect.poll(() => socketOperations(server.url), { timeout: 10_000 }).toEqual({ running: runningPerSocket, waiting: 20 - runningPerSocket });
    const readsBefore = holding.readsSent;
    const [kept, cancelled] = [reads.slice(0, 14), reads.slice(14)];
    for (const read of cancelled) read.complete();

    holding.release();
    for (const { answer } of kept) expect((await answer).errors).toBeUndefined();
    await expect.poll(() => socketOperations(server.url), { timeout: 10_000 }).toEqual({ running: 0, waiting: 0 });
    // The eight that waited and were kept went to the database; the six completed did not.
    expect(holding.readsSent - readsBefore).toBe(14 - runningPerSocket);
  });

  it('serves another key its turn among the many operations one key sent at once over HTTP', async () => {
    const other = (await server.createKey({ scopes: ['bookings:read'], promo: true })).key;
    // Its key is read from the database once, now, not while the database is held.
    expect(await post(other, `query { service(id: "${serviceId}") { id } }`)).toMatchObject({ status: 200, data: { service: { id: serviceId } } });

    holding.hold();
    const many = readsOverHttp(20);
    await expect.poll(operations, { timeout: 10_000 }).toEqual({ running: turns, waiting: 20 - turns });
    const theirs = post(other, `query { service(id: "${serviceId}") { id capacity } }`);
    await expect.poll(operations, { timeout: 10_000 }).toEqual({ running: turns, waiting: 20 - turns + 1 });

    // One read ends: the first key, served first, takes the turn (its next read is held in turn).
    holding.releaseOne();
    await expect.poll(operations, { timeout: 10_000 }).toEqual({ running: turns, waiting: 20 - turns });
    // Another ends: the turn is the other key's, ahead of the first key's twelve still waiting.
    holding.releaseOne();
    expect(await theirs).toMatchObject({ status: 200, data: { service: { id: serviceId, capacity: 1000 } } });
    await expect.poll(operations, { timeout: 10_000 }).toEqual({ running: turns, waiting: 20 - turns - 2 });

    holding.release();
    for (const answer of await Promise.all(many)) expect(answer.errors).toBeUndefined();
    await expect.poll(operations, { timeout: 10_000 }).toEqual({ running: 0, waiting: 0 });
  });

  it('refuses an operation that waited for its turn as long as for a connection of the pool, as the pool would', async () => {
    holding.hold();
    const reads = readsOverHttp(turns + 1);
    await expect.poll(operations, { timeout: 10_000 }).toEqual({ running: turns, waiting: 1 });
    // The wait is the pool's (DATABASE_CONNECT_TIMEOUT_MS, 3 s here); nothing of the one that waited ran.
    await expect.poll(operations, { timeout: 10_000 }).toEqual({ running: turns, waiting: 0 });
    holding.release();
    const answers = await Promise.all(reads);
    const refused = answers.filter((answer) => answer.status === 503);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.retryAfter).toBe('5');
    // Said as what it is: this instance had no turn free, not a database that is down.
    expect(refused[0]!.errors).toMatchObject([
      { message: expect.stringMatching(/^This instance is busy: the request waited \d+ ms for its turn/), extensions: { code: 'service_unavailable' } },
    ]);
    expect(answers.filter((answer) => answer.status === 200 && !answer.errors)).toHaveLength(turns);
  });

  it('runs nothing of what waits once its key is revoked, though the client never answers the close', async () => {
    const { key: writer, keyId } = await server.createKey({ scopes: ['bookings:read', 'bookings:write'], promo: true });
    const admin = (await server.createKey({ scopes: ['admin'] })).key;
    // The client reaches the server through a link that can freeze: then it hears nothing, the close included.
    const link = await startFaultProxy(server.url);
    const client = graphqlWsClient(link.url.replace(/\/$/, ''), writer, { onNonLazyError: () => undefined });
    try {
      holding.hold();
      startReads(client, runningPerSocket);
      await expect.poll(() => socketOperations(server.url), { timeout: 10_000 }).toEqual({ running: runningPerSocket, waiting: 0 });
      startBookings(client, 10, 'Revoked while waiting');
      await expect.poll(() => socketOperations(server.url), { timeout: 10_000 }).toEqual({ running: runningPerSocket, waiting: 10 });

      link.freeze();
      const revoked = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'mutation ($id: ID!) { revokeApiKey(id: $id) { revokedAt } }', variables: { id: keyId } }),
      });
      expect(revoked.status).toBe(200);
      // At once, not when the close handshake ends (which the frozen client never answers).
      await expect.poll(() => socketOperations(server.url), { timeout: 5000 }).toEqual({ running: runningPerSocket, waiting: 0 });
      holding.release();
      await expect.poll(() => socketOperations(server.url), { timeout: 10_000 }).toEqual({ running: 0, waiting: 0 });
      expect(await server.prisma.booking.count({ where: { customerName: 'Revoked while waiting' } })).toBe(0);
    } finally {
      link.cut();
      await client.dispose();
      await link.close();
    }
  });

  it(`refuses what a socket sends past ${waitingPerSocket.operations} operations waiting, and answers the rest`, async () => {
    holding.hold();
    socket = connect();
    const reads = startReads(socket, runningPerSocket + waitingPerSocket.operations + 3);
    await expect.poll(() => socketOperations(server.url), { timeout: 10_000 }).toEqual({ running: runningPerSocket, waiting: waitingPerSocket.operations });
    holding.release();
    const answers = await Promise.all(reads.map((read) => read.answer));
    const refused = answers.filter((answer) => answer.errors);
    expect(refused).toHaveLength(3);
    expect(refused[0]!.errors).toMatchObject([{ extensions: { code: 'rate_limited' } }]);
    expect(answers.filter((answer) => answer.data)).toHaveLength(runningPerSocket + waitingPerSocket.operations);
  });
});

describe.skipIf(!redisUrl)('a socket that closes while its operations are being admitted', () => {
  let redisLink: FaultProxy;
  let server: TestServer;

  beforeAll(async () => {
    redisLink = await startFaultProxy(redisUrl!);
    server = await startTestServer({ seed: true, config: { REDIS_URL: redisLink.url, REDIS_COMMAND_TIMEOUT_MS: 300, ANALYTICS_FLUSH_MS: 100 } });
  });
  afterAll(async () => {
    await server?.close();
    await redisLink?.close();
  });

  it('runs none of them once admitted', async () => {
    // Not a promo key: each operation's admission counts it against the key's rate, in Redis.
    const { key, keyId } = await server.createKey({ scopes: ['bookings:read', 'bookings:write'] });
    const serviceId = await openService(server.prisma);
    // graphql-ws' own client sends a subscribe a tick later, and would close first: the messages go as sent.
    const socket = new WebSocket(`${server.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
    await new Promise((resolve) => socket.once('open', resolve));
    socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${key}` } }));
    await new Promise((resolve) => socket.once('message', resolve));

    // Each admission now waits for Redis, up to its deadline, while the socket closes.
    redisLink.freeze();
    for (let index = 0; index < 10; index++) {
      const input = { serviceId, startTime: futureSlot(5, 10 + index), partySize: 1, customer: { name: 'Closed while admitted', email: 'turns@example.com' } };
      socket.send(JSON.stringify({ id: `book-${index}`, type: 'subscribe', payload: { query: bookingMutation, variables: { input } } }));
    }
    socket.close();

    // Every admission ended past its Redis deadline and counted its start, then reached its execution.
    const started = async () => (await server.prisma.usageBucket.aggregate({ where: { apiKeyId: keyId, route: 'graphql:Book' }, _sum: { requests: true } }))._sum.requests;
    await expect.poll(started, { timeout: 10_000 }).toBe(10);
    await expect.poll(() => operationsGauge(server.url, 'hallowgate_operations'), { timeout: 10_000 }).toEqual({ running: 0, waiting: 0 });
    redisLink.restore();
    expect(await server.prisma.booking.count({ where: { customerName: 'Closed while admitted' } })).toBe(0);
  });
});
