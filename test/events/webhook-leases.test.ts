import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptDelivery, attemptOptionsOf, leaseMarginMs, type ClaimedDelivery } from '../../src/events/webhooks/worker.js';
import { postgresUrlOf } from '../access/processes.js';
import { openService } from '../support/bookable.js';
import { apiClient, futureSlot } from '../support/http.js';
import { startTwoInstances, type TestServer } from '../support/server.js';
import { startHangingReceiver } from '../support/receiver.js';
import { requireService } from '../support/services.js';

const postgresUrl = await requireService('postgres');

/** The key of the lock that claims and test events take turns on (takeDeliveryTurn). */
const claimTurn = "hashtext('hallowgate:webhook-claim')";
const timeoutMs = 1_000;

let server: TestServer;
let instances: Awaited<ReturnType<typeof startTwoInstances>> | undefined;
let serviceId: string;

beforeAll(async () => {
  if (!postgresUrl) return;
  // Deadlines long enough for a claim to wait out the turn held below, as one waiting for a busy pool can.
  const config = {
    WEBHOOK_TIMEOUT_MS: timeoutMs,
    WEBHOOK_POLL_MS: 25,
    WEBHOOK_RETRY_SCHEDULE: '1h',
    DATABASE_STATEMENT_TIMEOUT_MS: 30_000,
    DATABASE_TRANSACTION_TIMEOUT_MS: 30_000,
  };
  instances = await startTwoInstances({ seed: true, postgresUrl, config });
  ({ server } = instances);
  serviceId = await openService(server.prisma);
});
afterAll(() => instances?.close());

describe.skipIf(!postgresUrl)('webhook leases (PostgreSQL, two instances)', () => {
  it('are counted from when a claim takes its turn: a claim that waited longer than the lease margin still sends alone', async () => {
    const receiver = await startHangingReceiver();
    const endpointUrl = `${receiver.url}/hooks`;
    const { key } = await server.createKey();
    const call = apiClient(server.url, key);
    expect((await call('POST', '/v1/webhook_endpoints', { url: endpointUrl })).status).toBe(201);

    // Both instances' claims queue behind this session for longer than the lease's margin.
    const holder = new pg.Client({ connectionString: postgresUrlOf(server.database) });
    await holder.connect();
    try {
      await holder.query(`SELECT pg_advisory_lock(${claimTurn})`);
      expect((await call('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(40), customer: { name: 'Lease', email: 'lease@example.com' } })).status).toBe(201);
      await new Promise((resolve) => setTimeout(resolve, leaseMarginMs + 1_500));
      await holder.query(`SELECT pg_advisory_unlock(${claimTurn})`);
    } finally {
      await holder.end();
    }

    // The first claim sends; its attempt is cut after timeoutMs, recorded as failed, due again in an hour.
    await expect.poll(() => receiver.requests(), { timeout: 5_000 }).toBe(1);
    await expect.poll(async () => server.prisma.webhookAttempt.count({ where: { delivery: { endpoint: { url: endpointUrl } } } }), { timeout: 5_000 }).toBe(1);
    // Had its lease been timed from before the wait, it would have ended before the attempt did, and
    // the other instance would have claimed and sent the delivery beside it.
    expect(receiver.mostHeld()).toBe(1);
    expect(receiver.requests()).toBe(1);
    await receiver.close();
  }, 30_000);

  it("gives a delivery back untried when its claim comes back with less than half an attempt's time left in the lease", async () => {
    const receiver = await startHangingReceiver();
    const endpointUrl = `${receiver.url}/hooks`;
    const { key } = await server.createKey();
    const call = apiClient(server.url, key);
    const endpoint = (await call('POST', '/v1/webhook_endpoints', { url: endpointUrl })).body;

    // No claim is made while this session holds the claims' turn: the delivery is leased here as a
    // claim would have, with a quarter of an attempt's time left in its lease, and attempted.
    const holder = new pg.Client({ connectionString: postgresUrlOf(server.database) });
    await holder.connect();
    const lockedUntil = new Date(Date.now() + leaseMarginMs + timeoutMs / 4);
    let pending;
    try {
      await holder.query(`SELECT pg_advisory_lock(${claimTurn})`);
      expect((await call('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(41), customer: { name: 'Late', email: 'late@example.com' } })).status).toBe(201);
      pending = await server.prisma.webhookDelivery.findFirstOrThrow({ where: { endpointId: endpoint.id } });
      await server.prisma.webhookDelivery.update({ where: { id: pending.id }, data: { lockedUntil, attemptCount: 1 } });
      const claimed: ClaimedDelivery = {
        id: pending.id,
        endpoint_id: endpoint.id,
        message_id: pending.messageId,
        payload: pending.payload,
        attempt_count: 1,
        locked_until: lockedUntil,
        trace_parent: null,
      };
      const { services } = server.app;
      await attemptDelivery(attemptOptionsOf(services.config, { prisma: server.prisma, logger: services.logger, clock: services.clock, secrets: services.secrets }), claimed);
      const after = await server.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: pending.id }, include: { attempts: true } });
      expect(after).toMatchObject({ lockedUntil: null, attemptCount: 0, attempts: [] });
      expect(receiver.requests()).toBe(0);
    } finally {
      await holder.query(`SELECT pg_advisory_unlock(${claimTurn})`);
      await holder.end();
    }

    // Claimed again at once: its first attempt is attempt 1.
    await expect.poll(() => receiver.requests(), { timeout: 5_000 }).toBe(1);
    await expect
      .poll(async () => (await server.prisma.webhookAttempt.findMany({ where: { deliveryId: pending.id } })).map((attempt) => attempt.attemptNumber), { timeout: 5_000 })
      .toEqual([1]);
    await receiver.close();
  }, 30_000);
});
