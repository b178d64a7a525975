/**
 * The directory at national scale (issue 29, "Scale and speed"), on PostgreSQL, executed every time
 * (never from the response cache), over REST and GraphQL:
 * - a city listing (a page of 40 events with categories and images, by start time) at today's seed
 *   size (scale 1) and at national scale, with the slowdown between the two;
 * - "near me with room for 6 tonight": attractions within 25 km of New York with a slot for a party
 *   of 6 on a Saturday night of the seeded season, nearest first, after some of those slots were
 *   booked full or down to 5 places;
 * - events within 25 km and 200 km of the same point, nearest first;
 * and the PostgreSQL plan (EXPLAIN ANALYZE) of the statements the listing and the events-near reads send;
 * and the physical limit of the near-me read and of events within 25 km (limitOf): their very
 * statements replayed by a bare node:http + pg server under the same load.
 *
 *   npx tsx bench/national.ts
 *   BENCH_NATIONAL_KEEP=1 npx tsx bench/national.ts   # keeps the national database and reuses it next run
 *
 * PostgreSQL is BENCH_POSTGRES_URL, else postgresql://postgres@127.0.0.1:5432/postgres. Each size
 * gets a fresh database there, migrated and seeded (the seeding time is reported), dropped
 * afterwards; with BENCH_NATIONAL_KEEP=1 the national one is hallowgate_bench_national, seeded only
 * when empty and kept. The server runs in a child process, so autocannon (20 connections) does not
 * share its event loop; both still share this machine's cores with PostgreSQL. SQL per request counts
 * the statements on the tables these reads use. The key is a promo key (no rate limit).
 */
import { TZDate } from '@date-fns/tz';
import type { ChildProcess } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import pg from 'pg';
import { createApiKey } from '../src/access/keys.js';
import { createApp } from '../src/app.js';
import { scheduleOf } from '../src/bookings/availability.js';
import { slotsBetween } from '../src/bookings/schedule.js';
import { loadConfig } from '../src/config.js';
import { openDatabase, parseDatabaseUrl } from '../src/db/connection.js';
import { applyMigrations } from '../src/db/migrator.js';
import { cities } from '../src/db/seed-data/cities.js';
import { isDatabaseEmpty, seedDatabase } from '../src/db/seed.js';
import type { PrismaClient } from '../src/generated/prisma/client.js';
import { newId } from '../src/shared/ids.js';
import { createSecretBox, randomSecretsKey } from '../src/shared/secrets.js';
import type { LimitFixture } from './physical-limit.js';
import { startStatementRecorder, type RecordedStatement } from './statement-recorder.js';
import {
  answerCounters,
  autocannon,
  cityEventsQuery,
  closeWhenParentLeaves,
  cpuMicros,
  eventFields,
  executeEveryTime,
  forkServer,
  reachable,
  renderEveryTime,
  serverCounters,
  statusSummary,
  withScratchDatabase,
} from './support.js';

const connections = 20;
const secondsPerRun = 10;
const warmUpSeconds = 3;
/**
 * The listing's page: one that both sizes fill, with a next page (New York holds 46 events at scale
 * 1), so that the two sizes answer as many events, and what differs between them is the scale alone.
 */
const listingPageSize = 40;
const nearPageSize = 20;
/** The smallest seed scale with at least 100,000 events (and so far more than 5,000 attractions and 10,000 services). */
const nationalScale = 58;
const nationalFloor = { events: 100_000, attractions: 5_000, services: 10_000 };
/** The goals of issue 29: the listing at national scale at most this much slower; the near query's p99 under this. */
const listingSlowdownGoal = 1.2;
const nearP99GoalMs = 50;
const partySize = 6;
const nearRadiusKm = 25;
const widerRadiusKm = 200;

/** The listing's city, whose center is "me". */
const home = cities.find((city) => city.name === 'New York')!;
/** A wall-clock time in New York as the instant it is. */
const inHome = (hour: number) => new Date(new TZDate(2027, 9, 30, hour, 0, 0, home.timezone).getTime());
/** "Tonight": a Saturday 18:00–23:00 in New York, inside the services' 2027 season. */
const tonight = { date: '2027-10-30', from: inHome(18), to: inHome(23) };
/** The API's DateTime: UTC with a trailing Z, to the second. */
const dateTime = (instant: Date) => instant.toISOString().replace('.000Z', 'Z');

interface Fixture {
  url: string;
  key: string;
}

