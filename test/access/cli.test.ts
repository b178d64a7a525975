import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.js';
import { openTestDatabase } from '../support/database.js';
import { apiClient } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { requireService } from '../support/services.js';
import { postgresUrlOf, projectRoot, runCli } from './processes.js';
import { postGraphQL } from './requests.js';

const postgresUrl = await requireService('postgres');

describe('hallowgate CLI: setup problems', () => {
  // The embedded database on disk, free or held by a server, is test/db/embedded-lock.test.ts's.
  it('opens pglite:memory itself, a private database migrated for the one command', async () => {
    const result = await runCli(['keys', 'list'], { DATABASE_URL: 'pglite:memory' });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ data: [] });
  });

  it('says in one line that a DATABASE_URL cannot work, and exits 2', async () => {
    const result = await runCli(['keys', 'list'], { DATABASE_URL: 'mysql://somewhere/db' });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^hallowgate: DATABASE_URL must be unset, "pglite:memory" or a postgres:\/\/ URL/)]);
  });

  it('says that PostgreSQL does not answer, and exits 1: the setting may be right and the server down', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    const result = await runCli(['keys', 'list'], { DATABASE_URL: `postgresql://postgres@127.0.0.1:${port}/hallowgate` });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^hallowgate: cannot reach PostgreSQL at /)]);
  });

  it('prints usage for an unknown command and exits 2', async () => {
    const result = await runCli(['keys', 'explode'], { DATABASE_URL: 'postgres://nowhere/none' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage: hallowgate');
  });
});

