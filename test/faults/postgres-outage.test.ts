import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, unansweredGraceMs, type Database } from '../../src/db/connection.js';
import { loadConfig } from '../../src/config.js';
import { databaseUnavailable } from '../../src/shared/errors.js';
import { postgresUrlOf, startServerProcess } from '../access/processes.js';
import { openEventsDatabase } from '../events/cluster.js';
import { startFaultProxy, type FaultProxy } from './proxy.js';
import { answersWithin, outageModes, readiness, slowMachineMarginMs } from './timing.js';
import { apiClient, futureSlot, type ApiCall } from '../support/http.js';
import { openService } from '../support/bookable.js';
import { startReceiver } from '../support/receiver.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { requireService } from '../support/services.js';

const postgresUrl = await requireService('postgres');

/** Short deadlines, so each outage is seen quickly; the defaults are longer (README, Configuration). */
const deadlines = { DATABASE_CONNECT_TIMEOUT_MS: 2000, DATABASE_STATEMENT_TIMEOUT_MS: 2000 };
/** A query on a pooled connection gives up one second after the statement deadline; a new connection at the connect deadline. */
const requestDeadlineMs = deadlines.DATABASE_STATEMENT_TIMEOUT_MS + 1000;
/** /readyz and /metrics answer within this whatever hangs. */
const probeDeadlineMs = 2000;

/** Cut and frozen as every dependency is, and full: a PostgreSQL refusing new sessions, its slots all taken. */
const postgresOutageModes = [...outageModes, 'full'] as const;

