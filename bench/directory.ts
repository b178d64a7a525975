/**
 * Directory throughput over HTTP: a page of 50 events of one seeded city with categories and images,
 * as REST (rendered, and answered from the response cache), as the REST 304 a client with the ETag gets,
 * and as its GraphQL twin (executed, and answered from the response cache); against in-memory PGlite
 * and, when reachable, PostgreSQL. It also counts the SQL statements on directory tables each
 * request costs.
 *
 *   npx tsx bench/directory.ts
 *
 * PostgreSQL rows use BENCH_POSTGRES_URL, else postgresql://postgres@127.0.0.1:5432/postgres when
 * reachable; the bench creates a fresh database there, migrates and seeds it, and drops it afterwards.
 * The server runs in a child process, so autocannon (20 connections) does not share its event loop;
 * both still share this machine's cores with the database, so the server's CPU time per request is
 * the steadier figure when the machine is busy. Statements per request count those on directory
 * tables; requests still in flight when a run ends add a little. The key is a promo key (no rate limit).
 */
import { createApiKey } from '../src/access/keys.js';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase, parseDatabaseUrl } from '../src/db/connection.js';
import { applyMigrations } from '../src/db/migrator.js';
import { seedDatabase } from '../src/db/seed.js';
import { newId } from '../src/shared/ids.js';
import { createSecretBox, randomSecretsKey } from '../src/shared/secrets.js';
import {
  answerCounters,
  autocannon,
  cityEventsQuery,
  cpuMicros,
  executeEveryTime,
  forkServer,
  reachable,
  renderEveryTime,
  serverCounters,
  statusSummary,
  withScratchDatabase,
  closeWhenParentLeaves,
} from './support.js';

const connections = 20;
const secondsPerRun = 10;
const warmUpSeconds = 3;
const pageSize = 50;

interface Fixture {
  url: string;
  key: string;
  city: string;
}

// ---------------------------------------------------------------- child: the server

/** Statements on directory tables; the server's background work (usage flushes, key refreshes) uses others. */
const directoryTable = /"(events|attractions|categories|images|_CategoryToEvent|_AttractionToCategory)"|\b(events|directory_version)\b/;

async function serve(databaseUrl: string) {
  const config = loadConfig({ DATABASE_URL: databaseUrl, SEED_ON_START: 'never', LOG_LEVEL: 'silent', DATABASE_POOL_SIZE: '10' });
  let statements = 0;
  const countDirectoryStatement = (sql: string) => {
    if (directoryTable.test(sql)) statements++;
  };
  const database = await openDatabase(parseDatabaseUrl(databaseUrl), { poolSize: config.DATABASE_POOL_SIZE, onQuery: countDirectoryStatement });
  await applyMigrations(database);
  const { prisma } = database;
  await seedDatabase(prisma, { log: () => undefined });
  const [busiest] = await prisma.event.groupBy({ by: ['city'], _count: { id: true }, orderBy: { _count: { id: 'desc' } }, take: 1 });
  const account = await prisma.account.create({ data: { id: newId('account'), name: 'Bench' } });
  const secrets = createSecretBox(randomSecretsKey());
  const { key } = await createApiKey(prisma, secrets, { accountId: account.id, plan: 'enterprise', promo: true, scopes: ['directory:read'] });
  const app = createApp({ config, database, secrets });
  const url = await app.listen(0, '127.0.0.1');
  process.send!({ url, key, city: busiest!.city } satisfies Fixture);
  // The parent asks for the running counts around each measured run.
  answerCounters(() => statements);
  closeWhenParentLeaves(app, database);
}

// ---------------------------------------------------------------- parent: the load

/**
 * autocannon options per case (the path goes inside `url`). Responses are cached under the directory's
 * data version, so a repeated request measures the response cache; the render and execute cases
 * make every request new in a way the answer ignores, so each one runs the GraphQL operation.
 */
async function cases(fixture: Fixture): Promise<Array<[string, Record<string, unknown>]>> {
  const path = `/api/v1/events?city=${encodeURIComponent(fixture.city)}&include=categories,images&limit=${pageSize}`;
  const first = await fetch(`${fixture.url}${path}`, { headers: { authorization: `Bearer ${fixture.key}` } });
  const etag = first.headers.get('etag');
  if (first.status !== 200 || !etag) throw new Error(`GET ${path} answered ${first.status} without an ETag`);
  const graphql = { url: `${fixture.url}/graphql`, headers: { authorization: `Bearer ${fixture.key}`, 'content-type': 'application/json' } };
  const variables = { city: fixture.city, first: pageSize };
  return [
    [`GET ${path}, a new URL each time (render)`, { url: fixture.url, requests: renderEveryTime(path) }],
    [`GET ${path}, repeated (response cache)`, { url: `${fixture.url}${path}` }],
    ['the same GET with If-None-Match (304)', { url: `${fixture.url}${path}`, headers: { authorization: `Bearer ${fixture.key}`, 'if-none-match': etag } }],
    [`POST /graphql events(city, first: ${pageSize}) { …, categories, images }, executed each time`, { ...graphql, requests: executeEveryTime(cityEventsQuery, variables) }],
    [`the same query, repeated (response cache)`, { ...graphql, method: 'POST', body: JSON.stringify({ query: cityEventsQuery, variables }) }],
  ];
}

async function benchDatabase(label: string, databaseUrl: string) {
  const { child, fixture } = await forkServer<Fixture>(import.meta.url, ['serve', databaseUrl]);
  const rows = [];
  try {
    for (const [name, options] of await cases(fixture)) {
      const run = (seconds: number) => autocannon({ connections, duration: seconds, headers: { authorization: `Bearer ${fixture.key}` }, ...options });
      await run(warmUpSeconds);
      const before = await serverCounters(child);
      const result = await run(secondsPerRun);
      const after = await serverCounters(child);
      const perRequest = (value: number) => value / result.requests.total;
      rows.push({
        database: label,
        case: name,
        'req/s': Math.round(result.requests.average),
        'p50 ms': result.latency.p50,
        'p99 ms': result.latency.p99,
        // CPU time is what the server itself spent; req/s and latency also show the contention for this machine's cores.
        'server CPU ms/req': (perRequest(cpuMicros(after.cpu) - cpuMicros(before.cpu)) / 1000).toFixed(2),
        'directory SQL/req': perRequest(after.statements - before.statements).toFixed(2),
        statuses: statusSummary(result),
        errors: result.errors,
      });
    }
  } finally {
    child.disconnect();
  }
  return { city: fixture.city, rows };
}

async function main() {
  const [mode, databaseUrl] = process.argv.slice(2);
  if (mode === 'serve') return serve(databaseUrl!);

  const pglite = await benchDatabase('PGlite (memory)', 'pglite:memory');
  const rows = [...pglite.rows];
  const postgresUrl = process.env['BENCH_POSTGRES_URL'] ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  if (await reachable(postgresUrl, 5432)) {
    rows.push(...(await withScratchDatabase(postgresUrl, 'hallowgate_bench_directory', (url) => benchDatabase('PostgreSQL (pool 10)', url))).rows);
  } else {
    console.log(`(no PostgreSQL at ${postgresUrl}: its rows are skipped)`);
  }
  console.log(`\nDirectory over HTTP (city=${pglite.city}): autocannon, ${connections} connections, ${secondsPerRun} s per case after ${warmUpSeconds} s warm-up`);
  console.table(rows);
  console.log(JSON.stringify({ bench: 'directory', node: process.version, rows }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