describe('hallowgate CLI: a server it cannot use', () => {
  const oneLine = (stderr: string) => stderr.trim().split('\n');
  const operatorKey = 'key_ops.123e4567-e89b-12d3-a456-426614174000';

  it('says first that ADMIN_API_KEY is not set, before sending anything, and exits 2', async () => {
    const result = await runCli(['accounts', 'list', '--server', 'http://127.0.0.1:9'], {});
    expect(result.code).toBe(2);
    expect(oneLine(result.stderr)).toEqual([
      'hallowgate: ADMIN_API_KEY is not set: the server at http://127.0.0.1:9 takes only the operator key it was started with (ADMIN_API_KEY=… npm start); export ADMIN_API_KEY with that value, or pass --admin-key.',
    ]);
  });

  it('names the URL where nothing listens, and exits 1', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    const result = await runCli(['accounts', 'list', '--server', `http://127.0.0.1:${port}`], { ADMIN_API_KEY: operatorKey });
    expect(result.code).toBe(1);
    expect(oneLine(result.stderr)).toEqual([
      `hallowgate: nothing listens at http://127.0.0.1:${port} (connection refused): start the server (npm start) or fix --server / HALLOWGATE_URL`,
    ]);
  });

  it('names a host that DNS does not know, and exits 1', async () => {
    const result = await runCli(['accounts', 'list'], { HALLOWGATE_URL: 'http://hallowgate.invalid:4000', ADMIN_API_KEY: operatorKey });
    expect(result.code).toBe(1);
    expect(oneLine(result.stderr)).toEqual([expect.stringMatching(/^hallowgate: the host of http:\/\/hallowgate\.invalid:4000 (is not known|could not be looked up) \(DNS/)]);
  });

  describe('a server that accepts connections but never answers, or answers something else', () => {
    const silent = net.createServer(() => undefined);
    const notHallowgate = http.createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<h1>It works</h1>'));
    const urlOf = (server: net.Server) => `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    beforeAll(async () => {
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      await new Promise<void>((resolve) => notHallowgate.listen(0, '127.0.0.1', resolve));
    });
    afterAll(() => {
      silent.close();
      notHallowgate.close();
    });

    it('gives up at the deadline, saying so, and exits 1', async () => {
      const started = Date.now();
      const result = await runCli(['accounts', 'list', '--server', urlOf(silent), '--timeout', '1'], { ADMIN_API_KEY: operatorKey });
      expect(result.code).toBe(1);
      expect(oneLine(result.stderr)).toEqual([`hallowgate: the server at ${urlOf(silent)} did not answer within 1 s: check that it is not stuck, or raise --timeout`]);
      // The process start (tsx when build/ is stale) comes on top of the one second; the point is that it ends.
      expect(Date.now() - started).toBeLessThan(30_000);
    });

    it('says that an answer which is not JSON comes from something else than hallowgate, and exits 1', async () => {
      const result = await runCli(['accounts', 'list', '--server', urlOf(notHallowgate)], { ADMIN_API_KEY: operatorKey });
      expect(result.code).toBe(1);
      expect(oneLine(result.stderr)).toEqual([
        `hallowgate: the server at ${urlOf(notHallowgate)} answered 200 with text/html, not JSON: is it a hallowgate server? Check --server / HALLOWGATE_URL`,
      ]);
    });
  });
});

describe('hallowgate CLI: a build older than the sources', () => {
  // A copy of the project's layout whose build stamp is older than every source: bin/ copied, the rest linked.
  const root = mkdtempSync(join(tmpdir(), 'hallowgate-stale-build-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('is reported in one line on stderr, naming npm run build, and the sources run meanwhile', async () => {
    mkdirSync(join(root, 'bin'));
    mkdirSync(join(root, 'build'));
    for (const file of ['hallowgate.js', 'build-stamp.js']) copyFileSync(join(projectRoot, 'bin', file), join(root, 'bin', file));
    for (const linked of ['src', 'node_modules', 'package.json']) symlinkSync(join(projectRoot, linked), join(root, linked));
    symlinkSync(join(projectRoot, 'build/cli'), join(root, 'build/cli'));
    writeFileSync(join(root, 'build/.built'), '');
    utimesSync(join(root, 'build/.built'), new Date(0), new Date(0));

    const result = await runCli(['accounts', 'list', '--server', 'http://127.0.0.1:9'], {}, { cliEntry: join(root, 'bin/hallowgate.js') });
    expect(result.code).toBe(2);
    const [stale, ...rest] = result.stderr.trim().split('\n');
    expect(stale).toMatch(/^hallowgate: build\/ is older than src\/\S+: run npm run build to start in a second; running the sources through tsx meanwhile \(slower\)$/);
    // The command itself then ran, from the sources.
    expect(rest).toEqual([expect.stringMatching(/^hallowgate: ADMIN_API_KEY is not set/)]);
  });
});

describe('hallowgate CLI against a running server (--server, the admin routes)', () => {
  let server: TestServer;
  let env: Record<string, string>;

  beforeAll(async () => {
    server = await startTestServer({ seed: true });
    const operator = await server.createKey({ scopes: ['admin'] });
    env = { HALLOWGATE_URL: server.url, ADMIN_API_KEY: operator.key };
  });
  afterAll(() => server.close());

  async function cli(...args: string[]) {
    const result = await runCli(args, env);
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout);
  }

  it('lists the whole list, past its first page of 100', async () => {
    const account = await cli('accounts', 'create', '--name', 'Many Keys Manor');
    const made = new Set<string>();
    for (let index = 0; index < 105; index++) made.add((await server.createKey({ accountId: account.id })).keyId);
    const listed = await cli('keys', 'list', '--account', account.id);
    expect(listed).toMatchObject({ has_more: false, next_cursor: null });
    const ids = listed.data.map((key: { id: string }) => key.id);
    expect(ids).toHaveLength(105);
    expect(new Set(ids)).toEqual(made);
  });

  it('creates an account and a key that works, lists, rotates and revokes it', async () => {
    const account = await cli('accounts', 'create', '--name', 'Fright Farm');
    expect(account).toMatchObject({ id: expect.stringMatching(/^acct_/), name: 'Fright Farm' });

    const created = await cli(
      'keys',
      'create',
      '--account',
      account.id,
      '--plan',
      'enterprise',
      '--scopes',
      'directory:read,bookings:read',
      '--origins',
      'https://fright.example',
      '--promo',
    );
    expect(created).toMatchObject({
      plan: 'enterprise',
      scopes: ['directory:read', 'bookings:read'],
      allowed_origins: ['https://fright.example'],
      promo: true,
      signing_secret: expect.stringMatching(/^hs_/),
    });
    expect((await postGraphQL(server.url, created.key, '{ viewer { accountId } }')).status).toBe(200);

    const listed = await cli('keys', 'list', '--account', account.id);
    expect(listed.data.map((key: { id: string }) => key.id)).toEqual([created.id]);

    const rotated = await cli('keys', 'rotate', created.id);
    expect((await postGraphQL(server.url, created.key, '{ __typename }')).status).toBe(401);
    expect((await postGraphQL(server.url, rotated.key, '{ __typename }')).status).toBe(200);

    const revoked = await cli('keys', 'revoke', created.id);
    expect(revoked.revoked_at).not.toBeNull();
    expect((await postGraphQL(server.url, rotated.key, '{ __typename }')).status).toBe(401);
  });

  it('creates widget tokens', async () => {
    const account = await cli('accounts', 'create', '--name', 'Corn Maze Co');
    const token = await cli('widget-tokens', 'create', '--account', account.id, '--origins', 'https://maze.example', '--rate-limit', '300');
    expect(token).toMatchObject({ id: expect.stringMatching(/^wt_/), allowed_origins: ['https://maze.example'], rate_limit_per_minute: 300, allow_booking: false });
    const booking = await cli('widget-tokens', 'create', '--account', account.id, '--origins', 'https://maze.example', '--booking');
    expect(booking).toMatchObject({ id: expect.stringMatching(/^wt_/), allow_booking: true });
    expect(await server.prisma.widgetToken.findUniqueOrThrow({ where: { id: booking.id } })).toMatchObject({ allowBooking: true });
    // A limit that is not a whole number is refused by name, not replaced by the default.
    for (const rateLimit of ['abc', '1e3', '12.5']) {
      const refused = await runCli(['widget-tokens', 'create', '--account', account.id, '--origins', 'https://maze.example', '--rate-limit', rateLimit], env);
      expect(refused.code, rateLimit).not.toBe(0);
      expect(refused.stderr, rateLimit).toMatch(/rate_limit_per_minute/);
    }
    expect(await server.prisma.widgetToken.count({ where: { accountId: account.id } })).toBe(2);
  });

  it('creates a service with its schedule, whose slots are then offered, and changes it', async () => {
    const attraction = await server.prisma.attraction.findFirstOrThrow({ orderBy: { id: 'asc' } });
    const service = await cli(
      'services',
      'create',
      '--attraction',
      attraction.id,
      '--name',
      'Lantern walk',
      '--duration',
      '60',
      '--capacity',
      '12',
      '--timezone',
      'Europe/Dublin',
      '--slot-minutes',
      '60',
      '--season-start',
      '2027-10-01',
      '--season-end',
      '2027-10-31',
      '--hours',
      'fri-sat 20:00-23:00',
    );
    expect(service).toMatchObject({
      id: expect.stringMatching(/^svc_/),
      timezone: 'Europe/Dublin',
      opening_hours: [
        { weekday: 5, opens: '20:00', closes: '23:00' },
        { weekday: 6, opens: '20:00', closes: '23:00' },
      ],
    });
    const reader = apiClient(server.url, (await server.createKey({ scopes: ['bookings:read'] })).key);
    // Friday 2027-10-29, Irish summer time: 20:00, 21:00 and 22:00 local are 19:00Z … 21:00Z.
    const offered = await reader('GET', `/v1/services/${service.id}/availability?start_date=2027-10-29&end_date=2027-10-29`);
    expect(offered.body.data.map((slot: { start_time: string }) => slot.start_time)).toEqual(['2027-10-29T19:00:00Z', '2027-10-29T20:00:00Z', '2027-10-29T21:00:00Z']);

    expect(await cli('services', 'update', service.id, '--capacity', '20')).toMatchObject({ id: service.id, capacity: 20 });
    const refused = await runCli(['services', 'update', service.id, '--hours', 'fri 25:00-01:00'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('opening_hours.0.opens');
  });

  it('reports refusals as the problem document on stderr with exit 1', async () => {
    const result = await runCli(['keys', 'create', '--account', 'acct_missing', '--plan', 'free', '--scopes', 'directory:read'], env);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr.slice(0, result.stderr.lastIndexOf('}') + 1))).toMatchObject({ status: 422, code: 'validation_failed' });
  });

  it('says that the server refused the operator key, and which setting to fix, in one line with exit 1', async () => {
    const wrongKey = await runCli(['keys', 'list'], { ...env, ADMIN_API_KEY: 'key_wrongwrong.sk_wrongwrongwrongwrong' });
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toBe(
      `hallowgate: the server at ${server.url} refused the operator key (401 unauthenticated: The API key is not valid.): set ADMIN_API_KEY to the key the server was started with (ADMIN_API_KEY=… npm start)\n`,
    );

    const given = await runCli(['keys', 'list', '--admin-key', 'key_wrongwrong.sk_wrongwrongwrongwrong'], { HALLOWGATE_URL: server.url });
    expect(given.code).toBe(1);
    expect(given.stderr).toMatch(/refused the operator key .*: set --admin-key to the key the server was started with/);

    const reader = await server.createKey({ scopes: ['directory:read'] });
    const notOperator = await runCli(['accounts', 'list'], { ...env, ADMIN_API_KEY: reader.key });
    expect(notOperator.code).toBe(1);
    expect(notOperator.stderr).toMatch(
      /^hallowgate: the key in ADMIN_API_KEY is not an operator key \(403 insufficient_scope: .*\): set ADMIN_API_KEY to the key the server was started with \(ADMIN_API_KEY=… npm start\), or use a key with the admin scope\n$/,
    );
  });
});

describe.skipIf(!postgresUrl)('hallowgate CLI straight against PostgreSQL (DATABASE_URL)', () => {
  let database: Database;

  beforeAll(async () => {
    database = await openTestDatabase({ seeded: false, poolSize: 2, postgresUrl: postgresUrl! });
  });
  afterAll(() => database?.close());

  it('issues a key whose hash alone is stored, lists and revokes it', async () => {
    const env = { DATABASE_URL: postgresUrlOf(database) };
    const { prisma } = database;
    const account = JSON.parse((await runCli(['accounts', 'create', '--name', 'Direct'], env)).stdout);
    const created = await runCli(['keys', 'create', '--account', account.id, '--plan', 'pro', '--scopes', 'bookings:read', '--ip', '10.0.0.0/8,2001:db8::/32'], env);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toContain('not shown again');
    const key = JSON.parse(created.stdout);

    const stored = await prisma.apiKey.findUniqueOrThrow({ where: { id: key.id } });
    expect(stored.secretHash).toBe(
      createHash('sha256')
        .update(key.key.slice(key.id.length + 1))
        .digest('hex'),
    );
    expect(stored.ipAllowlist).toEqual(['10.0.0.0/8', '2001:db8::/32']);

    const listed = JSON.parse((await runCli(['keys', 'list'], env)).stdout);
    expect(listed.data.map((item: { id: string }) => item.id)).toContain(key.id);

    expect((await runCli(['keys', 'revoke', key.id], env)).code).toBe(0);
    expect((await prisma.apiKey.findUniqueOrThrow({ where: { id: key.id } })).revokedAt).not.toBeNull();
  });
});
