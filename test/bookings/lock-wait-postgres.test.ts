import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiClient, futureSlot, type ApiCall } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { requireService } from '../support/services.js';
import { createService, customer } from './fixtures.js';

const postgresUrl = await requireService('postgres');

let server: TestServer;
let call: ApiCall;

beforeAll(async () => {
  if (!postgresUrl) return;
  server = await startTestServer({ seed: true, config: { DATABASE_STATEMENT_TIMEOUT_MS: 500 }, postgresUrl });
  call = apiClient(server.url, (await server.createKey({ scopes: ['bookings:read', 'bookings:write'] })).key);
});
afterAll(() => server?.close());

it.skipIf(!postgresUrl)('answers a booking still queued on a busy slot at the statement deadline 503 "busy", not "database unavailable"', async () => {
  const serviceId = await createService(server, 5);
  const slot = futureSlot(95);
  expect((await call('POST', '/v1/bookings', { service_id: serviceId, start_time: slot, customer })).status).toBe(201);

  // Another transaction keeps the slot's row locked for longer than the statement deadline.
  let release = () => undefined as void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let signalLocked = () => undefined as void;
  const locked = new Promise<void>((resolve) => (signalLocked = resolve));
  const holder = server.prisma.$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT 1 FROM booking_slots WHERE service_id = ${serviceId} FOR UPDATE`;
      signalLocked();
      await released;
    },
    { timeout: 20_000 },
  );
  await locked;
  try {
    const queued = await call('POST', '/v1/bookings', { service_id: serviceId, start_time: slot, customer });
    expect(queued.status).toBe(503);
    expect(queued.headers.get('retry-after')).toBe('1');
    expect(queued.body).toMatchObject({
      code: 'service_unavailable',
      detail: 'Bookings are busy: a statement ran past its deadline, most often waiting behind other changes to the same slots; retry in a moment.',
    });
  } finally {
    release();
    await holder;
  }
  // The database was never down: once the row is free, the same request books.
  expect((await call('POST', '/v1/bookings', { service_id: serviceId, start_time: slot, customer })).status).toBe(201);
});
