import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../src/shared/ids.js';
import { projectRoot, tsxLoader } from '../access/processes.js';
import { requireService } from '../support/services.js';

/**
 * The README's shell blocks, run as written and in order by bash in a fresh working directory, as a
 * new user would type them: the embedded path (the two commands, the REST examples, local webhooks,
 * the operators' CLI) and the PostgreSQL path. Only what a README cannot know is filled in, by the
 * explicit tables below: the ports, the ids and keys earlier answers gave, the test's database.
 */

const postgresUrl = await requireService('postgres');
const redisUrl = await requireService('redis');

interface Block {
  section: string;
  language: string;
  text: string;
}

function blocksOf(markdown: string): Block[] {
  const blocks: Block[] = [];
  let section = '';
  let open: Block | undefined;
  for (const line of markdown.split('\n')) {
    if (open) {
      if (line.startsWith('```')) {
        blocks.push(open);
        open = undefined;
      } else open.text += `${line}\n`;
    } else if (line.startsWith('```')) open = { section, language: line.slice(3).trim(), text: '' };
    else if (/^##+ /.test(line)) section = line.replace(/^#+ /, '');
  }
  return blocks;
}

/** A block's commands, continuation lines joined; comment lines are kept, as some say what to do. */
function commandsOf(block: Block): string[] {
  return block.text
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}

const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
const postgresSection = 'Running against PostgreSQL and Redis';
const shellBlocks = blocksOf(readme).filter((block) => block.language === 'sh');

/** Commands not run here (or whole blocks, with `block`), each with why. Everything else in a shell block is run. */
const notRun: Array<{ fragment: string; reason: string; block?: true }> = [
  { fragment: 'npm test', reason: 'the suite this test is part of' },
  { fragment: 'https://example.com/hooks/hallowgate', reason: 'needs DNS and the internet, as the README says; its local receiver is run instead', block: true },
  { fragment: '/v1/admin/api_keys/key_…/usage?from=…&to=…', reason: 'needs the operator key of the Operators section, which comes after it, and a range to choose' },
];

/** Commands that run until stopped, as in a terminal of their own: started in the background (`curl -sN`: an event stream). */
const runsUntilStopped = [/^node -e /, /^npx hallowgate listen\b/, /^curl -s?N /];

/** What the README writes as `…` and where the value comes from: the latest answer that holds one. */
const fromAnswers: Array<{ placeholder: string; pattern: RegExp }> = [
  { placeholder: 'svc_…', pattern: /"(svc_[\w-]+)"/g },
  { placeholder: 'bk_…', pattern: /"id": ?"(bk_[\w-]+)"/g },
  { placeholder: 'acct_…', pattern: /"(acct_[\w-]+)"/g },
  { placeholder: 'at_…', pattern: /"(at_[\w-]+)"/g },
  { placeholder: 'ev_…', pattern: /"id": ?"(ev_[\w-]+)"/g },
  // Not followed by ".sk_…": that is the whole key the server prints, filled from its output.
  { placeholder: 'key_…', pattern: /"id": ?"(key_[\w-]+)"/g },
  { placeholder: 'we_…', pattern: /"id": ?"(we_[\w-]+)"/g },
  // The last hold an answer names: a new hold's id, or the offer listed last.
  { placeholder: 'hold_…', pattern: /"(hold_[\w-]+)"/g },
];

function latest(answers: string[], pattern: RegExp): string | undefined {
  for (const answer of [...answers].reverse()) {
    const found = [...answer.matchAll(pattern)].at(-1);
    if (found) return found[1];
  }
  return undefined;
}

/** Placeholders filled by the test itself, since no earlier answer shows them. */
type Lookups = Array<[placeholder: string, value: (answers: string[]) => Promise<string> | string]>;

/** Fills the README's placeholders, failing on any left: a new one needs a line in the tables. */
async function filled(command: string, answers: string[], lookups: Lookups): Promise<string> {
  let text = command;
  for (const [placeholder, value] of lookups) if (text.includes(placeholder)) text = text.replaceAll(placeholder, await value(answers));
  for (const { placeholder, pattern } of fromAnswers) {
    if (!text.includes(placeholder)) continue;
    const value = latest(answers, pattern);
    if (!value) throw new Error(`no earlier answer gives ${placeholder} for: ${command}`);
    text = text.replaceAll(placeholder, value);
  }
  if (text.includes('…')) throw new Error(`a placeholder the README test cannot fill: ${text}`);
  return text;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Polls `condition` until it holds, or fails naming `what` at the deadline. */
async function until<T>(what: string, condition: () => T | undefined | Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A fresh machine: an empty working directory, and `npm`/`npx`/`curl` as the README's reader has
 * them, but in this installed checkout. `npm start` runs package.json's start script (Node's flags and
 * build/bundle/main.js) with the working directory kept, so ./.data is the temporary directory's. curl is told to fail on 4xx and
 * 5xx and to print the status, which the test checks.
 */
/** package.json's start script, its paths made the checkout's. */
const startScript = (JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start.replace(
  /(^|\s)build\//g,
  `$1'${join(projectRoot, 'build')}'/`,
);

function freshMachine() {
  const directory = mkdtempSync(join(tmpdir(), 'hallowgate-readme-'));
  const tools = join(directory, '.tools');
  const logs = join(directory, '.logs');
  mkdirSync(tools);
  mkdirSync(logs);
  const realCurl = ['/usr/bin/curl', '/bin/curl', '/usr/local/bin/curl'].find((path) => existsSync(path));
  if (!realCurl) throw new Error('the README test needs curl, as the README does');
  const script = (name: string, body: string) => {
    writeFileSync(join(tools, name), `#!/usr/bin/env bash\n${body}\n`);
    chmodSync(join(tools, name), 0o755);
  };
  script(
    'npm',
    `case "$1 $2" in
  'install '*) exit 0 ;;  # this checkout is installed: the test runs in it
  'start '*) exec ${startScript} ;;
  'run db:migrate') exec node --import '${tsxLoader}' '${projectRoot}/src/db/cli.ts' migrate ;;
esac
echo "npm $*: not provided to the README test" >&2; exit 127`,
  );
  script('npx', `[ "$1" = hallowgate ] || { echo "npx $1: not provided to the README test" >&2; exit 127; }\nshift\nexec node '${projectRoot}/bin/hallowgate.js' "$@"`);
  script('curl', `exec '${realCurl}' --fail-with-body --max-time 30 --write-out '\\nhttp_status %{http_code}\\n' "$@"`);
  return { directory, tools, logs };
}

interface Background {
  pid: number;
  log: string;
}

/** One bash, fed the README's commands one at a time, so variables set by one are there for the next. */
class Shell {
  private readonly bash: ChildProcessWithoutNullStreams;
  private stdout = '';
  private stderr = '';
  private count = 0;
  readonly answers: string[] = [];
  server: Background | undefined;
  readonly background: Background[] = [];

  constructor(
    private readonly machine: ReturnType<typeof freshMachine>,
    env: Record<string, string>,
  ) {
    this.bash = spawn('bash', ['--norc', '--noprofile'], {
      cwd: machine.directory,
      env: { PATH: `${machine.tools}:${process.env['PATH'] ?? ''}`, HOME: machine.directory, LOG_LEVEL: 'info', ...env },
    });
    this.bash.stdout.on('data', (chunk: Buffer) => (this.stdout += chunk.toString()));
    this.bash.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    // Job control: each background command gets its own process group, which is then ended whole.
    this.bash.stdin.write('set -m\n');
  }

  /** Runs one command; resolves with its exit code, what it wrote and, for curl, the HTTP status. */
  async run(command: string): Promise<{ code: number; stdout: string; stderr: string; status?: number }> {
    const marker = `__readme_${++this.count}__`;
    this.stdout = '';
    this.stderr = '';
    this.bash.stdin.write(`{ ${command}\n} </dev/null\nprintf '\\n${marker} %s\\n' "$?"\n`);
    const ended = await until(`the command ${command}`, () => new RegExp(`\\n${marker} (\\d+)\\n`).exec(this.stdout) ?? undefined, 120_000);
    const stdout = this.stdout.slice(0, ended.index);
    const status = /\nhttp_status (\d+)\n?$/.exec(stdout);
    this.answers.push(stdout);
    return { code: Number(ended[1]), stdout, stderr: this.stderr, ...(status ? { status: Number(status[1]) } : {}) };
  }

  /** Starts a command in the background (a server, a receiver), its output to a file of its own. */
  async start(command: string): Promise<Background> {
    const log = join(this.machine.logs, `${this.background.length}.log`);
    const { stdout } = await this.run(`{ ${command}\n} </dev/null >'${log}' 2>&1 &\necho "pid $!"`);
    const started = { pid: Number(/pid (\d+)/.exec(stdout)![1]), log };
    this.background.push(started);
    return started;
  }

  output(process: Background): string {
    return existsSync(process.log) ? readFileSync(process.log, 'utf8') : '';
  }

  async startServer(command: string): Promise<string> {
    await this.stopServer();
    const server = await this.start(command);
    this.server = server;
    const output = await until(`the server of "${command}" to listen`, () => {
      const text = this.output(server);
      if (!alive(server.pid)) throw new Error(`"${command}" ended before listening:\n${text}`);
      return /hallowgate listening on/.test(text) ? text : undefined;
    });
    return output;
  }

  async stopServer(): Promise<void> {
    if (!this.server) return;
    await stop(this.server);
    this.server = undefined;
  }

  async close(): Promise<void> {
    for (const process of this.background) await stop(process);
    this.bash.stdin.end();
    await new Promise((resolve) => (this.bash.exitCode === null ? this.bash.once('exit', resolve) : resolve(undefined)));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function stop(background: Background): Promise<void> {
  if (!alive(background.pid)) return;
  process.kill(-background.pid, 'SIGTERM');
  await until(`process group ${background.pid} to end`, () => !alive(background.pid) || undefined, 20_000);
}

/** A status a README line announces in its trailing comment (`# 304`), else any 2xx. */
function expectStatus(command: string, status: number | undefined) {
  const announced = /#\s*(\d{3})\b/.exec(command)?.[1];
  if (announced) expect(status, command).toBe(Number(announced));
  else expect(status !== undefined && status >= 200 && status < 300, `${command}: HTTP ${status}`).toBe(true);
}

async function runShellBlock(shell: Shell, block: Block, lookups: Lookups) {
  if (notRun.some(({ fragment, block: whole }) => whole && block.text.includes(fragment))) return;
  for (const command of commandsOf(block)) {
    if (notRun.some(({ fragment, block: whole }) => !whole && command.includes(fragment))) continue;
    if (command.startsWith('#')) {
      if (/stop the server/i.test(command)) await shell.stopServer();
      continue;
    }
    const text = await filled(command, shell.answers, lookups);
    // A server or a receiver runs in the background, as in a terminal of its own (a trailing comment aside).
    const withoutComment = text.replace(/\s+#[^'"]*$/, '');
    if (/\bnpm start$/.test(withoutComment)) {
      await shell.startServer(text);
      continue;
    }
    if (runsUntilStopped.some((pattern) => pattern.test(withoutComment))) {
      await shell.start(text);
      continue;
    }
    const result = await shell.run(text);
    // curl, told to fail on 4xx and 5xx, exits 22 on a refusal the README announces (`# 409`).
    const refusalAnnounced = text.startsWith('curl') && /#\s*4\d\d\b/.test(command);
    expect(result.code, `${text}\n${result.stdout}\n${result.stderr}`).toBe(refusalAnnounced ? 22 : 0);
    if (text.startsWith('curl')) expectStatus(command, result.status);
  }
}

/** Each named query and mutation of a GraphQL example, sent with the key; subscriptions have their own tests. */
async function runGraphQLBlock(shell: Shell, block: Block, lookups: Lookups, url: string, key: string) {
  const document = await filled(block.text, shell.answers, lookups);
  for (const [, kind, name] of document.matchAll(/^(query|mutation|subscription) (\w+)/gm)) {
    if (kind === 'subscription') continue;
    const response = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: document, operationName: name }),
    });
    const answer = await response.text();
    expect(response.status, `${name}: ${answer}`).toBe(200);
    expect(JSON.parse(answer), `${name}: ${answer}`).not.toHaveProperty('errors');
    shell.answers.push(answer);
    // Followed in order, the Book example comes after the REST one: its own Idempotency-Key makes a new booking.
    if (kind === 'mutation' && name === 'Book') expect(JSON.parse(answer).data.createBooking.replayed).toBe(false);
  }
}

describe('the README, followed as written on a fresh machine', () => {
  const machines: Array<{ directory: string }> = [];
  const shells: Shell[] = [];
  afterAll(async () => {
    for (const shell of shells) await shell.close();
    for (const machine of machines) rmSync(machine.directory, { recursive: true, force: true });
  });

  it('has shell blocks in the sections this test follows', () => {
    expect(shellBlocks.map((block) => block.section)).toEqual(
      expect.arrayContaining(['Two commands', 'REST: the booking service (`/v1`)', 'REST: the directory (`/api/v1`)', 'Webhooks', 'Operators', postgresSection]),
    );
  });

  it('the embedded path: the two commands, the REST and GraphQL examples, a local webhook receiver, the operators’ CLI', async () => {
    const machine = freshMachine();
    machines.push(machine);
    const [port, receiverPort] = [await freePort(), await freePort()];
    const shell = new Shell(machine, { PORT: String(port), HOST: '127.0.0.1' });
    shells.push(shell);
    const url = `http://127.0.0.1:${port}`;
    let demoKey = '';
    const get = (path: string) => fetch(`${url}${path}`, { headers: { authorization: `Bearer ${demoKey}` } });
    const lookups: Lookups = [
      ['localhost:4000', () => `127.0.0.1:${port}`],
      ['127.0.0.1:4001', () => `127.0.0.1:${receiverPort}`],
      ['listen(4001)', () => `listen(${receiverPort})`],
      ['key_….sk_…', () => demoKey],
      // The first event of the booking log: no answer before `after=msg_…` shows one.
      ['msg_…', async () => ((await (await get('/v1/booking_events?limit=1')).json()) as { data: Array<{ id: string }> }).data[0]!.id],
      // `If-None-Match: "…"`: the ETag the event answers with.
      ['"…"', async (answers) => (await get(`/api/v1/events/${latest(answers, /"id": ?"(ev_[\w-]+)"/g)}`)).headers.get('etag')!],
    ];

    const blocks = blocksOf(readme).filter((block) => (block.language === 'sh' && block.section !== postgresSection) || block.language === 'graphql');
    for (const block of blocks) {
      try {
        if (block.language === 'graphql') await runGraphQLBlock(shell, block, lookups, url, demoKey);
        else await runShellBlock(shell, block, lookups);
      } catch (error) {
        const serverOutput = shell.server ? shell.output(shell.server).slice(-3000) : '(no server running)';
        throw new Error(`${(error as Error).message}\nin the block of "${block.section}":\n${block.text}\nserver output:\n${serverOutput}`, { cause: error });
      }
      if (shell.server && !demoKey) {
        demoKey = /demo API key: (key_[\w.-]+)/.exec(shell.output(shell.server))?.[1] ?? '';
        expect(demoKey, 'the first start prints the demo API key').toMatch(/^key_\w+\.sk_/);
      }
      if (block.text.includes('WEBHOOK_ALLOW_PRIVATE=1 npm start')) {
        // "book something (see above) and watch the receiver"
        const receiver = shell.background.at(-1)!;
        const service = latest(shell.answers, /"(svc_[\w-]+)"/g);
        const booked = await fetch(`${url}/v1/bookings`, {
          method: 'POST',
          headers: { authorization: `Bearer ${demoKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ service_id: service, start_time: '2027-10-30T17:00:00Z', party_size: 1, customer: { name: 'Ada', email: 'ada@example.com' } }),
        });
        expect(booked.status).toBe(201);
        const { id } = (await booked.json()) as { id: string };
        await until(
          'the receiver to print the booking.created delivery',
          () =>
            shell
              .output(receiver)
              .split('\n')
              .find((line) => /^msg_\w+ \{/.test(line) && line.includes('"event":"booking.created"') && line.includes(`"id":"${id}"`)),
          30_000,
        ).catch((error: unknown) => {
          throw new Error(`${(error as Error).message}; the receiver printed:\n${shell.output(receiver)}\nthe server:\n${shell.output(shell.server!).slice(-3000)}`, {
            cause: error,
          });
        });
      }
    }
    await shell.stopServer();
  }, 150_000);

  it.skipIf(!postgresUrl || !redisUrl)(
    'the PostgreSQL path: a new database, SECRETS_KEY, migrations, a seeded start, the CLI straight against it',
    async () => {
      const machine = freshMachine();
      machines.push(machine);
      const name = `hallowgate_readme_${randomToken(10).toLowerCase()}`;
      const server = new URL(postgresUrl!);
      const port = await freePort();
      const shell = new Shell(machine, { PORT: String(port), HOST: '127.0.0.1' });
      shells.push(shell);
      const lookups: Lookups = [
        ['localhost:4000', () => `127.0.0.1:${port}`],
        // The README's PostgreSQL and Redis servers are the test's, under a database name of its own.
        ['createdb -h 127.0.0.1 -U postgres hallowgate', () => `createdb -h ${server.hostname} -p ${server.port || 5432} -U ${server.username || 'postgres'} ${name}`],
        ['postgresql://postgres@127.0.0.1:5432/hallowgate', () => `${server.protocol}//${server.username ? `${server.username}@` : ''}${server.host}/${name}`],
        ['redis://127.0.0.1:6379', () => redisUrl!],
      ];
      try {
        const [block, ...more] = shellBlocks.filter((each) => each.section === postgresSection);
        expect(more).toEqual([]);
        await runShellBlock(shell, block!, lookups);
        expect(shell.answers.at(-1)).toMatch(/"data": \[/);
      } finally {
        await shell.stopServer();
        const admin = new pg.Client({ connectionString: postgresUrl });
        await admin.connect();
        await admin.query(`drop database if exists "${name}" with (force)`);
        await admin.end();
      }
    },
    120_000,
  );
});
