/**
 * The throughput cost of per-key usage recording: `GET /api/v1/categories` with ANALYTICS_ENABLED
 * off and on, alternating over several rounds so machine drift hits both alike.
 *
 *   npx tsx bench/analytics.ts
 *
 * Each run starts a fresh server child process (in-memory PGlite with the categories) so autocannon
 * (20 connections) does not share the server's event loop. The key is a promo key (no rate limit).
 * Recording flushes at its default interval (10 s), so each measured run includes a flush.
 *
 * On a shared, busy machine req/s swings by more than the effect measured, so the bench also
 * reports the server's CPU time per request (process.cpuUsage() of the server child around each
 * measured run), which contention for the cores does not inflate, and the CPU time of the
 * recording work alone (record() per request, one flush).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { createApiKey } from '../src/access/keys.js';
import { createUsageRecorder } from '../src/analytics/recorder.js';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase, parseDatabaseUrl } from '../src/db/connection.js';
import { applyMigrations } from '../src/db/migrator.js';
import { newId } from '../src/shared/ids.js';
import { createSecretBox, randomSecretsKey } from '../src/shared/secrets.js';
import { closeWhenParentLeaves } from './support.js';

interface AutocannonResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const connections = 20;
const secondsPerRun = 10;
const warmUpSeconds = 3;
const rounds = 3;
const categorySlugs = ['haunted-house', 'pumpkin-patch', 'hayride', 'corn-maze', 'ghost-tour', 'festival', 'escape-room', 'trick-or-treat'];

interface Fixture {
  url: string;
  key: string;
}

// ---------------------------------------------------------------- child: the server

async function serve(analyticsEnabled: string) {
  const config = loadConfig({ DATABASE_URL: 'pglite:memory', LOG_LEVEL: 'silent', ANALYTICS_ENABLED: analyticsEnabled });
  const database = await openDatabase(parseDatabaseUrl(config.DATABASE_URL), { poolSize: config.DATABASE_POOL_SIZE });
  await applyMigrations(database);
  const { prisma } = database;
  await prisma.category.createMany({
    data: categorySlugs.map((slug) => ({ id: newId('category'), slug, name: slug.replace('-', ' ') })),
  });
  const account = await prisma.account.create({ data: { id: newId('account'), name: 'Bench' } });
  const secrets = createSecretBox(randomSecretsKey());
  const { key } = await createApiKey(prisma, secrets, { accountId: account.id, plan: 'enterprise', promo: true, scopes: ['directory:read'] });
  const app = createApp({ config, database, secrets });
  const url = await app.listen(0, '127.0.0.1');
  process.send!({ url, key } satisfies Fixture);
  // The parent asks for the server's CPU time around each measured run.
  process.on('message', () => process.send!(process.cpuUsage()));
  closeWhenParentLeaves(app, database);
}

function startServer(analyticsEnabled: boolean): Promise<{ child: ChildProcess; fixture: Fixture }> {
  const child = fork(fileURLToPath(import.meta.url), ['serve', analyticsEnabled ? '1' : '0'], { execArgv: ['--import', 'tsx'] });
  return new Promise((resolve, reject) => {
    child.once('message', (fixture) => resolve({ child, fixture: fixture as Fixture }));
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
}

// ---------------------------------------------------------------- parent: the load

function cpuMicroseconds(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once('message', (usage) => resolve((usage as NodeJS.CpuUsage).user + (usage as NodeJS.CpuUsage).system));
    child.send('cpu');
  });
}

interface Run {
  result: AutocannonResult;
  cpuMicrosecondsPerRequest: number;
}

async function measure(analyticsEnabled: boolean): Promise<Run> {
  const { child, fixture } = await startServer(analyticsEnabled);
  try {
    const load = (duration: number) => autocannon({ url: `${fixture.url}/api/v1/categories`, connections, duration, headers: { authorization: `Bearer ${fixture.key}` } });
    await load(warmUpSeconds);
    const cpuBefore = await cpuMicroseconds(child);
    const result = await load(secondsPerRun);
    const cpuAfter = await cpuMicroseconds(child);
    if (result.non2xx > 0) throw new Error(`${result.non2xx} answers were not 2xx`);
    return { result, cpuMicrosecondsPerRequest: (cpuAfter - cpuBefore) / (result.requests.average * secondsPerRun) };
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.disconnect();
    await exited;
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The recording work alone: record() calls spread over 50 keys × 20 routes × 2 status classes, then one flush of them. */
async function measureRecordingWork(): Promise<{ nanosecondsPerRecord: number; flushMs: number; buckets: number }> {
  const database = await openDatabase(parseDatabaseUrl('pglite:memory'), { poolSize: 1 });
  try {
    await applyMigrations(database);
    const { prisma } = database;
    const account = await prisma.account.create({ data: { id: newId('account'), name: 'Bench' } });
    const keyIds: string[] = [];
    for (let index = 0; index < 50; index++) {
      keyIds.push((await createApiKey(prisma, createSecretBox(randomSecretsKey()), { accountId: account.id, plan: 'pro', scopes: ['directory:read'] })).record.id);
    }
    const recorder = createUsageRecorder({ prisma, logger: pino({ level: 'silent' }), clock: () => new Date(), flushMs: 60_000, stopDeadlineMs: 10_000 });
    const routes = Array.from({ length: 20 }, (_, index) => `GET /v1/route${index}`);
    const calls = 1_000_000;
    const started = process.cpuUsage();
    for (let index = 0; index < calls; index++) {
      recorder.record({ apiKeyId: keyIds[index % 50]!, route: routes[index % 20]!, status: index % 7 ? 200 : 404, latencyMs: 3.2, bytes: 512 });
    }
    const recordCpu = process.cpuUsage(started);
    const nanosecondsPerRecord = ((recordCpu.user + recordCpu.system) * 1e3) / calls;
    const flushStarted = performance.now();
    await recorder.flush();
    const flushMs = performance.now() - flushStarted;
    const buckets = await prisma.usageBucket.count();
    return { nanosecondsPerRecord, flushMs, buckets };
  } finally {
    await database.close();
  }
}