describe.skipIf(!postgresUrl).each(postgresOutageModes)('a PostgreSQL outage (%s)', (mode) => {
  let proxy: FaultProxy;
  let server: TestServer;
  let call: ApiCall;
  let serviceId: string;

  /** Statements as the server sends them (direct reads) or as Prisma ran them. */
  const statements: string[] = [];

  beforeAll(async () => {
    proxy = await startFaultProxy(postgresUrl!);
    server = await startTestServer({ seed: true, postgresUrl: proxy.url, config: { ...deadlines, REDIS_URL: undefined }, onQuery: (text) => statements.push(text) });
    call = apiClient(server.url, (await server.createKey()).key);
    serviceId = await openService(server.prisma);
  });
  afterAll(async () => {
    proxy?.restore();
    await server?.close();
    await proxy?.close();
  });

  it('shows on /readyz within 2 s and answers 503 problems within the deadline, then recovers without a restart', async () => {
    // A key the server has not seen yet must be looked up in the database during the outage.
    const unseen = apiClient(server.url, (await server.createKey()).key);
    expect(await readiness(server.url)).toEqual({ status: 200, body: { status: 'ready', checks: { database: 'ok', redis: 'not_configured' } } });
    // Several connections in the pool, which a freeze leaves open and silent.
    await Promise.all(Array.from({ length: 4 }, () => call('GET', '/v1/services?limit=1')));
    // Asked twice, a query's answer is kept: the next asking reads the data version first.
    const keptQuery = '{ categories { edges { node { name } } } }';
    for (let asking = 0; asking < 2; asking++) expect((await call('POST', '/graphql', { query: keptQuery })).status).toBe(200);

    proxy[mode]();
    const sentBefore = statements.length;
    const ready = await answersWithin(probeDeadlineMs + slowMachineMarginMs, () => readiness(server.url));
    expect(ready).toEqual({ status: 503, body: { status: 'unavailable', checks: { database: 'unavailable', redis: 'not_configured' } } });

    const during = await Promise.all(
      [
        () => call('GET', '/v1/services?limit=1'),
        () => unseen('GET', '/v1/services?limit=1'),
        () => call('GET', `/v1/services/${serviceId}/availability?start_date=${futureSlot(3).slice(0, 10)}&end_date=${futureSlot(4).slice(0, 10)}`),
        () => call('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(5), customer: { name: 'Outage', email: 'outage@example.com' } }),
      ].map((request) => answersWithin(requestDeadlineMs + slowMachineMarginMs, request)),
    );
    for (const answer of during) {
      expect(answer.status).toBe(503);
      expect(answer.headers.get('content-type')).toContain('application/problem+json');
      expect(answer.headers.get('retry-after')).toBe('5');
      expect(answer.body).toMatchObject({ status: 503, code: 'service_unavailable' });
    }
    // A list's Last-Modified rides on its statement: when that fails, it is not read again on its own
    // (on a frozen server, a second deadline waited out).
    const list = await answersWithin(requestDeadlineMs + slowMachineMarginMs, () => call('GET', '/v1/bookings?limit=7'));
    expect([list.status, list.body.code]).toEqual([503, 'service_unavailable']);
    expect(statements.slice(sentBefore).filter((text) => text.trimStart().startsWith('SELECT newest.seq'))).toEqual([]);
    const graphql = await answersWithin(requestDeadlineMs + slowMachineMarginMs, () => call('POST', '/graphql', { query: '{ categories { edges { node { slug } } } }' }));
    expect(graphql.body.errors[0].extensions.code).toBe('service_unavailable');
    // Once, not twice: the data version's read failing is the answer, the query does not then wait out its own.
    const kept = await answersWithin(requestDeadlineMs + slowMachineMarginMs, () => call('POST', '/graphql', { query: keptQuery }));
    expect(kept.status).toBe(503);
    expect(kept.headers.get('retry-after')).toBe('5');
    expect(kept.body.errors[0].extensions.code).toBe('service_unavailable');

    expect((await answersWithin(slowMachineMarginMs, () => fetch(`${server.url}/healthz`))).status).toBe(200);
    const scrape = await answersWithin(probeDeadlineMs + slowMachineMarginMs, async () => {
      const response = await fetch(`${server.url}/metrics`);
      return { status: response.status, text: await response.text() };
    });
    expect(scrape.status).toBe(200);
    expect(scrape.text).toContain('hallowgate_webhook_queue_depth Nan');

    proxy.restore();
    await expect.poll(async () => (await readiness(server.url)).status, { timeout: 15_000 }).toBe(200);
    await expect.poll(async () => (await call('GET', '/v1/services?limit=1')).status, { timeout: 15_000 }).toBe(200);
    const booked = await call('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(6), customer: { name: 'After', email: 'after@example.com' } });
    expect(booked.status).toBe(201);
  });

  it('records a webhook attempt answered while it was out once it is back, and sends the delivery once', async () => {
    // The outage starts as the receiver answers, so the attempt's outcome meets it.
    const receiver = await startReceiver((_webhook, index) => {
      if (index === 0) proxy[mode]();
      return 200;
    });
    const own = apiClient(server.url, (await server.createKey()).key);
    const endpoint = await own('POST', '/v1/webhook_endpoints', { url: receiver.url, events: ['booking.created'] });
    expect(endpoint.status).toBe(201);
    expect((await own('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(7), customer: { name: 'Hook', email: 'hook@example.com' } })).status).toBe(201);
    await receiver.waitFor(1);
    // Longer than a frozen statement is waited for: the record's first try fails.
    await sleep(requestDeadlineMs + 1000);
    proxy.restore();

    const deliveryOf = () => server.prisma.webhookDelivery.findFirst({ where: { endpointId: endpoint.body.id }, include: { attempts: true } });
    await expect.poll(async () => (await deliveryOf())?.status, { timeout: 15_000 }).toBe('succeeded');
    const delivery = await deliveryOf();
    expect(delivery?.attempts.map(({ attemptNumber, responseStatus }) => ({ attemptNumber, responseStatus }))).toEqual([{ attemptNumber: 1, responseStatus: 200 }]);
    expect(receiver.received).toHaveLength(1);
    await receiver.close();
  });
});

describe.skipIf(!postgresUrl)('a connection whose query went unanswered', () => {
  let proxy: FaultProxy;
  let database: Database;

  beforeAll(async () => {
    proxy = await startFaultProxy(postgresUrl!);
    // One connection: were the silent one lent out again, every later query would wait on it.
    database = await openDatabase(
      { kind: 'postgres', url: proxy.url },
      { poolSize: 1, deadlines: { DATABASE_CONNECT_TIMEOUT_MS: 2000, DATABASE_STATEMENT_TIMEOUT_MS: 1000, DATABASE_TRANSACTION_TIMEOUT_MS: 10_000 } },
    );
  });
  afterAll(async () => {
    proxy?.restore();
    await database?.close();
    await proxy?.close();
  });

  it('is discarded, not pooled again, when its server hangs inside a transaction', async () => {
    const select = () => database.prisma.$queryRaw<{ one: number }[]>`select 1 as one`;
    expect(await select()).toEqual([{ one: 1 }]);
    const failed = await database.prisma
      .$transaction(async (tx) => {
        await tx.$queryRaw`select 1`;
        // The session hangs after BEGIN went through; new connections still reach the server.
        proxy.stallOpen();
        await tx.$queryRaw`select 2`;
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(databaseUnavailable(failed)?.code).toBe('service_unavailable');
    expect(await answersWithin(1000 + slowMachineMarginMs, select)).toEqual([{ one: 1 }]);
  });
});

describe.skipIf(!postgresUrl)('a PostgreSQL freeze under the default deadlines and time budget', () => {
  let proxy: FaultProxy;
  let server: TestServer;
  let call: ApiCall;

  beforeAll(async () => {
    proxy = await startFaultProxy(postgresUrl!);
    server = await startTestServer({ seed: true, postgresUrl: proxy.url, config: { REDIS_URL: undefined } });
    call = apiClient(server.url, (await server.createKey()).key);
  });
  afterAll(async () => {
    proxy?.restore();
    await server?.close();
    await proxy?.close();
  });

  it('answers reads 503 service_unavailable, not 400 query_too_complex: the database gives up on them before the budget', { timeout: 60_000 }, async () => {
    const config = loadConfig({});
    // A query may wait for a connection, then on its statement: the budget outlasts both.
    expect(config.GRAPHQL_TIME_BUDGET_MS).toBeGreaterThan(config.DATABASE_CONNECT_TIMEOUT_MS + config.DATABASE_STATEMENT_TIMEOUT_MS + unansweredGraceMs);
    // Connections in the pool, which the freeze leaves open and silent.
    await Promise.all(Array.from({ length: 4 }, () => call('GET', '/v1/bookings?limit=1')));
    proxy.freeze();
    const deadlineMs = config.DATABASE_STATEMENT_TIMEOUT_MS + unansweredGraceMs + slowMachineMarginMs;
    const [rest, directory, graphql] = await Promise.all(
      [
        () => call('GET', '/v1/bookings?limit=1'),
        () => call('GET', '/api/v1/events?limit=1&city=Salem'),
        () => call('POST', '/graphql', { query: '{ bookings(first: 1) { edges { node { id } } } }' }),
      ].map((request) => answersWithin(deadlineMs, request)),
    );
    for (const answer of [rest!, directory!]) expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 503, code: 'service_unavailable' });
    expect(graphql!.body.errors[0].extensions.code).toBe('service_unavailable');
  });
});

describe.skipIf(!postgresUrl)('stopping while PostgreSQL is frozen', () => {
  it(
    'exits after one database deadline, not one per worker nor one more for the usage counts: requests in flight, the workers and the last flush share it',
    { timeout: 90_000 },
    async () => {
      const cluster = await openEventsDatabase(postgresUrl!);
      const proxy = await startFaultProxy(postgresUrlOf(cluster.database));
      try {
        // The default deadlines and polling: the workers' polls are under way, each at its own pace, when the server stops.
        const server = await startServerProcess({ ...cluster.env, DATABASE_URL: proxy.url, WEBHOOK_POLL_MS: '1000' });
        const call = apiClient(server.url, cluster.key);
        expect((await call('GET', '/v1/bookings?limit=1')).status).toBe(200);
        proxy.freeze();
        // Requests under way when the server is told to stop: each waits out its deadline, then the usage they made is flushed.
        const inFlight = [2, 3, 4].map((limit) => call('GET', `/v1/bookings?limit=${limit}`).catch(() => undefined));
        await new Promise((resolve) => setTimeout(resolve, 300));
        const exited = once(server.process, 'exit');
        server.process.kill('SIGTERM');
        const { DATABASE_STATEMENT_TIMEOUT_MS } = loadConfig({});
        const [code] = (await answersWithin(DATABASE_STATEMENT_TIMEOUT_MS + unansweredGraceMs + slowMachineMarginMs, () => exited)) as [number | null];
        expect(code).toBe(0);
        await Promise.all(inFlight);
      } finally {
        proxy.restore();
        await proxy.close();
        await cluster.database.close();
      }
    },
  );
});
