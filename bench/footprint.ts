/**
 * Start-up time and memory of the built server as `npm start` runs it (`npm run build` first):
 *
 *   npx tsx bench/footprint.ts
 *
 * - first embedded start: a fresh `./.data` (PGlite on disk), migrated and seeded, to the first answer;
 * - warm start on PostgreSQL: a database already migrated (npm run db:migrate) and seeded, to the first answer;
 * - idle RSS on PostgreSQL and on the embedded database: 10 s after the first answer, no load.
 * "The first answer" is the first 200 from GET /readyz (database reachable), polled every 10 ms.
 * Prints a table, then one JSON line of the figures. Needs PostgreSQL at BENCH_POSTGRES_URL
 * (default postgresql://postgres@127.0.0.1:5432/postgres).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFlags, withScratchDatabase } from './support.js';

const postgresUrl = process.env['BENCH_POSTGRES_URL'] ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
/** What `npm start` runs, Node's flags and all; BENCH_MAIN=build/main.js compares tsc's unbundled output, BENCH_SOURCE_MAPS=1 adds --enable-source-maps. */
const startCommand = [
  ...startFlags,
  ...(process.env['BENCH_SOURCE_MAPS'] ? ['--enable-source-maps'] : []),
  fileURLToPath(new URL(`../${process.env['BENCH_MAIN'] ?? 'build/bundle/main.js'}`, import.meta.url)),
];
const warmStarts = Number(process.env['BENCH_WARM_STARTS'] ?? 5);
const idleSeconds = Number(process.env['BENCH_IDLE_SECONDS'] ?? 10);
let nextPort = 4700;

interface Started {
  child: ChildProcess;
  url: string;
  /** Milliseconds from spawn to the first 200 of /readyz. */
  readyMs: number;
}

async function start(env: Record<string, string>, cwd: string): Promise<Started> {
  const port = nextPort++;
  const began = performance.now();
  const child = spawn(process.execPath, startCommand, { cwd, env: { ...process.env, NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1', ...env }, stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  let exited = false;
  child.once('exit', () => (exited = true));
  for (;;) {
    if (exited) throw new Error(`the server exited before answering (${JSON.stringify(env)})`);
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) return { child, url, readyMs: performance.now() - began };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function stop({ child }: Started): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Resident set size of a process, from /proc, in MB. */
async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

async function idleRss(started: Started): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
  return rssMb(started.child.pid!);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const scratch = await mkdtemp(join(tmpdir(), 'hallowgate-footprint-'));
try {
  // A first embedded start: migrate, seed, answer.
  const embedded = await start({}, scratch);
  const embeddedIdleRss = await idleRss(embedded);
  await stop(embedded);

  const postgres = await withScratchDatabase(postgresUrl, 'bench_footprint', async (databaseUrl) => {
    const env = { DATABASE_URL: databaseUrl, SECRETS_KEY: randomBytes(32).toString('base64') };
    const migrated = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('../src/db/cli.ts', import.meta.url)), 'migrate'], { env: { ...process.env, ...env } });
    if (migrated.status !== 0) throw new Error(`npm run db:migrate failed: ${migrated.stderr.toString()}`);
    await stop(await start({ ...env, SEED_ON_START: 'always' }, scratch));
    const warm: number[] = [];
    for (let run = 0; run < warmStarts; run++) {
      const started = await start(env, scratch);
      warm.push(started.readyMs);
      await stop(started);
    }
    const idle = await start(env, scratch);
    const rss = await idleRss(idle);
    await stop(idle);
    return { warm, rss };
  });

  const figures = {
    firstEmbeddedStartMs: Math.round(embedded.readyMs),
    warmPostgresStartMs: Math.round(median(postgres.warm)),
    warmPostgresStartsMs: postgres.warm.map(Math.round),
    idleRssPostgresMb: Math.round(postgres.rss),
    idleRssEmbeddedMb: Math.round(embeddedIdleRss),
  };
  console.log('| figure | value | goal |');
  console.log('|---|---|---|');
  console.log(`| first embedded start, migrated and seeded, to the first answer | ${figures.firstEmbeddedStartMs} ms | ≤ 6000 ms |`);
  console.log(
    `| warm start on PostgreSQL to the first answer (median of ${warmStarts}) | ${figures.warmPostgresStartMs} ms (${figures.warmPostgresStartsMs.join(', ')}) | ≤ 1500 ms |`,
  );
  console.log(`| idle RSS on PostgreSQL, ${idleSeconds} s after start | ${figures.idleRssPostgresMb} MB | ≤ 200 MB |`);
  console.log(`| idle RSS on the embedded database, ${idleSeconds} s after start | ${figures.idleRssEmbeddedMb} MB | |`);
  console.log(JSON.stringify({ bench: 'footprint', node: process.version, ...figures }));
} finally {
  await rm(scratch, { recursive: true, force: true });
}
