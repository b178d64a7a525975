import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultProxy } from '../support/fault-proxy.js';
import { apiClient, type ApiCall } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { requireService } from '../support/services.js';

const postgresUrl = await requireService('postgres');

describe.skipIf(!postgresUrl)('a PostgreSQL outage', () => {
  let proxy: Awaited<ReturnType<typeof startFaultProxy>>;
  let server: TestServer;
  let call: ApiCall;

  beforeAll(async () => {
    proxy = await startFaultProxy(postgresUrl!);
    server = await startTestServer({ seed: true, postgresUrl: proxy.url });
    call = apiClient(server.url, (await server.createKey()).key);
  });
  afterAll(async () => {
    proxy?.restore();
    await server?.close();
    await proxy?.close();
  });

  const readiness = async () => (await fetch(`${server.url}/readyz`)).status;

  it('shows on /readyz and answers 503 problems, then recovers without a restart', async () => {
    // A key the server has not seen yet must be looked up in the database during the outage.
    const unseen = apiClient(server.url, (await server.createKey()).key);
    expect(await readiness()).toBe(200);
    expect((await call('GET', '/v1/services?limit=1')).status).toBe(200);

    proxy.cut();
    await expect.poll(readiness, { timeout: 10_000 }).toBe(503);
    for (const during of [await call('GET', '/v1/services?limit=1'), await unseen('GET', '/v1/services?limit=1')]) {
      expect(during.status).toBe(503);
      expect(during.headers.get('content-type')).toContain('application/problem+json');
      expect(during.body).toMatchObject({ status: 503, code: 'service_unavailable' });
    }
    const graphql = await call('POST', '/graphql', { query: '{ categories { edges { node { slug } } } }' });
    expect(graphql.body.errors[0].extensions.code).toBe('service_unavailable');
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const scrape = await fetch(`${server.url}/metrics`);
    expect(scrape.status).toBe(200);
    expect(await scrape.text()).toContain('hallowgate_webhook_queue_depth Nan');

    proxy.restore();
    await expect.poll(readiness, { timeout: 15_000 }).toBe(200);
    await expect.poll(async () => (await call('GET', '/v1/services?limit=1')).status, { timeout: 15_000 }).toBe(200);
  });
});
