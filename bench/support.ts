/**
 * Pieces every HTTP bench needs: autocannon, a server in a child process (so the load generator
 * does not share its event loop), and a scratch PostgreSQL database.
 */
import { fork, type ChildProcess, type ForkOptions } from 'node:child_process';
import type { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { PrismaClient } from '../src/generated/prisma/client.js';
import { newId } from '../src/shared/ids.js';

export interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { average: number; p50: number; p99: number };
  non2xx: number;
  errors: number;
  statusCodeStats: Record<string, { count: number }>;
}
/** A run: awaited for its result; meanwhile it emits 'response' (client, status) and 'reqError' per request. */
export type AutocannonRun = PromiseLike<AutocannonResult> & Pick<EventEmitter, 'on'>;
export type Autocannon = (options: Record<string, unknown>) => AutocannonRun;
export const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** `200×505 304×12`: what a run answered. */
export function statusSummary(result: Pick<AutocannonResult, 'statusCodeStats'>): string {
  return Object.entries(result.statusCodeStats)
    .map(([status, { count }]) => `${status}×${count}`)
    .join(' ');
}

/** The flags `npm start` gives Node (package.json's start script), so a bench server's heap is sized as a deployed one's. */
export const startFlags = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } }).scripts.start
  .split(/\s+/)
  .filter((word) => word.startsWith('--'));

/**
 * How a bench server runs: through tsx, in production mode, as deployed (README, NODE_ENV: graphql-js
 * skips its development checks; Node's flags as `npm start` gives them), with `env` over this process's environment.
 * BENCH_CPU_PROFILE=<dir> writes the server's V8 CPU profile there when it exits.
 */
export function benchServerOptions(env: Record<string, string> = {}): ForkOptions {
  return {
    execArgv: [...startFlags, '--import', 'tsx', ...(process.env['BENCH_CPU_PROFILE'] ? ['--cpu-prof', `--cpu-prof-dir=${process.env['BENCH_CPU_PROFILE']}`] : [])],
    env: { ...process.env, NODE_ENV: 'production', ...env },
  };
}

/**
 * Runs `script` (a bench file's import.meta.url) again in a child process with `args`; resolves
 * with the child and the first message it sends (its fixture: URL, key, …). `options` can run
 * another script under another Node (the PostGraphile peer of bench/race.ts).
 */
export function forkServer<Fixture>(script: string, args: string[], options: ForkOptions = benchServerOptions()): Promise<{ child: ChildProcess; fixture: Fixture }> {
  const child = fork(fileURLToPath(script), args, options);
  return new Promise((resolve, reject) => {
    child.once('message', (fixture) => resolve({ child, fixture: fixture as Fixture }));
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
}

/** SQL statements a bench server has sent and the CPU time it has used so far. */
export interface ServerCounters {
  statements: number;
  cpu: NodeJS.CpuUsage;
}

/** In a forked bench server: answer every message from the parent with the running counters. */
export function answerCounters(statements: () => number): void {
  process.on('message', () => process.send!({ statements: statements(), cpu: process.cpuUsage() } satisfies ServerCounters));
}

/** In a forked bench server: close the app, then its database, and exit when the parent lets go. */
export function closeWhenParentLeaves(app: { close(): Promise<void> }, database: { close(): Promise<void> }): void {
  process.once(
    'disconnect',
    () =>
      void app
        .close()
        .then(() => database.close())
        .then(() => process.exit(0)),
  );
}

/** In the parent: ask a forked bench server for its counters. */
export function serverCounters(child: ChildProcess): Promise<ServerCounters> {
  return new Promise((resolve) => {
    child.once('message', (message) => resolve(message as ServerCounters));
    child.send('counters');
  });
}

export const cpuMicros = (usage: NodeJS.CpuUsage) => usage.user + usage.system;

/** The GraphQL selection the REST directory route builds for an event without `include` or `fields`. */
export const eventFields = `
      id title description city region venue address latitude longitude startsAt endsAt timezone
      priceMin priceMax currency url attractionId updatedAt`;

/**
 * The GraphQL selection the REST directory route builds for `include=categories,images` without
 * `fields`: one event in full with its categories and images.
 */
export const eventSelection = `${eventFields}
      categories { id slug name }
      images { id url width height alt }`;

/** A page of a city's events in full (eventSelection), as `GET /api/v1/events?city=…&include=categories,images&limit=…` reads it. */
export const cityEventsQuery = `query($city: String, $first: Int) {
  events(city: $city, first: $first) {
    edges { node { ${eventSelection} } }
    pageInfo { hasNextPage endCursor }
  }
}`;

/** Whether something listens at the URL's host and port. */
export function reachable(url: string, defaultPort: number): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || defaultPort) }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * A fresh PostgreSQL database named `<prefix>_<pid>` on the server at `serverUrl`, dropped afterwards;
 * with `keep`, the database named `prefix`, created when missing and left for the next run.
 */
export async function withScratchDatabase<T>(serverUrl: string, prefix: string, use: (url: string) => Promise<T>, { keep = false } = {}): Promise<T> {
  const name = keep ? prefix : `${prefix}_${process.pid}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  if (!rowCount) await admin.query(`CREATE DATABASE ${name}`);
  try {
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    return await use(url.toString());
  } finally {
    if (!keep) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

/**
 * autocannon requests for a GET that runs its operation every time: the router keeps each GET answer
 * under (data version, URL), so each request gets a new URL through `_`, the cache-buster every
 * route ignores (any other parameter a route does not take is refused).
 */
export function renderEveryTime(path: string) {
  let renders = 0;
  const separator = path.includes('?') ? '&' : '?';
  return [{ method: 'GET', setupRequest: (request: object) => ({ ...request, path: `${path}${separator}_=${renders++}` }) }];
}

/**
 * autocannon requests for a GraphQL query that executes every time: the response cache keys by (data
 * version, session, document, variables), so each request carries a new variable the operation
 * does not declare (GraphQL ignores it).
 */
export function executeEveryTime(query: string, variables: Record<string, unknown>) {
  let executions = 0;
  return [{ method: 'POST', setupRequest: (request: object) => ({ ...request, body: JSON.stringify({ query, variables: { ...variables, render: executions++ } }) }) }];
}

/**
 * A schedule on which every whole UTC hour from yesterday to 800 days ahead is a slot (00:00–12:00
 * and 12:00–00:00 every day, 30-minute visits): what the benches book at.
 */
export function everyHour(now = Date.now()) {
  const day = (time: number) => new Date(Math.floor(time / 86_400_000) * 86_400_000);
  return {
    durationMinutes: 30,
    timezone: 'UTC',
    slotMinutes: 60,
    seasonStart: day(now - 86_400_000),
    seasonEnd: day(now + 800 * 86_400_000),
    openingHours: [1, 2, 3, 4, 5, 6, 7].flatMap((weekday) => [
      { weekday, opens: '00:00', closes: '12:00' },
      { weekday, opens: '12:00', closes: '00:00' },
    ]),
  };
}

/** The attraction and the bookable service the benches book at: every hour open, capacity far above what one run books, so every create does the full capacity work and succeeds. */
export async function createBenchService(prisma: PrismaClient) {
  const attraction = await prisma.attraction.create({
    data: { id: newId('attraction'), name: 'Bench Manor', description: 'Benchmark fixture', city: 'Salem', cityKey: 'salem', region: 'MA' },
  });
  const service = await prisma.service.create({
    data: { id: newId('service'), name: 'Bench entry', attractionId: attraction.id, capacity: 1_000_000, ...everyHour() },
  });
  return { attraction, service };
}
