/**
 * What the access gate (authentication + rate limiting) adds to each request, in memory and in Redis.
 *
 *   npx tsx bench/access.ts
 *
 * Redis rows use REDIS_URL, else redis://127.0.0.1:6379 when reachable. The database is an
 * in-memory PGlite unless DATABASE_URL names a migrated PostgreSQL database (the gate reads a key
 * from it once per few seconds, so the choice hardly shows in these figures).
 *
 * Part 1 calls the gate in process (no HTTP), so its figures are the gate's own cost per request.
 * Part 2 drives a server in a child process with autocannon: POST /graphql `{ __typename }`
 * anonymously (no gate work) and with a key, so the difference is what a client sees.
 * Both use a clock that runs 6,000× fast (a one-minute window lasts 10 ms), so the load stays under
 * the enterprise limit of 10,000 per minute and every request does the full counting work.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { createAccessGate, type GateRequest } from '../src/access/gate.js';
import { createApiKey } from '../src/access/keys.js';
import { createApp } from '../src/app.js';
import { prepareDatabase } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { createAnnouncements } from '../src/events/bus.js';
import type { AppServices } from '../src/graphql/context.js';
import { newId } from '../src/shared/ids.js';
import { closeWhenParentLeaves } from './support.js';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { average: number; p50: number; p99: number };
  non2xx: number;
  errors: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const defaultRedisUrl = 'redis://127.0.0.1:6379';

/** 6,000× fast: 10 real milliseconds are one rate-limit minute. */
function acceleratedClock(): () => Date {
  const start = Date.now();
  return () => new Date(start + (Date.now() - start) * 6000);
}

function reachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || 6379) }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function openBenchDatabase() {
  const config = loadConfig({ DATABASE_URL: process.env['DATABASE_URL'] ?? 'pglite:memory', SEED_ON_START: 'never', LOG_LEVEL: 'silent' });
  const database = await prepareDatabase(config, () => undefined);
  const account = await database.prisma.account.create({ data: { id: newId('account'), name: 'Bench' } });
  const { key } = await createApiKey(database.prisma, database.secrets, { accountId: account.id, plan: 'enterprise', scopes: ['directory:read'] });
  return { config, database, key };
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

// ---------------------------------------------------------------- part 1: the gate in process

async function measureGate(label: string, redisUrl: string | undefined, key: string | null, services: AppServices) {
  const gate = createAccessGate(services, { redisUrl });
  const request: GateRequest = {
    method: 'POST',
    target: '/graphql',
    headers: key ? { authorization: `Bearer ${key}` } : {},
    remoteAddress: '127.0.0.1',
    body: Buffer.alloc(0),
  };
  for (let index = 0; index < 2_000; index++) await gate.admit(request);

  const samples: number[] = [];
  for (let index = 0; index < 20_000; index++) {
    const started = process.hrtime.bigint();
    await gate.admit(request);
    samples.push(Number(process.hrtime.bigint() - started) / 1000);
  }
  const concurrentCalls = 20_000;
  const concurrentStart = process.hrtime.bigint();
  for (let batch = 0; batch < concurrentCalls / 50; batch++) await Promise.all(Array.from({ length: 50 }, () => gate.admit(request)));
  const seconds = Number(process.hrtime.bigint() - concurrentStart) / 1e9;
  await gate.close();

  samples.sort((a, b) => a - b);
  const mean = samples.reduce((sum, value) => sum + value, 0) / samples.length;
  return {
    case: label,
    'mean µs': mean.toFixed(1),
    'p50 µs': percentile(samples, 0.5).toFixed(1),
    'p99 µs': percentile(samples, 0.99).toFixed(1),
    'admits/s (50 in flight)': Math.round(concurrentCalls / seconds),
  };
}

async function benchGate(redisUrl: string | undefined) {
  const { database, key } = await openBenchDatabase();
  const announcements = createAnnouncements({});
  const services: AppServices = {
    prisma: database.prisma,
    readRows: database.readRows,
    directReads: database.directReads,
    logger: pino({ level: 'silent' }),
    clock: acceleratedClock(),
    bookingEventBus: announcements.bookingEvents,
    availabilityBus: announcements.availability,
    revokedCredentials: announcements.revokedCredentials,
    config: loadConfig({}),
    secrets: database.secrets,
  };
  const rows = [await measureGate('anonymous (nothing to check)', undefined, null, services), await measureGate('key: auth + rate limit, memory', undefined, key, services)];
  if (redisUrl) rows.push(await measureGate('key: auth + rate limit, Redis', redisUrl, key, services));
  await announcements.close();
  await database.close();
  return rows;
}

// ---------------------------------------------------------------- part 2: over HTTP

/** Child process: a server over an in-memory database, reporting its URL and a key to the parent. */
async function serve(redisUrl: string | undefined) {
  const { config, database, key } = await openBenchDatabase();
  const app = createApp({ config: { ...config, ...(redisUrl ? { REDIS_URL: redisUrl } : {}) }, database, secrets: database.secrets, clock: acceleratedClock() });
  const url = await app.listen(0, '127.0.0.1');
  process.send!({ url, key });
  process.on('message', () => process.send!(process.cpuUsage()));
  closeWhenParentLeaves(app, database);
}

function startChild(redisUrl: string | undefined): Promise<{ child: ChildProcess; url: string; key: string }> {
  const child = fork(fileURLToPath(import.meta.url), ['serve', ...(redisUrl ? [redisUrl] : [])], { execArgv: ['--import', 'tsx'] });
  return new Promise((resolve, reject) => {
    child.once('message', (message) => resolve({ child, ...(message as { url: string; key: string }) }));
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
}

/** CPU time the server process has used so far, in µs (the load generator shares the machine, so req/s alone would blur). */
function serverCpuMicros(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once('message', (usage) => resolve((usage as NodeJS.CpuUsage).user + (usage as NodeJS.CpuUsage).system));
    child.send('cpu');
  });
}

interface Run {
  result: AutocannonResult;
  serverCpuMicrosPerRequest: number;
}

async function measuredLoad(server: { child: ChildProcess; url: string }, key: string | null, seconds: number): Promise<Run> {
  const before = await serverCpuMicros(server.child);
  const result = await load(server.url, key, seconds);
  const after = await serverCpuMicros(server.child);
  return { result, serverCpuMicrosPerRequest: (after - before) / result.requests.total };
}

async function load(url: string, key: string | null, seconds: number): Promise<AutocannonResult> {
  return autocannon({
    url: `${url}/graphql`,
    method: 'POST',
    connections: 20,
    duration: seconds,
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify({ query: '{ __typename }' }),
  });
}

/** Alternating runs, so drift on a shared machine (JIT warm-up, other work) falls on both sides alike. */
const rounds = 3;
const secondsPerRun = 5;

function mean(values: number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

async function benchHttp(redisUrl: string | undefined) {
  const rows = [];
  for (const [store, url] of [
    ['memory', undefined],
    ['Redis', redisUrl],
  ] as const) {
    if (store === 'Redis' && !url) continue;
    const server = await startChild(url);
    await load(server.url, null, 3);
    await load(server.url, server.key, 3);
    const runs: Record<'anonymous' | 'with key', Run[]> = { anonymous: [], 'with key': [] };
    for (let round = 0; round < rounds; round++) {
      runs.anonymous.push(await measuredLoad(server, null, secondsPerRun));
      runs['with key'].push(await measuredLoad(server, server.key, secondsPerRun));
    }
    server.child.disconnect();
    const summary = Object.fromEntries(
      Object.entries(runs).map(([label, measured]) => [
        label,
        {
          serverCpuMicros: mean(measured.map((run) => run.serverCpuMicrosPerRequest)),
          requestsPerSecond: mean(measured.map((run) => run.result.requests.average)),
          meanMs: mean(measured.map((run) => run.result.latency.average)),
          p50Ms: mean(measured.map((run) => run.result.latency.p50)),
          p99Ms: mean(measured.map((run) => run.result.latency.p99)),
          non2xx: measured.reduce((sum, run) => sum + run.result.non2xx, 0),
        },
      ]),
    );
    for (const [label, figures] of Object.entries(summary)) {
      rows.push({
        case: `${store} server, ${label}`,
        'server CPU µs/req': figures.serverCpuMicros.toFixed(0),
        'req/s': Math.round(figures.requestsPerSecond),
        'mean ms': figures.meanMs.toFixed(2),
        'p50 ms': figures.p50Ms.toFixed(1),
        'p99 ms': figures.p99Ms.toFixed(1),
        'non-2xx': figures.non2xx,
      });
    }
    const anonymous = summary['anonymous']!;
    const keyed = summary['with key']!;
    rows.push({
      case: `${store}: difference (key − anonymous)`,
      'server CPU µs/req': (keyed.serverCpuMicros - anonymous.serverCpuMicros).toFixed(0),
      'req/s': Math.round(keyed.requestsPerSecond - anonymous.requestsPerSecond),
      'mean ms': (keyed.meanMs - anonymous.meanMs).toFixed(2),
      'p50 ms': (keyed.p50Ms - anonymous.p50Ms).toFixed(1),
      'p99 ms': (keyed.p99Ms - anonymous.p99Ms).toFixed(1),
      'non-2xx': '',
    });
  }
  return rows;
}

async function main() {
  const [mode, redisArgument] = process.argv.slice(2);
  if (mode === 'serve') return serve(redisArgument);

  const candidate = process.env['REDIS_URL'] ?? defaultRedisUrl;
  const redisUrl = (await reachable(candidate)) ? candidate : undefined;
  if (!redisUrl) console.log(`(no Redis at ${candidate}: Redis rows skipped)`);

  console.log('\nPart 1: the access gate in process, 20,000 sequential admits each (µs per request)');
  const gate = await benchGate(redisUrl);
  console.table(gate);
  console.log(`\nPart 2: POST /graphql { __typename } over HTTP, autocannon 20 connections, ${rounds} alternating rounds of ${secondsPerRun} s each (means)`);
  const http = await benchHttp(redisUrl);
  console.table(http);
  console.log(JSON.stringify({ bench: 'access', node: process.version, gate, http }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
