import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.js';
import { openTestDatabase } from '../support/database.js';
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
    server = await startTestServer();
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

    const created = await cli('keys', 'create', '--account', account.id, '--plan', 'enterprise', '--scopes', 'directory:read,bookings:read', '--origins', 'https://fright.example', '--promo');
    expect(created).toMatchObject({ plan: 'enterprise', scopes: ['directory:read', 'bookings:read'], allowed_origins: ['https://fright.example'], promo: true, signing_secret: expect.stringMatching(/^hs_/) });
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
    expect(stored.secretHash).toBe(createHash('sha256').update(key.key.slice(key.id.length + 1)).digest('hex'));
    expect(stored.ipAllowlist).toEqual(['10.0.0.0/8', '2001:db8::/32']);

    const listed = JSON.parse((await runCli(['keys', 'list'], env)).stdout);
    expect(listed.data.map((item: { id: string }) => item.id)).toContain(key.id);

    expect((await runCli(['keys', 'revoke', key.id], env)).code).toBe(0);
    expect((await prisma.apiKey.findUniqueOrThrow({ where: { id: key.id } })).revokedAt).not.toBeNull();
  });
});
