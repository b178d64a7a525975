import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { DatabaseInUseError, lockEmbeddedDatabase, type EmbeddedLock } from '../../src/db/embedded-lock.js';
import { projectRoot, runCli, ServerExitedEarly, startServerProcess, tsxLoader, type ServerProcess } from '../access/processes.js';

const adminKey = 'key_lockoperator01.sk_a_long_enough_operator_secret_lock';
// The demo directory is beside the point here, and seeding it would only slow every first start.
const serverEnv = { ADMIN_API_KEY: adminKey, SEED_ON_START: 'never' };

/** The one line a process refused by the holder `pid` prints, with the advice for a second server or the CLI. */
function holderLine(pid: number | undefined, refused: 'server' | 'CLI' = 'server'): RegExp {
  const advice = refused === 'CLI' ? 'stop it or use --server <url> to work through it' : 'stop it first, or run both on PostgreSQL \\(DATABASE_URL\\)';
  return new RegExp(
    `^hallowgate: the embedded database \\./\\.data/pglite is in use by process ${pid} \\(hallowgate server, started \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\); ${advice}`,
  );
}

/** Every file of a directory tree with its size and modification time: unchanged if nothing wrote. */
async function footprint(directory: string): Promise<Record<string, string>> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
  const stamps = await Promise.all(files.map(async (file) => ({ file, ...(await stat(file)) })));
  return Object.fromEntries(stamps.map(({ file, size, mtimeMs }) => [file, `${size}@${mtimeMs}`]));
}

function stopped(child: ChildProcess): Promise<unknown> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : once(child, 'exit');
}

describe('the embedded database (./.data/pglite), one process at a time', () => {
  let cwd: string;
  let holder: ServerProcess | undefined;
  const running: ServerProcess[] = [];

  beforeAll(async () => {
    cwd = await mkdtemp(join(tmpdir(), 'hallowgate-lock-'));
  });
  afterAll(async () => {
    await Promise.all(running.map((server) => server.stop()));
    if (cwd) await rm(cwd, { recursive: true, force: true });
  });

  async function startServer(): Promise<ServerProcess> {
    const server = await startServerProcess(serverEnv, { cwd });
    running.push(server);
    return server;
  }

  it('is opened by the CLI itself when no server holds it, and the next server finds what it wrote', async () => {
    const created = await runCli(['accounts', 'create', '--name', 'Lantern Walk'], {}, { cwd });
    expect(created.code, created.stderr).toBe(0);
    const account = JSON.parse(created.stdout);
    expect(existsSync(join(cwd, '.data/pglite.lock'))).toBe(false);

    holder = await startServer();
    const listed = await runCli(['accounts', 'list'], { HALLOWGATE_URL: holder.url, ADMIN_API_KEY: adminKey }, { cwd });
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).data).toContainEqual(expect.objectContaining({ id: account.id, name: 'Lantern Walk' }));
  });

  it('refuses a second server and the CLI with exit code 2 and one line naming the holder, and they write nothing', async () => {
    // Paused, the holder writes nothing itself meanwhile, and still runs as far as the lock can tell.
    holder!.process.kill('SIGSTOP');
    const before = await footprint(join(cwd, '.data'));

    const second = await startServerProcess(serverEnv, { cwd }).then(
      (server) => {
        running.push(server);
        throw new Error('a second server started on the same embedded database');
      },
      (error: unknown) => error,
    );
    expect(second).toBeInstanceOf(ServerExitedEarly);
    const refused = second as ServerExitedEarly;
    expect(refused.code).toBe(2);
    expect(refused.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(holderLine(holder!.process.pid))]);

    const cli = await runCli(['accounts', 'create', '--name', 'Never Made'], {}, { cwd });
    expect(cli.code).toBe(2);
    expect(cli.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(holderLine(holder!.process.pid, 'CLI'))]);
    expect(cli.stdout).toBe('');

    expect(await footprint(join(cwd, '.data'))).toEqual(before);
    holder!.process.kill('SIGCONT');
  });

  it('is taken over from a holder killed with SIGKILL: of two servers started at once, exactly one serves', async () => {
    holder!.process.kill('SIGKILL');
    await stopped(holder!.process);
    expect(existsSync(join(cwd, '.data/pglite.lock'))).toBe(true);

    const outcomes = await Promise.allSettled([startServer(), startServer()]);
    const served = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    const refused = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
    expect(served).toHaveLength(1);
    expect(refused[0]).toBeInstanceOf(ServerExitedEarly);
    expect((refused[0] as ServerExitedEarly).code).toBe(2);
    expect((refused[0] as ServerExitedEarly).stderr).toMatch(holderLine(served[0]!.process.pid));
    expect((await fetch(`${served[0]!.url}/healthz`)).status).toBe(200);

    await served[0]!.stop();
    expect(await readdir(join(cwd, '.data'))).not.toContain('pglite.lock');
  });
});

