import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.js';
import { openTestDatabase } from '../support/database.js';
import { apiClient } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { requireService } from '../support/services.js';
import { postgresUrlOf, runCli } from './processes.js';
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

  it('prints usage for an unknown command and exits 2', async () => {
    const result = await runCli(['keys', 'explode'], { DATABASE_URL: 'postgres://nowhere/none' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage: hallowgate');
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
    expect(token).toMatchObject({ id: expect.stringMatching(/^wt_/), allowed_origins: ['https://maze.example'], rate_limit_per_minute: 300 });
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

    const wrongKey = await runCli(['keys', 'list'], { ...env, ADMIN_API_KEY: 'key_wrongwrong.sk_wrongwrongwrongwrong' });
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toContain('unauthenticated');
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