// ---------------------------------------------------------------- child: the server

/** The tables the measured reads use; the server's background work (usage flushes, key refreshes) uses others. */
const readTable =
  /"(events|attractions|categories|images|services|booking_slots|_CategoryToEvent|_AttractionToCategory)"|\b(events|attractions|services|booking_slots|availability_versions|directory_version)\b/;

async function serve(databaseUrl: string) {
  const config = loadConfig({ DATABASE_URL: databaseUrl, SEED_ON_START: 'never', LOG_LEVEL: 'silent', DATABASE_POOL_SIZE: '10' });
  let statements = 0;
  const countRead = (sql: string) => {
    if (readTable.test(sql)) statements++;
  };
  const database = await openDatabase(parseDatabaseUrl(databaseUrl), { poolSize: config.DATABASE_POOL_SIZE, onQuery: countRead });
  const account = await database.prisma.account.create({ data: { id: newId('account'), name: 'Bench' } });
  const secrets = createSecretBox(randomSecretsKey());
  const { key } = await createApiKey(database.prisma, secrets, { accountId: account.id, plan: 'enterprise', promo: true, scopes: ['directory:read', 'bookings:read'] });
  const app = createApp({ config, database, secrets });
  const url = await app.listen(0, '127.0.0.1');
  process.send!({ url, key } satisfies Fixture);
  answerCounters(() => statements);
  closeWhenParentLeaves(app, database);
}

// ---------------------------------------------------------------- parent: the data

interface Prepared {
  events: number;
  attractions: number;
  services: number;
  /** How long seeding took; undefined when a kept database was seeded already. */
  seedSeconds: number | undefined;
}

/** Seeding a national directory takes minutes: far past the server's statement and transaction deadlines. */
const seedDeadlines = { DATABASE_CONNECT_TIMEOUT_MS: 10_000, DATABASE_STATEMENT_TIMEOUT_MS: 600_000, DATABASE_TRANSACTION_TIMEOUT_MS: 600_000 };

/** Migrates and (when empty) seeds the database at `scale`, and books tonight's slots near home. */
async function prepare(databaseUrl: string, scale: number): Promise<Prepared & { tonight: Tonight }> {
  const database = await openDatabase(parseDatabaseUrl(databaseUrl), { poolSize: 2, deadlines: seedDeadlines });
  try {
    await applyMigrations(database);
    const { prisma } = database;
    let seedSeconds: number | undefined;
    if (await isDatabaseEmpty(prisma)) {
      console.log(`seeding scale ${scale} …`);
      seedSeconds = (await seedDatabase(prisma, { log: () => undefined, scale })).milliseconds / 1000;
    }
    const [events, attractions, services, homeEvents] = await Promise.all([
      prisma.event.count(),
      prisma.attraction.count(),
      prisma.service.count(),
      prisma.event.count({ where: { cityKey: home.name.toLowerCase() } }),
    ]);
    if (homeEvents <= listingPageSize) throw new Error(`${home.name} holds ${homeEvents} events at scale ${scale}: the listing's page of ${listingPageSize} would not be full`);
    return { events, attractions, services, seedSeconds, tonight: await bookTonight(prisma) };
  } finally {
    await database.close();
  }
}

/** What bookTonight left: services near home, their slots tonight, and how many of those have fewer than 6 places left. */
interface Tonight {
  services: number;
  slots: number;
  tooFull: number;
}

/**
 * Books tonight's slots of the services near home, as a busy Saturday leaves them: every other
 * attraction (by id) has no slot with room for 6 (each slot full or down to 5 places), the others
 * every third slot full. Written as slot rows (what bookings leave behind), idempotently, so a kept
 * database is booked the same way again.
 */