async function main() {
  const work = await measureRecordingWork();
  console.log(`record(): ${work.nanosecondsPerRecord.toFixed(0)} ns CPU per request; one flush of ${work.buckets} buckets: ${work.flushMs.toFixed(1)} ms`);
  const runs: Record<'off' | 'on', Run[]> = { off: [], on: [] };
  for (let round = 1; round <= rounds; round++) {
    for (const mode of ['off', 'on'] as const) {
      const run = await measure(mode === 'on');
      runs[mode].push(run);
      const { result } = run;
      console.log(
        `round ${round} analytics ${mode.padEnd(3)} ${result.requests.average.toFixed(0).padStart(6)} req/s  p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms  server CPU ${run.cpuMicrosecondsPerRequest.toFixed(0)} µs/request`,
      );
    }
  }
  const off = median(runs.off.map((run) => run.result.requests.average));
  const on = median(runs.on.map((run) => run.result.requests.average));
  const cpuOff = median(runs.off.map((run) => run.cpuMicrosecondsPerRequest));
  const cpuOn = median(runs.on.map((run) => run.cpuMicrosecondsPerRequest));
  const cost = ((off - on) / off) * 100;
  console.log(`\nGET /api/v1/categories, ${connections} connections, median of ${rounds} × ${secondsPerRun} s per mode`);
  console.log(`analytics off: ${off.toFixed(0)} req/s`);
  console.log(`analytics on:  ${on.toFixed(0)} req/s`);
  console.log(`throughput cost of recording (HTTP): ${cost.toFixed(2)} % (${cost < 5 ? 'under' : 'NOT under'} the 5 % budget)`);
  const cpuCost = ((cpuOn - cpuOff) / cpuOff) * 100;
  console.log(`server CPU per request: off ${cpuOff.toFixed(0)} µs, on ${cpuOn.toFixed(0)} µs: ${cpuCost.toFixed(2)} % (${cpuCost < 5 ? 'under' : 'NOT under'} the 5 % budget)`);
  console.log(
    `recording work alone: ${work.nanosecondsPerRecord.toFixed(0)} ns CPU per request = ${((work.nanosecondsPerRecord / (cpuOff * 1e3)) * 100).toFixed(3)} % of a request's CPU time`,
  );
  console.log(
    JSON.stringify({
      bench: 'analytics',
      node: process.version,
      offRps: off,
      onRps: on,
      throughputCostPercent: cost,
      cpuCostPercent: cpuCost,
      recordNs: work.nanosecondsPerRecord,
    }),
  );
}

if (process.argv[2] === 'serve') await serve(process.argv[3]!);
else await main();
