/**
 * Soak: a fixed mixed load against one server for BENCH_SOAK_SECONDS (default 600), reporting errors
 * (must be 0) and the server's resident memory over time (must be flat), every 30 s and as a verdict at the end.
 *
 *   npx tsx bench/soak.ts                 (BENCH_SOAK_SECONDS=120 for a short run)
 *
 * The server runs in a child process on a scratch PostgreSQL database (BENCH_POSTGRES_URL, else
 * postgresql://postgres@127.0.0.1:5432/postgres), migrated and seeded. The load, from autocannon with
 * 10 connections cycling through it: create a booking, list bookings, a directory page with
 * categories and images (REST), the same as GraphQL; beside it, 20 graphql-ws subscribers of the
 * account's booking events. RSS is read from /proc every 30 s; its slope is fitted after the first minute.
 */
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { createApiKey } from '../src/access/keys.js';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase, parseDatabaseUrl } from '../src/db/connection.js';
import { applyMigrations } from '../src/db/migrator.js';
import { seedDatabase } from '../src/db/seed.js';
import { newId } from '../src/shared/ids.js';
import { createSecretBox, randomSecretsKey } from '../src/shared/secrets.js';
import { autocannon, eventSelection, everyHour, forkServer, statusSummary, withScratchDatabase, closeWhenParentLeaves } from './support.js';

const seconds = Number(process.env['BENCH_SOAK_SECONDS'] ?? 600);
const sampleEverySeconds = 30;
const connections = 10;
const subscriberCount = 20;

interface Fixture {
  url: string;
  key: string;
  serviceId: string;
  pid: number;
}

// ---------------------------------------------------------------- child: the server

async function serve(databaseUrl: string) {
  const config = loadConfig({ DATABASE_URL: databaseUrl, SEED_ON_START: 'never', LOG_LEVEL: 'silent' });
  const database = await openDatabase(parseDatabaseUrl(databaseUrl), { poolSize: config.DATABASE_POOL_SIZE });
  await applyMigrations(database);
  await seedDatabase(database.prisma, { log: () => undefined });
  const { prisma } = database;
  const attraction = await prisma.attraction.findFirstOrThrow();
  // One slot takes every booking of the run: capacity is not what this measures.
  const service = await prisma.service.create({
    data: { id: newId('service'), name: 'Soak entry', attractionId: attraction.id, capacity: 10_000_000, ...everyHour() },
  });
  const account = await prisma.account.create({ data: { id: newId('account'), name: 'Soak' } });
  const secrets = createSecretBox(randomSecretsKey());
  const { key } = await createApiKey(prisma, secrets, { accountId: account.id, plan: 'enterprise', promo: true, scopes: ['bookings:read', 'bookings:write', 'directory:read'] });
  const app = createApp({ config, database, secrets });
  const url = await app.listen(0, '127.0.0.1');
  process.send!({ url, key, serviceId: service.id, pid: process.pid } satisfies Fixture);
  closeWhenParentLeaves(app, database);
}

// ---------------------------------------------------------------- parent: load, subscribers, samples

function residentMegabytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((row) => row.startsWith('VmRSS:'))!;
  return Number(line.replace(/\D+/g, '')) / 1024;
}

/** Least-squares slope of (minute, MB) points. */
function slope(points: [number, number][]): number {
  const n = points.length;
  const meanX = points.reduce((sum, [x]) => sum + x, 0) / n;
  const meanY = points.reduce((sum, [, y]) => sum + y, 0) / n;
  const covariance = points.reduce((sum, [x, y]) => sum + (x - meanX) * (y - meanY), 0);
  const variance = points.reduce((sum, [x]) => sum + (x - meanX) ** 2, 0);
  return variance === 0 ? 0 : covariance / variance;
}

