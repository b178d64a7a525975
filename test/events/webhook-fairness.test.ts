import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/shared/ids.js';
import { newWebhookSecret } from '../../src/events/webhooks/signing.js';
import { apiClient, futureSlot } from '../support/http.js';
import { startHangingReceiver, startReceiver } from '../support/receiver.js';
import { startTwoInstances, type TestServer } from '../support/server.js';
import { openService } from '../support/bookable.js';

const perAccount = 4;
let server: TestServer;
let instances: Awaited<ReturnType<typeof startTwoInstances>>;
let serviceId: string;

beforeAll(async () => {
  // Attempts that hang outlast the test: A's deliveries can only arrive if they never wait on B's.
  const config = { WEBHOOK_TIMEOUT_MS: 60_000, WEBHOOK_POLL_MS: 50, WEBHOOK_RETRY_SCHEDULE: '1h', WEBHOOK_CONCURRENCY_PER_ACCOUNT: perAccount };
  // A second instance on the same database: the account's share is counted over both.
  instances = await startTwoInstances({ seed: true, config });
  ({ server } = instances);
  serviceId = await openService(server.prisma);
});
const closers: Array<() => Promise<void>> = [];
// Receivers first: an attempt still hanging would hold the instances' shutdown to its deadline.
afterAll(async () => {
  for (const close of closers) await close();
  await instances?.close();
});

describe('webhook delivery across accounts', () => {
  it("delivers one account's events while another's 30 endpoints hang, in log order, with the hanging account held to its share", async () => {
    const hanging = await startHangingReceiver();
    // What B's endpoints held when each of A's webhooks arrived: its whole share, none of it ended.
    const hangingAtArrival: Array<{ held: number; requests: number }> = [];
    const fast = await startReceiver(() => {
      hangingAtArrival.push({ held: hanging.held(), requests: hanging.requests() });
      return 200;
    });
    closers.push(
      () => hanging.close(),
      () => fast.close(),
    );
    const b = await server.createKey();
    // More endpoints than an account may now create: inserted as if made before the limit existed.
    const secrets = server.app.services.secrets;
    await server.prisma.webhookEndpoint.createMany({
      data: Array.from({ length: 30 }, (_, index) => ({
        id: newId('webhookEndpoint'),
        accountId: b.accountId,
        url: `${hanging.url}/b/${index}`,
        events: [],
        secret: secrets.seal(newWebhookSecret()),
      })),
    });
    const callB = apiClient(server.url, b.key);
    expect((await callB('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(60), customer: { name: 'B', email: 'b@example.com' } })).status).toBe(201);
    await expect.poll(() => hanging.held(), { timeout: 5000 }).toBe(perAccount);

    const callA = apiClient(server.url, (await server.createKey()).key);
    const endpoint = await callA('POST', '/v1/webhook_endpoints', { url: fast.url });
    expect(endpoint.status).toBe(201);
    const booking = await callA('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(61), customer: { name: 'A', email: 'a@example.com' } });
    await callA('PATCH', `/v1/bookings/${booking.body.id}`, { customer: { name: 'A renamed' } });
    await callA('DELETE', `/v1/bookings/${booking.body.id}`);
    const received = await fast.waitFor(3, 20_000);
    expect(received.map((webhook) => JSON.parse(webhook.body).event)).toEqual(['booking.created', 'booking.updated', 'booking.cancelled']);
    expect(hangingAtArrival).toEqual(Array.from({ length: 3 }, () => ({ held: perAccount, requests: perAccount })));
    expect(hanging.mostHeld()).toBe(perAccount);
  });
});
