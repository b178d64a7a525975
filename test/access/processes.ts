import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildOutdatedBy } from '../../bin/build-stamp.js';
import type { Database } from '../../src/db/connection.js';
import { testSecretsKey } from '../support/secrets.js';

export const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
/** tsx's loader by its path, so a process started in another directory (`cwd`) finds it too. */
export const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

export interface ProcessOptions {
  /** The working directory, where the embedded database (./.data) lives; the project root unless given. */
  cwd?: string;
  /** Run the built server (build/bundle/main.js, what `npm start` runs) even when build/ is older than the sources. */
  built?: boolean;
  /** The CLI's entry script, for a copy of the project laid out differently; bin/hallowgate.js of this one unless given. */
  cliEntry?: string;
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `npx hallowgate …` as an operator would (the package's bin), with only the given environment on top of PATH. */
export function runCli(args: string[], env: Record<string, string>, options: ProcessOptions = {}): Promise<Finished> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [options.cliEntry ?? join(projectRoot, 'bin/hallowgate.js'), ...args],
      { cwd: options.cwd ?? projectRoot, env: { PATH: process.env['PATH'] ?? '', SECRETS_KEY: testSecretsKey, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });
}

export interface ServerProcess {
  url: string;
  /** What it wrote to stdout and stderr up to its "listening on" line. */
  startupOutput: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** A server process that ended before listening: its exit code and what it wrote to stderr. */
export class ServerExitedEarly extends Error {
  constructor(
    readonly code: number | null,
    readonly stderr: string,
    message: string,
  ) {
    super(message);
  }
}

/** Starts one server process for each environment, together; if any fails, stops those that came up (no orphan) and rejects. */
export async function startServerProcesses(envs: Record<string, string>[]): Promise<ServerProcess[]> {
  const started = await Promise.allSettled(envs.map((env) => startServerProcess(env)));
  const servers = started.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const failure = started.find((outcome) => outcome.status === 'rejected');
  if (failure) {
    await Promise.all(servers.map((server) => server.stop()));
    throw failure.reason;
  }
  return servers;
}

/** Whether build/ holds the current sources (npm test builds first): a server starts from it in a fraction of tsx's time. */
const buildIsCurrent = buildOutdatedBy(projectRoot) === undefined;

/**
 * Starts build/bundle/main.js (what `npm start` runs) when build/ is current or `built` asks for it,
 * else `tsx src/main.ts` (what `npm run dev` runs), on a free port, and waits for its "listening on"
 * line; rejects with ServerExitedEarly if it ends before.
 */
export function startServerProcess(env: Record<string, string>, options: ProcessOptions = {}): Promise<ServerProcess> {
  const entry = options.built || buildIsCurrent ? [join(projectRoot, 'build/bundle/main.js')] : ['--import', tsxLoader, join(projectRoot, 'src/main.ts')];
  const child = spawn(process.execPath, entry, {
    cwd: options.cwd ?? projectRoot,
    env: { PATH: process.env['PATH'] ?? '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', SECRETS_KEY: testSecretsKey, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let stderr = '';
  let started = false;
  return new Promise((resolve, reject) => {
    const collect = (chunk: Buffer) => {
      // Keep draining the pipes after start-up, or a chatty server would block on a full pipe.
      if (started) return;
      output += chunk.toString();
      const match = /listening on (http:\/\/[\d.:[\]]+)/.exec(output);
      if (!match) return;
      started = true;
      resolve({
        url: match[1]!,
        startupOutput: output,
        process: child,
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', (chunk: Buffer) => {
      if (!started) stderr += chunk.toString();
      collect(chunk);
    });
    // 'close', not 'exit': by then all it wrote has been read.
    child.once('close', (code, signal) => {
      if (!started) reject(new ServerExitedEarly(code, stderr, `server exited (${signal ?? code}) before listening:\n${output}`));
    });
  });
}

/** The URL of a PostgreSQL test database, for handing to another process. */
export function postgresUrlOf(database: Database): string {
  if (database.config.kind !== 'postgres') throw new Error('this test needs PostgreSQL (TEST_DATABASE_URL)');
  return database.config.url;
}