async function bookTonight(prisma: PrismaClient): Promise<Tonight> {
  // The box around the circle: a degree of latitude is about 111 km, one of longitude shrinks with its cosine.
  const latitudeSpan = nearRadiusKm / 111;
  const longitudeSpan = latitudeSpan / Math.cos((home.latitude * Math.PI) / 180);
  const services = await prisma.service.findMany({
    where: {
      attraction: {
        latitude: { gte: home.latitude - latitudeSpan, lte: home.latitude + latitudeSpan },
        longitude: { gte: home.longitude - longitudeSpan, lte: home.longitude + longitudeSpan },
      },
    },
    orderBy: [{ attractionId: 'asc' }, { id: 'asc' }],
  });
  const attractionIds = [...new Set(services.map((service) => service.attractionId))];
  const rows = services.flatMap((service) => {
    const crowded = attractionIds.indexOf(service.attractionId) % 2 === 0;
    return slotsBetween(scheduleOf(service), tonight.date, tonight.date)
      .filter((slot) => slot.start >= tonight.from && slot.start < tonight.to)
      .map((slot, index) => {
        const placesTaken = crowded ? service.capacity - (index % 2 === 0 ? 0 : partySize - 1) : index % 3 === 0 ? service.capacity : 0;
        return { serviceId: service.id, startTime: slot.start, placesTaken };
      });
  });
  await prisma.bookingSlot.createMany({ data: rows, skipDuplicates: true });
  // What autovacuum does after such a write; these machines run PostgreSQL without it, and the
  // planner would weigh the slots without statistics.
  await prisma.$executeRawUnsafe('ANALYZE booking_slots');
  return { services: services.length, slots: rows.length, tooFull: rows.filter((row) => row.placesTaken > 0).length };
}

// ---------------------------------------------------------------- parent: the load

interface Case {
  name: string;
  /** The GET path, also the request whose statements are explained. */
  restPath: string;
  graphql: { query: string; variables: Record<string, unknown> };
}

const listingCase: Case = {
  name: `${home.name}: a page of ${listingPageSize} events with categories and images, by start time`,
  restPath: `/api/v1/events?city=${encodeURIComponent(home.name)}&include=categories,images&limit=${listingPageSize}`,
  graphql: { query: cityEventsQuery, variables: { city: home.name, first: listingPageSize } },
};

/** The listing's statement on events. */
const listingExplained = { case: listingCase, table: /"events"/ };

const attractionFields = `id name description city region website latitude longitude eventCount firstStartsAt lastEndsAt nextStartsAt priceMin priceMax updatedAt`;

const nearMeQuery = `query($lat: Float, $lng: Float, $radius: Float, $availableFor: Int, $availableFrom: DateTime, $availableTo: DateTime, $first: Int) {
  attractions(lat: $lat, lng: $lng, radius: $radius, availableFor: $availableFor, availableFrom: $availableFrom, availableTo: $availableTo,
              orderBy: [{ field: DISTANCE, direction: ASC }], first: $first) {
    edges { node { ${attractionFields} distanceKm nextSlots { serviceId startTime endTime remaining } } }
    pageInfo { hasNextPage endCursor }
  }
}`;

const nearMeCase: Case = {
  name: `attractions within ${nearRadiusKm} km of ${home.name} with room for ${partySize} tonight, nearest first`,
  restPath:
    `/api/v1/attractions?lat=${home.latitude}&lng=${home.longitude}&radius=${nearRadiusKm}&sort=distance` +
    `&available_for=${partySize}&available_from=${dateTime(tonight.from)}&available_to=${dateTime(tonight.to)}&limit=${nearPageSize}`,
  graphql: {
    query: nearMeQuery,
    variables: {
      lat: home.latitude,
      lng: home.longitude,
      radius: nearRadiusKm,
      availableFor: partySize,
      availableFrom: dateTime(tonight.from),
      availableTo: dateTime(tonight.to),
      first: nearPageSize,
    },
  },
};

const eventsNearQuery = `query($lat: Float, $lng: Float, $radius: Float, $first: Int) {
  events(lat: $lat, lng: $lng, radius: $radius, orderBy: [{ field: DISTANCE, direction: ASC }], first: $first) {
    edges { node { ${eventFields} distanceKm } }
    pageInfo { hasNextPage endCursor }
  }
}`;

const eventsNearCase = (radiusKm: number): Case => ({
  name: `events within ${radiusKm} km of ${home.name}, nearest first`,
  restPath: `/api/v1/events?lat=${home.latitude}&lng=${home.longitude}&radius=${radiusKm}&sort=distance&limit=${nearPageSize}`,
  graphql: { query: eventsNearQuery, variables: { lat: home.latitude, lng: home.longitude, radius: radiusKm, first: nearPageSize } },
});

interface Row {
  size: string;
  case: string;
  /** Our server over REST or GraphQL, or the physical limit of the case's REST statements (limitOf). */
  surface: 'REST' | 'GraphQL' | 'physical limit';
  'req/s'?: number;
  'p50 ms'?: number;
  'p99 ms'?: number;
  'SQL/req'?: string;
  /** What the server itself spent: steadier than req/s and latency on a machine whose cores are shared. */
  'server CPU ms/req'?: string;
  /** What the run answered, or why it did not run. */
  statuses: string;
}

