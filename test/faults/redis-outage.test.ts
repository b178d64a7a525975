import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest } from '../../src/access/signing.js';
import { startFaultProxy } from '../support/fault-proxy.js';
import { apiClient, futureSlot, type ApiCall } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { requireService } from '../support/services.js';

const redisUrl = await requireService('redis');

describe.skipIf(!redisUrl)('a Redis outage', () => {
  let proxy: Awaited<ReturnType<typeof startFaultProxy>>;
  let server: TestServer;
  let call: ApiCall;
  let signed: { key: string; signingSecret: string };

  beforeAll(async () => {
    proxy = await startFaultProxy(redisUrl!);
    server = await startTestServer({ seed: true, config: { REDIS_URL: proxy.url } });
    call = apiClient(server.url, (await server.createKey({ plan: 'free' })).key);
    const enterprise = await server.createKey({ plan: 'enterprise', requireSignature: true });
    signed = { key: enterprise.key, signingSecret: enterprise.signingSecret! };
  });
  afterAll(async () => {
    proxy?.restore();
    await server?.close();
    await proxy?.close();
  });

  const signedCall = () =>
    fetch(`${server.url}/api/v1/categories`, {
      headers: { authorization: `Bearer ${signed.key}`, ...signRequest({ signingSecret: signed.signingSecret, method: 'GET', url: '/api/v1/categories' }) },
    });

  it('keeps serving with per-instance rate limits, refuses signed requests (fail closed), and recovers', async () => {
    expect((await signedCall()).status).toBe(200);
    const before = await call('GET', '/api/v1/categories');
    expect(before.status).toBe(200);

    proxy.cut();
    const during = await call('GET', '/api/v1/categories');
    expect(during.status).toBe(200);
    // The in-process insurance limiter counts on: the limit holds per instance.
    expect(during.headers.get('x-ratelimit-limit')).toBe('100');
    expect(Number(during.headers.get('x-ratelimit-remaining'))).toBeLessThan(100);
    const serviceId = (await server.prisma.service.findFirstOrThrow()).id;
    const booked = await apiClient(server.url, (await server.createKey()).key)('POST', '/v1/bookings', {
      service_id: serviceId,
      start_time: futureSlot(33),
      customer: { name: 'Outage', email: 'outage@example.com' },
    });
    expect(booked.status).toBe(201);
    const refused = await signedCall();
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ code: 'service_unavailable' });
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);

    proxy.restore();
    await expect.poll(async () => (await signedCall()).status, { timeout: 15_000, interval: 500 }).toBe(200);
  });
});
