/**
 * What a tenant sees while a dependency hangs: a server on PostgreSQL and Redis, both reached
 * through fault proxies (test/faults/proxy.ts), under a steady load of one tenant's reads; Redis is
 * frozen for 20 s (connections open, nothing answered), then PostgreSQL for 20 s.
 *
 *   npx tsx bench/faults.ts        (BENCH_FREEZE_MS=20000, BENCH_CLIENTS=8, BENCH_RATE=80)
 *
 * PostgreSQL: BENCH_POSTGRES_URL, else postgresql://postgres@127.0.0.1:5432/postgres (a scratch
 * database is made and dropped); Redis: BENCH_REDIS_URL, else redis://127.0.0.1:6379. The server
 * runs in a child process with the default deadlines. Each client sends GET /v1/services/:id and
 * GET /v1/bookings?limit=5 in turn, one at a time, at its share of BENCH_RATE requests per second
 * (under the key's limit of 10,000 a minute); a probe asks /readyz every second.
 *
 * A request answered "within its deadline" took at most the baseline's p99 plus the deadline of the
 * dependency that hangs: REDIS_COMMAND_TIMEOUT_MS for Redis, DATABASE_STATEMENT_TIMEOUT_MS + 1 s
 * (the client's give-up) for PostgreSQL; /readyz, 2 s. Prints a table per phase, then one JSON line.
 */
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createApiKey } from '../src/access/keys.js';
import { createApp } from '../src/app.js';
import { deadlineDefaults, loadConfig } from '../src/config.js';
import { openDatabase, parseDatabaseUrl } from '../src/db/connection.js';
import { applyMigrations } from '../src/db/migrator.js';
import { newId } from '../src/shared/ids.js';
import { createSecretBox, randomSecretsKey } from '../src/shared/secrets.js';
import { startFaultProxy } from '../test/faults/proxy.js';
import { closeWhenParentLeaves, createBenchService, forkServer, reachable, withScratchDatabase } from './support.js';

const freezeMs = Number(process.env['BENCH_FREEZE_MS'] ?? 20_000);
const clients = Number(process.env['BENCH_CLIENTS'] ?? 8);
const rate = Number(process.env['BENCH_RATE'] ?? 80);
const baselineMs = 10_000;
const recoveryMs = 10_000;
const readinessDeadlineMs = 2000;

interface Fixture {
  url: string;
  key: string;
  serviceId: string;
}

// ---------------------------------------------------------------- child: the server

async function serve(databaseUrl: string, redisUrl: string) {
  const secretsKey = randomSecretsKey();
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    SEED_ON_START: 'never',
    LOG_LEVEL: 'silent',
    SECRETS_KEY: secretsKey.toString('base64'),
  });
  const database = await openDatabase(parseDatabaseUrl(databaseUrl), { poolSize: config.DATABASE_POOL_SIZE, deadlines: config });
  await applyMigrations(database);
  const { prisma } = database;
  const { service } = await createBenchService(prisma);
  const account = await prisma.account.create({ data: { id: newId('account'), name: 'Bench' } });
  const secrets = createSecretBox(secretsKey);
  // Not promotional: every request is counted, in Redis while it answers.
  const { key } = await createApiKey(prisma, secrets, { accountId: account.id, plan: 'enterprise', scopes: ['bookings:read', 'bookings:write'] });
  const app = createApp({ config, database, secrets });
  const url = await app.listen(0, '127.0.0.1');
  process.send!({ url, key, serviceId: service.id } satisfies Fixture);
  closeWhenParentLeaves(app, database);
}

// ---------------------------------------------------------------- parent: proxies, load and figures

type Phase = 'baseline' | 'redis frozen' | 'redis back' | 'postgres frozen' | 'postgres back';

interface Answer {
  phase: Phase;
  status: number;
  ms: number;
}