/** Why a case is not measured: its first answer is not a 200 with at least one result (the server cannot answer it yet, or the fixture misses). */
async function refusal(request: () => Promise<Response>): Promise<string | undefined> {
  const response = await request();
  const body = await response.text();
  if (response.status !== 200 || body.includes('"errors":')) return `not run: the first request answered ${response.status} ${body.slice(0, 200)}`;
  if (!body.includes('"id":')) return 'not run: the first request answered no result';
  return undefined;
}

/** The row of a server under autocannon's `options` for secondsPerRun after a warm-up: what it answered, sent to PostgreSQL and spent. */
async function loadRow(child: ChildProcess, options: Record<string, unknown>, row: Pick<Row, 'size' | 'case' | 'surface'>): Promise<Row> {
  const run = (seconds: number) => autocannon({ ...options, duration: seconds });
  await run(warmUpSeconds);
  const before = await serverCounters(child);
  const result = await run(secondsPerRun);
  const after = await serverCounters(child);
  const perRequest = (value: number) => (value / result.requests.total).toFixed(2);
  return {
    ...row,
    'req/s': Math.round(result.requests.average),
    'p50 ms': result.latency.p50,
    'p99 ms': result.latency.p99,
    'SQL/req': perRequest(after.statements - before.statements),
    'server CPU ms/req': perRequest((cpuMicros(after.cpu) - cpuMicros(before.cpu)) / 1000),
    statuses: `${statusSummary(result)}${result.errors ? ` errors×${result.errors}` : ''}`,
  };
}

async function measure(size: string, databaseUrl: string, cases: Case[]): Promise<Row[]> {
  const { child, fixture } = await forkServer<Fixture>(import.meta.url, ['serve', databaseUrl]);
  const authorization = `Bearer ${fixture.key}`;
  const rows: Row[] = [];
  try {
    for (const { name, restPath, graphql } of cases) {
      const surfaces = [
        {
          surface: 'REST' as const,
          options: { url: fixture.url, requests: renderEveryTime(restPath) },
          first: () => fetch(`${fixture.url}${restPath}`, { headers: { authorization } }),
        },
        {
          surface: 'GraphQL' as const,
          options: { url: `${fixture.url}/graphql`, headers: { authorization, 'content-type': 'application/json' }, requests: executeEveryTime(graphql.query, graphql.variables) },
          first: () => fetch(`${fixture.url}/graphql`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(graphql) }),
        },
      ];
      for (const { surface, options, first } of surfaces) {
        const notRun = await refusal(first);
        if (notRun) {
          rows.push({ size, case: name, surface, statuses: notRun });
          continue;
        }
        rows.push(await loadRow(child, { connections, headers: { authorization }, ...options }, { size, case: name, surface }));
      }
    }
  } finally {
    child.disconnect();
  }
  return rows;
}

// ---------------------------------------------------------------- parent: the plans

interface Plan {
  size: string;
  case: string;
  /** The indexes the plan scans. */
  indexes: string[];
  'execution ms': number;
  plan: string;
}

/** What a case's REST read sent: its status and statements, read by the second request (the first also looks the key up). */
interface RecordedRead {
  status: number;
  statements: RecordedStatement[];
}

/**
 * The statements each case's REST read sends on the tables the reads use, once settled
 * (StatementRecorder.settled), recorded on the wire (bench/statement-recorder.ts) in front of a
 * server started for this alone, so the measured server keeps its direct connections.
 */
async function recordReads(databaseUrl: string, cases: Case[]): Promise<Map<Case, RecordedRead>> {
  const recorder = await startStatementRecorder(databaseUrl);
  const recorded = new Map<Case, RecordedRead>();
  try {
    const { child, fixture } = await forkServer<Fixture>(import.meta.url, ['serve', recorder.url]);
    try {
      for (const read of cases) {
        const [rendering] = renderEveryTime(read.restPath);
        const status = async () => {
          const response = await fetch(`${fixture.url}${rendering!.setupRequest({}).path}`, { headers: { authorization: `Bearer ${fixture.key}` } });
          await response.text();
          return response.status;
        };
        const { statements, answer } = await recorder.settled(read.name, status, ({ text }) => readTable.test(text));
        recorded.set(read, { status: answer, statements });
      }
    } finally {
      child.disconnect();
    }
  } finally {
    await recorder.close();
  }
  return recorded;
}

