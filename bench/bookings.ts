/**
 * Booking service throughput over HTTP: creates (spread over many slots, and all into one hot slot),
 * the same through a hold (POST /v1/holds, then POST /v1/bookings with its hold_id), lists and
 * single reads on /v1, and the availability of a busy service for 31 days over GraphQL (executed,
 * and repeated from the response cache), against in-memory PGlite and, when reachable, PostgreSQL.
 *
 *   npx tsx bench/bookings.ts
 *   BENCH_BOOKINGS_CASES="POST" npx tsx bench/bookings.ts   # only the cases whose name contains one of these (comma-separated)
 *
 * PostgreSQL rows use BENCH_POSTGRES_URL, else postgresql://postgres@127.0.0.1:5432/postgres when
 * reachable; the bench creates a fresh database there, migrates it, and drops it afterwards.
 * A hold → book row counts the pair as one: its req/s are pairs per second, its latencies from the
 * hold sent to the booking answered, its CPU per pair.
 * The server runs in a child process, so autocannon (20 connections) does not share its event loop;
 * both still share this machine's cores with the database. The key is a promo key (no rate limit).
 */
import type { ChildProcess } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { createApiKey } from '../src/access/keys.js';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase, parseDatabaseUrl } from '../src/db/connection.js';
import { applyMigrations } from '../src/db/migrator.js';
import { scheduleOf } from '../src/bookings/availability.js';
import { slotsBetween } from '../src/bookings/schedule.js';
import { newId } from '../src/shared/ids.js';
import { createSecretBox, randomSecretsKey } from '../src/shared/secrets.js';
import {
  autocannon,
  everyHour,
  executeEveryTime,
  forkServer,
  reachable,
  renderEveryTime,
  statusSummary,
  withScratchDatabase,
  type AutocannonResult,
  closeWhenParentLeaves,
  createBenchService,
} from './support.js';

const connections = 20;
const secondsPerRun = 10;
const warmUpSeconds = 2;
const spreadSlots = 2_000;

interface Fixture {
  url: string;
  key: string;
  serviceId: string;
  /** Open every night 18:00–02:00 in New York, a 45-minute visit every 15 minutes, every slot partly booked. */
  busyServiceId: string;
}

const availabilityDays = 31;

// ---------------------------------------------------------------- child: the server

async function serve(databaseUrl: string) {
  const config = loadConfig({ DATABASE_URL: databaseUrl, SEED_ON_START: 'never', LOG_LEVEL: 'silent', DATABASE_POOL_SIZE: '10' });
  const database = await openDatabase(parseDatabaseUrl(databaseUrl), { poolSize: config.DATABASE_POOL_SIZE });
  await applyMigrations(database);
  const { prisma } = database;
  const { attraction, service } = await createBenchService(prisma);
  const busy = await prisma.service.create({
    data: {
      id: newId('service'),
      name: 'Busy nights',
      attractionId: attraction.id,
      capacity: 40,
      ...everyHour(),
      durationMinutes: 45,
      timezone: 'America/New_York',
      slotMinutes: 15,
      openingHours: [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, opens: '18:00', closes: '02:00' })),
    },
  });
  // Places taken in every slot of the measured range (30 a night), as bookings over a season leave them.
  const { startDate, endDate } = availabilityRange();
  const nights = slotsBetween(scheduleOf(busy), startDate, endDate);
  await prisma.bookingSlot.createMany({ data: nights.map((night, index) => ({ serviceId: busy.id, startTime: night.start, placesTaken: (index * 7) % 41 })) });
  const account = await prisma.account.create({ data: { id: newId('account'), name: 'Bench' } });
  const secrets = createSecretBox(randomSecretsKey());
  const { key } = await createApiKey(prisma, secrets, { accountId: account.id, plan: 'enterprise', promo: true, scopes: ['bookings:read', 'bookings:write'] });
  const app = createApp({ config, database, secrets });
  const url = await app.listen(0, '127.0.0.1');
  process.send!({ url, key, serviceId: service.id, busyServiceId: busy.id } satisfies Fixture);
  // The parent asks for this process's CPU time around each measured run.
  process.on('message', () => process.send!(process.cpuUsage()));
  closeWhenParentLeaves(app, database);
}