function percentile(sorted: number[], fraction: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

const round = (ms: number) => Math.round(ms * 10) / 10;

async function timed(url: string, key?: string): Promise<{ status: number; ms: number; body: string }> {
  const startedAt = performance.now();
  try {
    const response = await fetch(url, key ? { headers: { authorization: `Bearer ${key}` } } : {});
    const body = await response.text();
    return { status: response.status, ms: performance.now() - startedAt, body };
  } catch {
    return { status: 0, ms: performance.now() - startedAt, body: '' };
  }
}

async function run(postgresUrl: string, redisUrl: string) {
  const postgresProxy = await startFaultProxy(postgresUrl);
  const redisProxy = await startFaultProxy(redisUrl);
  const redisTarget = new URL(redisProxy.url);
  redisTarget.searchParams.set('keyPrefix', `bench-${randomUUID()}:`);
  const { child, fixture } = await forkServer<Fixture>(import.meta.url, ['serve', postgresProxy.url, redisTarget.toString()]);
  const load = { before: loadavg()[0]!, after: 0 };

  let phase: Phase = 'baseline';
  let running = true;
  const answers: Answer[] = [];
  const readiness: (Answer & { checks: string })[] = [];
  const paths = [`/v1/services/${fixture.serviceId}`, '/v1/bookings?limit=5'];
  const intervalMs = (1000 * clients) / rate;
  const client = async (index: number) => {
    for (let sent = index; running; sent++) {
      const at = phase;
      const { status, ms } = await timed(`${fixture.url}${paths[sent % paths.length]}`, fixture.key);
      answers.push({ phase: at, status, ms });
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, intervalMs - ms)));
    }
  };
  const probe = async () => {
    while (running) {
      const at = phase;
      const { status, ms, body } = await timed(`${fixture.url}/readyz`);
      const checks = status ? Object.entries((JSON.parse(body) as { checks: Record<string, string> }).checks).map(([name, check]) => `${name} ${check}`) : [];
      readiness.push({ phase: at, status, ms, checks: checks.join(', ') });
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1000 - ms)));
    }
  };
  const loadDone = Promise.all([...Array.from({ length: clients }, (_, index) => client(index)), probe()]);
  const hold = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  await hold(baselineMs);
  phase = 'redis frozen';
  redisProxy.freeze();
  await hold(freezeMs);
  redisProxy.restore();
  phase = 'redis back';
  await hold(recoveryMs);
  phase = 'postgres frozen';
  postgresProxy.freeze();
  await hold(freezeMs);
  postgresProxy.restore();
  phase = 'postgres back';
  await hold(recoveryMs);
  running = false;
  await loadDone;
  load.after = loadavg()[0]!;
  child.disconnect();
  await new Promise((resolve) => child.once('exit', resolve));
  await postgresProxy.close();
  await redisProxy.close();

  const baselineP99 = percentile(
    answers
      .filter((answer) => answer.phase === 'baseline')
      .map((answer) => answer.ms)
      .sort((a, b) => a - b),
    0.99,
  );
  const dependencyDeadlineMs: Partial<Record<Phase, number>> = {
    'redis frozen': deadlineDefaults.REDIS_COMMAND_TIMEOUT_MS,
    'postgres frozen': deadlineDefaults.DATABASE_STATEMENT_TIMEOUT_MS + 1000,
  };
  const phases: Phase[] = ['baseline', 'redis frozen', 'redis back', 'postgres frozen', 'postgres back'];
  const rows = phases.map((name) => {
    const inPhase = answers.filter((answer) => answer.phase === name);
    const latencies = inPhase.map((answer) => answer.ms).sort((a, b) => a - b);
    const deadlineMs = baselineP99 + (dependencyDeadlineMs[name] ?? 0);
    const statuses: Record<string, number> = {};
    for (const { status } of inPhase) statuses[status] = (statuses[status] ?? 0) + 1;
    const probes = readiness.filter((answer) => answer.phase === name);
    const probeLatencies = probes.map((answer) => answer.ms).sort((a, b) => a - b);
    return {
      phase: name,
      requests: inPhase.length,
      statuses: Object.entries(statuses)
        .map(([status, count]) => `${status}×${count}`)
        .join(' '),
      p50Ms: round(percentile(latencies, 0.5)),
      p99Ms: round(percentile(latencies, 0.99)),
      maxMs: round(latencies.at(-1) ?? Number.NaN),
      deadlineMs: round(deadlineMs),
      withinDeadline: inPhase.filter((answer) => answer.ms <= deadlineMs).length,
      readyzMaxMs: round(probeLatencies.at(-1) ?? Number.NaN),
      readyzWithin2s: probes.filter((answer) => answer.ms <= readinessDeadlineMs).length,
      readyzProbes: probes.length,
      readyz: [...new Set(probes.map((answer) => `${answer.status} ${answer.checks}`))].join(' | '),
    };
  });
  console.table(rows);
  console.log(JSON.stringify({ bench: 'faults', node: process.version, clients, rate, freezeMs, loadAverage: load, rows }));
}

async function main() {
  const [mode, databaseUrl, redisUrl] = process.argv.slice(2);
  if (mode === 'serve') return serve(databaseUrl!, redisUrl!);
  const postgresUrl = process.env['BENCH_POSTGRES_URL'] ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  const redis = process.env['BENCH_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
  if (!(await reachable(postgresUrl, 5432)) || !(await reachable(redis, 6379))) {
    throw new Error(`bench/faults.ts needs PostgreSQL (${postgresUrl}) and Redis (${redis})`);
  }
  await withScratchDatabase(postgresUrl, 'hallowgate_bench_faults', (url) => run(url, redis));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
