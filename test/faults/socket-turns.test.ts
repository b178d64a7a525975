import type { Socket } from 'node:net';
import type { Client } from 'graphql-ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runningPerSocket } from '../../src/server/websocket.js';
import { openService } from '../support/bookable.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { requireService } from '../support/services.js';
import { graphqlWsClient } from '../support/websocket.js';
import { startFaultProxy, type FaultProxy } from './proxy.js';

const postgresUrl = await requireService('postgres');
const poolSize = runningPerSocket + 2;

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
  };
}

/** The hallowgate_websocket_operations gauge, as /metrics shows it now. */
async function socketOperations(baseUrl: string): Promise<{ running: number; waiting: number }> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const read = (state: string) => Number(new RegExp(`^hallowgate_websocket_operations\\{state="${state}"\\} (\\S+)$`, 'm').exec(text)?.[1]);
  return { running: read('running'), waiting: read('waiting') };
}

const availabilityQuery = `query Places($id: ID!, $startDate: Date!, $endDate: Date!) {
  service(id: $id) { availability(startDate: $startDate, endDate: $endDate) { startTime remaining } }
}`;

/**
 * One graphql-ws socket that starts many queries at once runs a few of them at a time and queues the
 * rest, so it cannot take every database connection of the instance from other clients.
 */
describe.skipIf(!postgresUrl)('a graphql-ws socket starting many queries at once', () => {
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

  /** A read started by startReads: its answer once settled, and how to complete (cancel) it before. */
  interface Read {
    answer: Promise<{ data?: unknown; errors?: unknown }>;
    complete(): void;
  }

  /** Days read so far: each read is of a day of its own, so none is answered from the response cache. */
  let daysRead = 0;

  /** Starts `count` reads of places on the socket, each of a day of its own. */
  function startReads(client: Client, count: number): Read[] {
    return Array.from({ length: count }, () => {
      const day = new Date(Date.now() + ++daysRead * 86_400_000).toISOString().slice(0, 10);
      let complete = () => undefined as void;
      const answer = new Promise<{ data?: unknown; errors?: unknown }>((resolve) => {
        let answer: { data?: unknown; errors?: unknown } = {};
        complete = client.subscribe(
          { query: availabilityQuery, variables: { id: serviceId, startDate: day, endDate: day } },
          {
            next: (value) => void (answer = value as typeof answer),
            error: (error) => resolve({ errors: error }),
            complete: () => resolve(answer),
          },
        );
      });
      return { answer, complete };
    });
  }

  it(`runs ${runningPerSocket} at a time: another client still gets a database connection, and every query is answered in the end`, async () => {
    holding.hold();
    socket = connect();
    const reads = startReads(socket, 20);
    await expect.poll(() => socketOperations(server.url), { timeout: 10_000 }).toEqual({ running: runningPerSocket, waiting: 20 - runningPerSocket });

    // The pool has two connections the socket's held reads do not take: another client is served.
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
});