/** EXPLAIN ANALYZE of the statements each case's REST read sends that read `table`, run again with their values. */
async function explain(size: string, databaseUrl: string, cases: { case: Case; table: RegExp }[]): Promise<Plan[]> {
  const recorded = await recordReads(
    databaseUrl,
    cases.map((explained) => explained.case),
  );
  const plans: Plan[] = [];
  const client = new pg.Client({ connectionString: databaseUrl, statement_timeout: 60_000 });
  await client.connect();
  try {
    for (const { case: read, table } of cases) {
      const { status, statements } = recorded.get(read)!;
      const scanned = statements.filter(({ text }) => table.test(text));
      if (scanned.length === 0) plans.push({ size, case: read.name, indexes: [], 'execution ms': Number.NaN, plan: `no statement: the read answered ${status}` });
      for (const { text, values } of scanned) {
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, values);
        const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
        const indexes = [...new Set([...plan.matchAll(/ (?:using|on) (\w+_idx|\w+_pkey)/g)].map((match) => match[1]!))];
        plans.push({ size, case: read.name, indexes, 'execution ms': Number(/Execution Time: ([\d.]+) ms/.exec(plan)?.[1]), plan });
      }
    }
  } finally {
    await client.end();
  }
  return plans;
}

// ---------------------------------------------------------------- parent: the physical limit

/**
 * What the machine can do for a case at all: the statements its REST read sends, values and all,
 * replayed one after the other by a bare node:http + pg server (bench/physical-limit.ts: no routing,
 * authentication, GraphQL or search, pool 10) that writes their rows with JSON.stringify, under the
 * same load. A latency goal this server misses on this machine is one no server answering the read
 * with these statements can meet here.
 */
async function limitOf(size: string, databaseUrl: string, cases: Case[]): Promise<Row[]> {
  const recorded = await recordReads(databaseUrl, cases);
  for (const read of cases) {
    const { status, statements } = recorded.get(read)!;
    if (status !== 200 || statements.length === 0) throw new Error(`${read.name}: no physical limit, the read answered ${status} with ${statements.length} statements`);
  }
  const reads = Object.fromEntries(cases.map((read, index) => [`case-${index}`, recorded.get(read)!.statements]));
  const { child, fixture } = await forkServer<LimitFixture>(new URL('./physical-limit.ts', import.meta.url).href, [databaseUrl, JSON.stringify(reads)]);
  const rows: Row[] = [];
  try {
    for (const [index, read] of cases.entries()) {
      rows.push(await loadRow(child, { connections, url: fixture.answers[`case-${index}`]!.stringify }, { size, case: read.name, surface: 'physical limit' }));
    }
  } finally {
    child.disconnect();
  }
  return rows;
}

// ---------------------------------------------------------------- parent: the run

const postgresUrl = process.env['BENCH_POSTGRES_URL'] ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

/** autocannon's figures of `name` over `surface` at `size`. */
const figures = (rows: Row[], size: string, name: string, surface: string) => rows.find((row) => row.size === size && row.case === name && row.surface === surface);