async function soak(databaseUrl: string) {
  const { child, fixture } = await forkServer<Fixture>(import.meta.url, ['serve', databaseUrl]);
  const headers = { authorization: `Bearer ${fixture.key}`, 'content-type': 'application/json' };
  const startTime = new Date(Date.now() + 30 * 86_400_000);
  startTime.setUTCHours(19, 0, 0, 0);
  const requests = [
    {
      method: 'POST',
      path: '/v1/bookings',
      headers,
      body: JSON.stringify({ service_id: fixture.serviceId, start_time: startTime.toISOString().replace('.000Z', 'Z'), customer: { name: 'Soak', email: 'soak@example.com' } }),
    },
    { method: 'GET', path: '/v1/bookings?limit=20', headers },
    { method: 'GET', path: '/api/v1/events?city=Salem&include=categories,images&limit=20', headers },
    { method: 'POST', path: '/graphql', headers, body: JSON.stringify({ query: `{ events(city: "Salem", first: 20) { edges { node { ${eventSelection} } } } }` }) },
  ];

  let received = 0;
  const subscribers: Client[] = Array.from({ length: subscriberCount }, () => {
    const client = createClient({
      url: `${fixture.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: headers.authorization },
      retryAttempts: 0,
    });
    client.subscribe({ query: 'subscription { bookingEvents { id } }' }, { next: () => void received++, error: () => undefined, complete: () => undefined });
    return client;
  });

  // Tallied per answer as the run goes, so every sample shows the load and its errors so far.
  let answered = 0;
  let failed = 0;
  const run = autocannon({ url: fixture.url, connections, duration: seconds, requests });
  run.on('response', (_client: unknown, status: number) => {
    answered++;
    if (status >= 400) failed++;
  });
  run.on('reqError', () => void failed++);

  const samples: [number, number][] = [];
  const started = Date.now();
  const sample = () => {
    const minute = (Date.now() - started) / 60_000;
    const megabytes = residentMegabytes(fixture.pid);
    samples.push([minute, megabytes]);
    console.log(`${(minute * 60).toFixed(0).padStart(4)} s  requests ${answered}  errors ${failed}  RSS ${megabytes.toFixed(1)} MB  subscriber events ${received}`);
  };
  sample();
  const sampler = setInterval(sample, sampleEverySeconds * 1000);
  const result = await run;
  clearInterval(sampler);
  sample();
  await Promise.all(subscribers.map((client) => client.dispose()));
  child.disconnect();

  const errors = result.errors + result.non2xx;
  const settled = samples.filter(([minute]) => minute >= 1);
  const rssSlope = settled.length >= 2 ? slope(settled) : Number.NaN;
  console.log(`\n${seconds} s, ${connections} connections, ${subscriberCount} subscribers; ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)}`);
  console.log(`requests ${result.requests.total} (${result.requests.average.toFixed(0)} req/s), p99 ${result.latency.p99} ms, ${statusSummary(result)}`);
  console.log(`bookings created ${Math.round(result.requests.total / requests.length)}; subscriber events received ${received}`);
  console.log(`RSS ${samples[0]![1].toFixed(1)} → ${samples.at(-1)![1].toFixed(1)} MB`);
  console.log(`verdict: ${errors === 0 ? 'PASS' : 'FAIL'}, errors ${errors} (must be 0), RSS slope after the first minute ${rssSlope.toFixed(2)} MB/min (flat is ≈ 0)`);
  console.log(
    JSON.stringify({
      bench: 'soak',
      node: process.version,
      seconds,
      requests: result.requests.total,
      rps: result.requests.average,
      p99Ms: result.latency.p99,
      errors,
      subscriberEvents: received,
      rssStartMb: samples[0]![1],
      rssEndMb: samples.at(-1)![1],
      rssSlopeMbPerMinute: rssSlope,
    }),
  );
  if (errors > 0) process.exitCode = 1;
}

async function main() {
  const [mode, databaseUrl] = process.argv.slice(2);
  if (mode === 'serve') return serve(databaseUrl!);
  const postgresUrl = process.env['BENCH_POSTGRES_URL'] ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  await withScratchDatabase(postgresUrl, 'hallowgate_bench_soak', soak);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
