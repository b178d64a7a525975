import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialCacheTtlMs } from '../../src/access/credential-cache.js';
import { signRequest } from '../../src/access/signing.js';
import { requireService } from '../support/services.js';
import type { Database } from '../../src/db/connection.js';
import { openTestDatabase } from '../support/database.js';
import { postgresUrlOf, startServerProcesses, type ServerProcess } from './processes.js';
import { bearer, burst, postGraphQL } from './requests.js';

const postgresUrl = await requireService('postgres');
const redisUrl = await requireService('redis');

/**
 * These servers run on the real clock, so a burst must not straddle the turn of a minute (a new
 * window, a new budget): near the end of one, wait for the next.
 */
async function awayFromWindowEdge(): Promise<void> {
  const intoWindowMs = Date.now() % 60_000;
  if (intoWindowMs > 55_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoWindowMs + 50));
}

const adminKey = 'key_accesstwoinstances.sk_operatorsecretoperatorsecret0001';
const typename = '{ __typename }';

/** Two `npm start` processes sharing one PostgreSQL database and one Redis: one budget, one replay memory. */
describe.skipIf(!postgresUrl || !redisUrl)('two server processes on PostgreSQL and Redis', () => {
  let database: Database;
  let first: ServerProcess;
  let second: ServerProcess;

  beforeAll(async () => {
    database = await openTestDatabase({ seeded: false, poolSize: 1, postgresUrl: postgresUrl! });
    const env = { DATABASE_URL: postgresUrlOf(database), REDIS_URL: redisUrl!, ADMIN_API_KEY: adminKey };
    [first, second] = (await startServerProcesses([env, env])) as [ServerProcess, ServerProcess];
  });

  afterAll(async () => {
    await Promise.all([first?.stop(), second?.stop()]);
    await database?.close();
  });

  async function issueKey(body: Record<string, unknown>): Promise<{ id: string; key: string; signing_secret: string | null }> {
    const accountResponse = await fetch(`${first.url}/v1/admin/accounts`, {
      method: 'POST',
      headers: bearer(adminKey, { 'content-type': 'application/json' }),
      body: JSON.stringify({ name: 'Two instances' }),
    });
    const account = await accountResponse.json();
    const response = await fetch(`${second.url}/v1/admin/api_keys`, {
      method: 'POST',
      headers: bearer(adminKey, { 'content-type': 'application/json' }),
      body: JSON.stringify({ account_id: account.id, ...body }),
    });
    expect(response.status).toBe(201);
    return response.json();
  }

  it('share one rate-limit budget: N+10 concurrent requests across both → exactly 10 rejected', async () => {
    const { key } = await issueKey({ plan: 'free', scopes: ['directory:read'] });
    await awayFromWindowEdge();
    let turn = 0;
    const statuses = await burst(110, () => postGraphQL([first, second][turn++ % 2]!.url, key, typename));
    expect(Object.fromEntries(statuses)).toEqual({ 200: 100, 429: 10 });
  });

  it('count each request once, whichever instance serves it', async () => {
    const { key } = await issueKey({ plan: 'pro', scopes: ['directory:read'] });
    await awayFromWindowEdge();
    const remaining = [];
    for (const server of [first, second, first, second]) {
      remaining.push((await postGraphQL(server.url, key, typename)).headers.get('x-ratelimit-remaining'));
    }
    expect(remaining).toEqual(['999', '998', '997', '996']);
  });

  it('reject a signature replayed on the other instance', async () => {
    const { key, signing_secret: signingSecret } = await issueKey({ plan: 'enterprise', scopes: ['directory:read'], require_signature: true });
    const body = JSON.stringify({ query: typename });
    const headers = { ...bearer(key, { 'content-type': 'application/json' }), ...signRequest({ signingSecret: signingSecret!, method: 'POST', url: '/graphql', body }) };
    const accepted = await fetch(`${first.url}/graphql`, { method: 'POST', headers, body });
    expect(accepted.status).toBe(200);
    const replayed = await fetch(`${second.url}/graphql`, { method: 'POST', headers, body });
    expect(replayed.status).toBe(401);
    expect((await replayed.json()).errors[0].extensions.code).toBe('replayed_request');
  });

  it('honour a revocation at once where it was made, and on the other instance within the credential cache time', async () => {
    const { id, key } = await issueKey({ plan: 'pro', scopes: ['directory:read'] });
    expect((await postGraphQL(second.url, key, typename)).status).toBe(200);
    const revoked = await fetch(`${first.url}/v1/admin/api_keys/${id}`, { method: 'DELETE', headers: bearer(adminKey) });
    expect(revoked.status).toBe(200);
    expect((await postGraphQL(first.url, key, typename)).status).toBe(401);

    const deadline = Date.now() + credentialCacheTtlMs + 5_000;
    let status = 0;
    while (Date.now() < deadline && status !== 401) {
      status = (await postGraphQL(second.url, key, typename)).status;
      if (status !== 401) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(status).toBe(401);
  });
});