/**
 * Takers of a lock a killed process left, let go at once: whatever the interleaving, exactly one wins
 * and the others are told who holds it. They run in this process, where every file operation of
 * one can fall between two of another's, the widest race there is; the lock guards the process, so
 * the winner is told apart by what it answers.
 */
describe('the embedded database lock under contention', () => {
  let cwd: string;
  let killed: ChildProcess | undefined;

  beforeAll(async () => {
    cwd = await mkdtemp(join(tmpdir(), 'hallowgate-lock-race-'));
  });
  afterAll(async () => {
    killed?.kill('SIGKILL');
    if (cwd) await rm(cwd, { recursive: true, force: true });
  });

  /** A process that takes the lock of `dataDir`, says so, and then holds it until killed. */
  async function holdInAnotherProcess(dataDir: string): Promise<ChildProcess> {
    const script = `
      import { lockEmbeddedDatabase } from ${JSON.stringify(join(projectRoot, 'src/db/embedded-lock.ts'))};
      await lockEmbeddedDatabase(${JSON.stringify(dataDir)}, 'hallowgate server');
      console.log('holding');
      setInterval(() => undefined, 60_000);
    `;
    const child = spawn(process.execPath, ['--import', tsxLoader, '--input-type=module', '-e', script], {
      env: { PATH: process.env['PATH'] ?? '' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
    expect((await lines.next()).value).toBe('holding');
    return child;
  }

  it('takes over from a holder killed with SIGKILL that its parent has not reaped yet (a zombie)', async () => {
    const dataDir = join(cwd, '.data/zombie');
    const script = join(cwd, 'hold.mjs');
    await writeFile(
      script,
      `import { lockEmbeddedDatabase } from ${JSON.stringify(join(projectRoot, 'src/db/embedded-lock.ts'))};
       await lockEmbeddedDatabase(${JSON.stringify(dataDir)}, 'hallowgate server');
       console.log('holding');
       setInterval(() => undefined, 60_000);`,
    );
    // The holder's parent turns into \`sleep\`, which never reaps it: once killed, the holder stays a zombie.
    const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;
    const parent = spawn('sh', ['-c', `${quote(process.execPath)} --import ${quote(tsxLoader)} ${quote(script)} & exec sleep 60`], {
      env: { PATH: process.env['PATH'] ?? '' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    onTestFinished(() => void parent.kill('SIGKILL'));
    const lines = createInterface({ input: parent.stdout! })[Symbol.asyncIterator]();
    expect((await lines.next()).value).toBe('holding');
    const { pid } = JSON.parse(await readFile(`${dataDir}.lock`, 'utf8')) as { pid: number };
    process.kill(pid, 'SIGKILL');
    const state = async () => (await readFile(`/proc/${pid}/stat`, 'utf8')).replace(/^.*\) /s, '')[0];
    await expect.poll(state, { timeout: 10_000 }).toBe('Z');

    const lock = await lockEmbeddedDatabase(dataDir, 'successor');
    expect(JSON.parse(await readFile(`${dataDir}.lock`, 'utf8'))).toMatchObject({ pid: process.pid, role: 'successor' });
    lock.release();
  });

  it('lets exactly one of several take over a dead holder', async () => {
    const dataDir = join(cwd, '.data/pglite');
    killed = await holdInAnotherProcess(dataDir);
    killed.kill('SIGKILL');
    await stopped(killed);

    // Each starts a turn of the event loop after the one before, so the steps of one fall between those of the others.
    const attempts: Promise<EmbeddedLock>[] = [];
    for (let taker = 0; taker < 12; taker++) {
      attempts.push(lockEmbeddedDatabase(dataDir, 'contender'));
      await new Promise((turn) => setImmediate(turn));
    }
    const outcomes = await Promise.allSettled(attempts);
    const winners = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    const refusals = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
    expect(winners).toHaveLength(1);
    for (const refusal of refusals) {
      expect(refusal).toBeInstanceOf(DatabaseInUseError);
      expect((refusal as DatabaseInUseError).holder).toMatchObject({ pid: process.pid, role: 'contender' });
    }
    // Nothing but the winner's lock is left behind (no drafts, no takeover claims).
    expect(await readdir(join(cwd, '.data'))).toEqual(['pglite.lock']);
    winners[0]!.release();
    expect(await readdir(join(cwd, '.data'))).toEqual([]);
  });
});