async function main() {
  const [mode, databaseUrl] = process.argv.slice(2);
  if (mode === 'serve') return serve(databaseUrl!);
  if (!(await reachable(postgresUrl, 5432))) throw new Error(`bench/national.ts needs PostgreSQL: none at ${postgresUrl} (BENCH_POSTGRES_URL)`);
  const loadBefore = loadavg()[0]!;

  const todaySize = 'today (scale 1)';
  const nationalSize = `national (scale ${nationalScale})`;
  const today = await withScratchDatabase(postgresUrl, 'hallowgate_bench_today', async (url) => {
    const prepared = await prepare(url, 1);
    return { prepared, rows: await measure(todaySize, url, [listingCase]), plans: await explain(todaySize, url, [listingExplained]) };
  });
  const national = await withScratchDatabase(
    postgresUrl,
    'hallowgate_bench_national',
    async (url) => {
      const prepared = await prepare(url, nationalScale);
      refuseBelowNationalFloor(prepared);
      const eventsNear = [eventsNearCase(nearRadiusKm), eventsNearCase(widerRadiusKm)];
      const rows = [...(await measure(nationalSize, url, [listingCase, nearMeCase, ...eventsNear])), ...(await limitOf(nationalSize, url, [nearMeCase, eventsNear[0]!]))];
      const plans = await explain(nationalSize, url, [listingExplained, ...[nearMeCase, ...eventsNear].map((read) => ({ case: read, table: /latitude/ }))]);
      return { prepared, rows, plans };
    },
    { keep: Boolean(process.env['BENCH_NATIONAL_KEEP']) },
  );

  const rows = [...today.rows, ...national.rows];
  const listing = (['REST', 'GraphQL'] as const).map((surface) => {
    const [small, large] = [figures(rows, todaySize, listingCase.name, surface), figures(rows, nationalSize, listingCase.name, surface)];
    const ratio = (of: (row: Row) => number | undefined) => (small && large ? Number((of(large)! / of(small)!).toFixed(2)) : Number.NaN);
    const slowdown = ratio((row) => 1 / row['req/s']!);
    return {
      surface,
      'req/s today ÷ national': slowdown,
      'p99 national ÷ today': ratio((row) => row['p99 ms']),
      'server CPU national ÷ today': ratio((row) => Number(row['server CPU ms/req'])),
      goal: slowdown <= listingSlowdownGoal,
    };
  });
  const nearMe = (['REST', 'GraphQL'] as const).map((surface) => {
    const p99 = figures(rows, nationalSize, nearMeCase.name, surface)?.['p99 ms'];
    return { surface, 'p99 ms': p99 ?? null, goal: p99 !== undefined && p99 < nearP99GoalMs };
  });
  /** What the machine allows the near-me read at all (limitOf): a reference, not a contender. */
  const nearMeLimitP99 = figures(rows, nationalSize, nearMeCase.name, 'physical limit')?.['p99 ms'] ?? null;
  const loadAfter = loadavg()[0]!;

  console.log(`\nSeeded: today ${seededSummary(today.prepared)}; national ${seededSummary(national.prepared)}`);
  console.log(
    `Tonight (${dateTime(tonight.from)} – ${dateTime(tonight.to)}), within the ${nearRadiusKm} km box of ${home.name}: ${national.prepared.tonight.services} services, ` +
      `${national.prepared.tonight.slots} slots, ${national.prepared.tonight.tooFull} of them full or with fewer than ${partySize} places left`,
  );
  const plans = [...today.plans, ...national.plans];
  for (const plan of plans) console.log(`\nEXPLAIN ANALYZE, ${plan.case} (${plan.size}):\n${plan.plan}`);
  console.log(`\nautocannon, ${connections} connections, ${secondsPerRun} s per case after ${warmUpSeconds} s warm-up, every request executed`);
  console.table(rows);
  console.log(`City listing, national against today (goal: at most ${listingSlowdownGoal}× slower):`);
  console.table(listing);
  console.log(`Near me with room for ${partySize} tonight (goal: p99 under ${nearP99GoalMs} ms):`);
  console.table(nearMe);
  console.log(`Its physical limit (the same statements from a bare node:http + pg server, the same load): p99 ${nearMeLimitP99} ms`);
  console.log(
    `${cpus().length} cores shared by autocannon, the server and PostgreSQL; node ${process.version}; 1-minute load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after`,
  );
  console.log(
    JSON.stringify({
      bench: 'national',
      node: process.version,
      cores: cpus().length,
      load: { before: loadBefore, after: loadAfter },
      seeded: { today: withoutTonight(today.prepared), national: withoutTonight(national.prepared) },
      tonight: national.prepared.tonight,
      rows,
      listing,
      nearMe,
      nearMeLimitP99,
      plans: plans.map(({ plan: _plan, ...summary }) => summary),
    }),
  );
}

function refuseBelowNationalFloor(prepared: Prepared): void {
  for (const table of ['events', 'attractions', 'services'] as const) {
    if (prepared[table] < nationalFloor[table]) throw new Error(`the national directory holds ${prepared[table]} ${table}, fewer than ${nationalFloor[table]}`);
  }
}

const withoutTonight = ({ tonight: _tonight, ...counts }: Prepared & { tonight: Tonight }): Prepared => counts;

function seededSummary({ events, attractions, services, seedSeconds }: Prepared): string {
  const seeding = seedSeconds === undefined ? 'kept from an earlier run' : `seeded in ${seedSeconds.toFixed(1)} s`;
  return `${events} events, ${attractions} attractions, ${services} services (${seeding})`;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
