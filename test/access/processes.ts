import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Database } from '../../src/db/connection.js';

export const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `npx hallowgate …` as an operator would (the package's bin), with only the given environment on top of PATH. */
export function runCli(args: string[], env: Record<string, string>): Promise<Finished> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['bin/hallowgate.js', ...args],
      { cwd: projectRoot, env: { PATH: process.env['PATH'] ?? '', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });
}

export interface ServerProcess {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `tsx src/main.ts` (what `npm start` runs) on a free port and waits for its "listening on" line. */
export function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: projectRoot,
    env: { PATH: process.env['PATH'] ?? '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
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
    child.stderr.on('data', collect);
    child.once('exit', (code, signal) => {
      if (!started) reject(new Error(`server exited (${signal ?? code}) before listening:\n${output}`));
    });
  });
}

/** The URL of a PostgreSQL test database, for handing to another process. */
export function postgresUrlOf(database: Database): string {
  if (database.config.kind !== 'postgres') throw new Error('this test needs PostgreSQL (TEST_DATABASE_URL)');
  return database.config.url;
}