// ---------------------------------------------------------------- parent: the load

/** 31 days from tomorrow (UTC dates; the busy service's zone is a few hours behind). */
function availabilityRange(): { startDate: string; endDate: string } {
  const tomorrow = Math.floor(Date.now() / 86_400_000) + 1;
  const date = (day: number) => new Date(day * 86_400_000).toISOString().slice(0, 10);
  return { startDate: date(tomorrow), endDate: date(tomorrow + availabilityDays - 1) };
}

const availabilityQuery = `query Availability($id: ID!, $startDate: Date!, $endDate: Date!) {
  service(id: $id) { availability(startDate: $startDate, endDate: $endDate) { startTime endTime capacity remaining } }
}`;

/** Start of tomorrow (UTC) plus `hours`, so every slot is in the future and valid. */
function slot(hours: number): string {
  const start = new Date();
  start.setUTCHours(24, 0, 0, 0);
  return new Date(start.getTime() + hours * 3_600_000).toISOString().replace('.000Z', 'Z');
}

function createRequests(fixture: Fixture, slotFor: (index: number) => string) {
  let index = 0;
  return [
    {
      method: 'POST',
      path: '/v1/bookings',
      setupRequest: (request: Record<string, unknown>) => ({
        ...request,
        body: JSON.stringify({
          service_id: fixture.serviceId,
          start_time: slotFor(index++),
          customer: { name: `Guest ${index}`, email: `guest${index}@example.com` },
        }),
      }),
    },
  ];
}

/** Round trips of a hold → book pair: milliseconds from the hold sent to the booking answered. */
type PairTimes = number[];

interface PairContext {
  startedAt?: number;
  holdId?: string;
}

/**
 * A hold, then a booking with its hold_id, on each connection in turn. When the hold is refused
 * there is nothing to book: the booking's setup returns nothing, and autocannon starts the pair again.
 */
function holdThenBookRequests(fixture: Fixture, slotFor: (index: number) => string, pairTimes: PairTimes) {
  let index = 0;
  return [
    {
      method: 'POST',
      path: '/v1/holds',
      setupRequest: (request: Record<string, unknown>, context: PairContext) => {
        context.startedAt = performance.now();
        return { ...request, body: JSON.stringify({ service_id: fixture.serviceId, start_time: slotFor(index++) }) };
      },
      onResponse: (status: number, body: string, context: PairContext) => {
        context.holdId = status === 201 ? (JSON.parse(body) as { id: string }).id : undefined;
      },
    },
    {
      method: 'POST',
      path: '/v1/bookings',
      setupRequest: (request: Record<string, unknown>, context: PairContext) =>
        context.holdId && { ...request, body: JSON.stringify({ hold_id: context.holdId, customer: { name: `Guest ${index}`, email: `guest${index}@example.com` } }) },
      onResponse: (status: number, _body: string, context: PairContext) => {
        if (status === 201 && context.startedAt !== undefined) pairTimes.push(performance.now() - context.startedAt);
      },
    },
  ];
}

/** The q-quantile of ascending `sorted`, to autocannon's whole milliseconds. */
const quantile = (sorted: number[], q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN);

async function run(fixture: Fixture, options: Record<string, unknown>, seconds: number): Promise<AutocannonResult> {
  return autocannon({
    url: fixture.url,
    connections,
    duration: seconds,
    headers: { authorization: `Bearer ${fixture.key}`, 'content-type': 'application/json' },
    ...options,
  });
}

/** CPU time the server process has used so far, in µs: on a shared machine steadier than req/s. */
function serverCpuMicros(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once('message', (usage) => resolve((usage as NodeJS.CpuUsage).user + (usage as NodeJS.CpuUsage).system));
    child.send('cpu');
  });
}

