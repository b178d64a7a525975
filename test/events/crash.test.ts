import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../access/processes.js';
import { apiClient } from '../support/http.js';
import { requireService } from '../support/services.js';
import { openEventsDatabase, startHoldingReceiver, until } from './cluster.js';

const postgresUrl = await requireService('postgres');

const endpointPaths = ['/a', '/b', '/c'];

/** A server killed with SIGKILL mid-delivery, then restarted: the durable queue and leases must lose nothing. */
describe.skipIf(!postgresUrl)('webhook delivery across a crash', () => {
  let cluster: Awaited<ReturnType<typeof openEventsDatabase>>;
  let receiver: Awaited<ReturnType<typeof startHoldingReceiver>>;
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    cluster = await openEventsDatabase(postgresUrl!);
    receiver = await startHoldingReceiver(300);
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
    await cluster?.database.close();
  });

  // Two process start-ups (tsx compiles the server each time) dominate its time; allow for a loaded machine.
  it('delivers every event to every endpoint after a kill -9, with stable webhook-ids, duplicating only what was in flight', async () => {
    // The lease is this timeout plus 5 s: what the crashed instance held is claimed again after it.
    const env = { ...cluster.env, WEBHOOK_TIMEOUT_MS: '2000' };
    server = await startServerProcess(env);
    const call = apiClient(server.url, cluster.key);
    for (const path of endpointPaths) {
      expect((await call('POST', '/v1/webhook_endpoints', { url: `${receiver.url}${path}` })).status).toBe(201);
    }
    await cluster.book([server.url], 10, 12);

    await until(() => receiver.received.length >= 4 && receiver.inFlight() > 0, 'deliveries in flight');
    const crashed = server.process;
    const exited = new Promise((resolve) => crashed.once('exit', resolve));
    crashed.kill('SIGKILL');
    await exited;
    const receivedBeforeCrash = new Set(receiver.received.map((webhook) => webhook.webhookId));

    server = await startServerProcess(env);
    const deliveries = await cluster.settledDeliveries();
    expect(deliveries.every((delivery) => delivery.status === 'succeeded')).toBe(true);

    const eventIds = await cluster.eventIds();
    expect(eventIds).toHaveLength(12);
    for (const path of endpointPaths) {
      const ids = receiver.received.filter((webhook) => webhook.path === path).map((webhook) => webhook.webhookId);
      // In log order once repeats are folded, and a repeat only of what the crash interrupted.
      expect(ids.filter((id, index) => id !== ids[index - 1])).toEqual(eventIds);
      const repeated = ids.filter((id, index) => ids.indexOf(id) !== index);
      expect(repeated.every((id) => receivedBeforeCrash.has(id))).toBe(true);
    }
  }, 180_000);
});
