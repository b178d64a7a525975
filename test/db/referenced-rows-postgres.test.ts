import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { requireService } from '../support/services.js';
import { openService } from '../support/bookable.js';

const postgresUrl = await requireService('postgres');

/**
 * An insert of a row that references another (a booking its account and service, a usage bucket
 * its key) share-locks the referenced row FOR KEY SHARE until its transaction ends, so a busy
 * account's or service's row is held so nearly all the time. Writes that lock such a row to take
 * turns with each other must not wait for those inserts: under load they would wait past the
 * statement deadline and answer 503.
 */
describe.skipIf(!postgresUrl)('writes that lock a row bookings reference, on PostgreSQL', () => {
  let server: TestServer;
  let referencing: pg.Client;

  beforeAll(async () => {
    server = await startTestServer({ seed: true, config: { DATABASE_STATEMENT_TIMEOUT_MS: 1_000 }, postgresUrl: postgresUrl! });
    if (server.database.config.kind !== 'postgres') throw new Error('expected PostgreSQL');
    referencing = new pg.Client({ connectionString: server.database.config.url });
    await referencing.connect();
  });
  afterAll(async () => {
    await referencing?.end();
    await server?.close();
  });

  /** Runs `work` while another transaction holds `table`'s row `id` as a referencing insert's foreign key check does. */
  async function whileReferenced<T>(table: 'accounts' | 'services' | 'api_keys', id: string, work: () => Promise<T>): Promise<T> {
    await referencing.query('BEGIN');
    await referencing.query(`SELECT 1 FROM ${table} WHERE id = $1 FOR KEY SHARE`, [id]);
    try {
      return await work();
    } finally {
      await referencing.query('ROLLBACK');
    }
  }

  it('creates a webhook endpoint, changes a service and adds an alert rule without waiting for them', async () => {
    const owner = await server.createKey({ scopes: ['webhooks:manage', 'analytics:read'] });
    const call = apiClient(server.url, owner.key);
    const created = await whileReferenced('accounts', owner.accountId, () =>
      call('POST', '/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/hooks', events: ['api_key.usage_alert'] }),
    );
    expect(created.status).toBe(201);

    const admin = apiClient(server.url, (await server.createKey({ scopes: ['admin'] })).key);
    const serviceId = await openService(server.prisma);
    const changed = await whileReferenced('services', serviceId, () => admin('PATCH', `/v1/admin/services/${serviceId}`, { capacity: 40 }));
    expect(changed.status).toBe(200);

    const ruled = await whileReferenced('api_keys', owner.keyId, () =>
      call('POST', '/graphql', { query: 'mutation { createAlertRule(input: { metric: ERROR_RATE, threshold: 0.5 }) { id } }' }),
    );
    expect(ruled.body).toMatchObject({ data: { createAlertRule: { id: expect.any(String) } } });
  });
});