async function benchDatabase(label: string, databaseUrl: string) {
  const { child, fixture } = await forkServer<Fixture>(import.meta.url, ['serve', databaseUrl]);
  const day = slot(0).slice(0, 10);
  const pairTimes: PairTimes = [];
  const allCases: Array<[string, Record<string, unknown>, PairTimes?]> = [
    ['POST /v1/bookings, 2,000 slots', { requests: createRequests(fixture, (index) => slot(index % spreadSlots)) }],
    ['POST /v1/holds → POST /v1/bookings {hold_id}, 2,000 slots (pairs)', { requests: holdThenBookRequests(fixture, (index) => slot(index % spreadSlots), pairTimes) }, pairTimes],
    ['POST /v1/bookings, 1 hot slot', { requests: createRequests(fixture, () => slot(12)) }],
    ['POST /v1/holds → POST /v1/bookings {hold_id}, 1 hot slot (pairs)', { requests: holdThenBookRequests(fixture, () => slot(12), pairTimes) }, pairTimes],
    ['GET /v1/bookings?limit=20, a new URL each time (render)', { requests: renderEveryTime('/v1/bookings?limit=20') }],
    ['GET /v1/bookings?limit=20, repeated (response cache)', { requests: [{ method: 'GET', path: '/v1/bookings?limit=20' }] }],
    ['GET /v1/bookings?start_date=…&end_date=…&limit=100 (render)', { requests: renderEveryTime(`/v1/bookings?start_date=${day}&end_date=${day}&limit=100`) }],
    [
      `GraphQL Service.availability, ${availabilityDays} days of a busy service (930 slots, executed)`,
      { url: `${fixture.url}/graphql`, requests: executeEveryTime(availabilityQuery, { id: fixture.busyServiceId, ...availabilityRange() }) },
    ],
    [
      `GraphQL Service.availability, ${availabilityDays} days of a busy service, repeated (response cache)`,
      { url: `${fixture.url}/graphql`, method: 'POST', body: JSON.stringify({ query: availabilityQuery, variables: { id: fixture.busyServiceId, ...availabilityRange() } }) },
    ],
  ];
  const chosen = process.env['BENCH_BOOKINGS_CASES']?.split(',').map((part) => part.trim());
  const cases = chosen ? allCases.filter(([name]) => chosen.some((part) => name.includes(part))) : allCases;
  const rows = [];
  try {
    for (const [name, options, pairs] of cases) {
      await run(fixture, options, warmUpSeconds);
      pairs?.splice(0);
      const cpuBefore = await serverCpuMicros(child);
      const result = await run(fixture, options, secondsPerRun);
      const cpuMicros = (await serverCpuMicros(child)) - cpuBefore;
      // A pair is one round trip of the row: its rate, latencies and CPU are per pair, not per request.
      const sorted = pairs?.sort((a, b) => a - b);
      const perRow = sorted
        ? { count: sorted.length, rate: sorted.length / secondsPerRun, p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) }
        : { count: result.requests.total, rate: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
      rows.push({
        database: label,
        case: name,
        'req/s': Math.round(perRow.rate),
        'p50 ms': perRow.p50,
        'p99 ms': perRow.p99,
        'server CPU ms/req': (cpuMicros / perRow.count / 1000).toFixed(2),
        statuses: statusSummary(result),
        errors: result.errors,
      });
    }
  } finally {
    child.disconnect();
  }
  return rows;
}

async function main() {
  const [mode, databaseUrl] = process.argv.slice(2);
  if (mode === 'serve') return serve(databaseUrl!);

  const loadBefore = loadavg()[0]!;
  const rows = await benchDatabase('PGlite (memory)', 'pglite:memory');
  const postgresUrl = process.env['BENCH_POSTGRES_URL'] ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  if (await reachable(postgresUrl, 5432)) {
    rows.push(...(await withScratchDatabase(postgresUrl, 'hallowgate_bench_bookings', (url) => benchDatabase('PostgreSQL (pool 10)', url))));
  } else {
    console.log(`(no PostgreSQL at ${postgresUrl}: its rows are skipped)`);
  }
  console.log(`\nBooking service over HTTP: autocannon, ${connections} connections, ${secondsPerRun} s per case after ${warmUpSeconds} s warm-up`);
  console.log(`${cpus().length} cores; 1-minute load average ${loadBefore.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after (other work on the machine lowers req/s)`);
  console.table(rows);
  console.log(JSON.stringify({ bench: 'bookings', node: process.version, rows }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
