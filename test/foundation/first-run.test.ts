import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureOperatorKey } from '../../src/access/provisioning.js';
import { loadConfig } from '../../src/config.js';
import { randomToken } from '../../src/shared/ids.js';
import { logFormatFor, plainLine } from '../../src/shared/log-output.js';
import { projectRoot, tsxLoader } from '../access/processes.js';
import { testSecretsKey } from '../support/secrets.js';
import { startTestServer } from '../support/server.js';
import { requireService } from '../support/services.js';
import { withDatabase } from '../support/snapshots.js';

const postgresUrl = await requireService('postgres');

/** Starting the sources through tsx on a busy two-core machine takes tens of seconds. */
const spawnTimeoutMs = 150_000;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `src/main.ts` as `npm run dev` would, until `until` matches its output or it exits, then ends
 * it. With `terminal`, under a pseudo-terminal (util-linux `script`), as in a person's shell.
 */
function runServer(env: Record<string, string>, options: { cwd?: string; terminal?: boolean; until?: RegExp } = {}): Promise<Run> {
  const command = [process.execPath, '--import', tsxLoader, join(projectRoot, 'src/main.ts')];
  const quoted = command.map((part) => `'${part.replaceAll("'", `'\\''`)}'`).join(' ');
  const [file, args] = options.terminal ? ['script', ['-qec', quoted, '/dev/null']] : [command[0]!, command.slice(1)];
  const child = spawn(file as string, args as string[], {
    cwd: options.cwd ?? projectRoot,
    env: { PATH: process.env['PATH'] ?? '', SECRETS_KEY: testSecretsKey, DATABASE_URL: 'pglite:memory', SEED_ON_START: 'never', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const deadline = setTimeout(() => child.kill('SIGKILL'), spawnTimeoutMs - 5000);
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (options.until?.test(stdout)) child.kill('SIGTERM');
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(deadline);
      resolve({ code, stdout, stderr });
    }),
  );
}

const listening = /hallowgate listening on [^\n]*\/api\/v1/;

describe('log lines', () => {
  it('are plain for a terminal and JSON otherwise', () => {
    expect(logFormatFor({ isTTY: true })).toBe('plain');
    expect(logFormatFor({ isTTY: false })).toBe('json');
    expect(logFormatFor({})).toBe('json');
  });

  it('read as a person would write them: time, message, the level from warn on, other fields after', () => {
    const time = new Date(2026, 9, 31, 18, 30, 2).getTime();
    expect(plainLine(JSON.stringify({ level: 30, time, pid: 1, hostname: 'h', msg: 'demo API key: key_x.sk_y' }))).toBe('18:30:02 demo API key: key_x.sk_y\n');
    expect(plainLine(JSON.stringify({ level: 40, time, msg: 'announcements: Redis error', request_id: 'req_1' }))).toBe(
      '18:30:02 WARN announcements: Redis error request_id=req_1\n',
    );
    expect(plainLine(JSON.stringify({ level: 50, time, msg: 'failed', err: { message: 'boom', stack: 'Error: boom\n    at x' } }))).toBe(
      '18:30:02 ERROR failed\n  Error: boom\n      at x\n',
    );
  });

  it(
    'are JSON a line when stdout is not a terminal, and say where the server listens',
    async () => {
      const run = await runServer({ PORT: '0', HOST: '127.0.0.1' }, { until: listening });
      const lines = run.stdout.trim().split('\n');
      const entries = lines.map((line) => JSON.parse(line) as { msg: string });
      expect(entries.find((entry) => listening.test(entry.msg))?.msg).toMatch(/^hallowgate listening on http:\/\/127\.0\.0\.1:\d+ \(GraphQL http:\/\/127\.0\.0\.1:\d+\/graphql/);
    },
    spawnTimeoutMs,
  );

  it.skipIf(!existsSync('/usr/bin/script'))(
    'are plain lines in a terminal, and say the server listens on every address when it does',
    async () => {
      const run = await runServer({ PORT: '0', HOST: '0.0.0.0' }, { terminal: true, until: listening });
      const line = run.stdout.split(/\r?\n/).find((text) => listening.test(text));
      expect(line).toMatch(/^\d\d:\d\d:\d\d hallowgate listening on http:\/\/0\.0\.0\.0:(\d+), every address of this machine \(GraphQL http:\/\/localhost:\1\/graphql/);
      expect(run.stdout).not.toContain('{"level"');
    },
    spawnTimeoutMs,
  );
});

describe('a port in use', () => {
  let holder: Server;
  const directory = mkdtempSync(join(tmpdir(), 'hallowgate-first-run-'));
  afterAll(() => {
    holder?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it(
    'ends start-up with one line and exit code 1, before the database is touched',
    async () => {
      holder = createServer();
      const port = await new Promise<number>((resolve) => holder.listen(0, '127.0.0.1', () => resolve((holder.address() as { port: number }).port)));
      // The embedded database on disk, in a directory of its own: it must not even be created.
      const run = await runServer({ PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: '' }, { cwd: directory });
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(`hallowgate: port ${port} is in use (127.0.0.1:${port}): stop what listens there, or set PORT to another port\n`);
      expect(run.stdout).toBe('');
      expect(existsSync(join(directory, '.data'))).toBe(false);
    },
    spawnTimeoutMs,
  );
});

describe.skipIf(!postgresUrl)('a PostgreSQL database without the migrations', () => {
  it(
    'ends start-up with one line naming the migrations and npm run db:migrate, and exit code 1',
    async () => {
      const name = `hallowgate_unmigrated_${randomToken(10).toLowerCase()}`;
      const admin = new pg.Client({ connectionString: postgresUrl });
      await admin.connect();
      await admin.query(`create database "${name}"`);
      try {
        const run = await runServer({ DATABASE_URL: withDatabase(postgresUrl!, name), PORT: '0' });
        expect(run.code).toBe(1);
        expect(run.stderr.trim().split('\n')).toEqual([
          expect.stringMatching(
            /^hallowgate: the PostgreSQL database has \d+ migration\(s\) not applied \(\d{14}_init, .*\): run npm run db:migrate with this DATABASE_URL first$/,
          ),
        ]);
      } finally {
        await admin.query(`drop database if exists "${name}" with (force)`);
        await admin.end();
      }
    },
    spawnTimeoutMs,
  );
});

describe('ADMIN_API_KEY', () => {
  it('takes key_<id>. and a secret of 16 to 128 URL-safe characters, hyphens too, and the key then works', async () => {
    const adminKey = 'key_ops.123e4567-e89b-12d3-a456-426614174000';
    expect(loadConfig({ ADMIN_API_KEY: adminKey }).ADMIN_API_KEY).toBe(adminKey);
    const server = await startTestServer({ config: { ADMIN_API_KEY: adminKey } });
    try {
      await ensureOperatorKey(server.prisma, adminKey);
      const response = await fetch(`${server.url}/v1/admin/accounts`, { headers: { authorization: `Bearer ${adminKey}` } });
      expect(response.status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('refuses anything else, saying the rule, with every other bad setting at once', () => {
    const rule = 'ADMIN_API_KEY must be key_<id>.<secret>: key_, 1 to 40 letters or digits, a dot, then 16 to 128 letters, digits, "-" or "_"';
    for (const refused of ['key_ops.x', 'ops.123e4567-e89b-12d3-a456-426614174000', `key_ops.${'a'.repeat(129)}`, 'key_ops.123e4567/e89b+12d3=a456']) {
      expect(() => loadConfig({ ADMIN_API_KEY: refused })).toThrow(rule);
    }
    expect(() => loadConfig({ ADMIN_API_KEY: 'key_ops.x', PORT: 'eighty', LOG_LEVEL: 'loud' })).toThrow(/^PORT .+; ADMIN_API_KEY must be key_<id>.+; LOG_LEVEL .+$/);
  });
});

describe('malformed settings', () => {
  it('are all named in one line, DATABASE_URL among them', () => {
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x', PORT: 'abc', MAX_BODY_BYTES: '-1' })).toThrow(
      /^DATABASE_URL must be unset, "pglite:memory" or a postgres:\/\/ URL; got "mysql:\/\/x"; PORT .+; MAX_BODY_BYTES .+$/,
    );
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/^DATABASE_URL must be unset/);
  });
});
