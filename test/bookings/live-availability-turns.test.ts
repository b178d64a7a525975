import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.js';
import { postgresUrlOf, startServerProcess, type ServerProcess } from '../access/processes.js';
import { bearer } from '../access/requests.js';
import { openService } from '../support/bookable.js';
import { openTestDatabase } from '../support/database.js';
import { requireService } from '../support/services.js';

const postgresUrl = await requireService('postgres');

const adminKey = 'key_liveavailabilityturns.sk_operatorsecretoperatorsecret0001';
const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

/**
 * Streams sending a long first state (a month of 5-minute slots each, about 8,600) share the server
 * with other requests: its event loop turns every few slots, so a request that comes meanwhile is
 * read and answered. The server runs in a process of its own, as deployed, and reports the longest
 * its loop went without a turn (prom-client's default metrics, on /metrics).
 */
describe.skipIf(!postgresUrl)('live availability streams sending their first state', () => {
  let database: Database;
  let server: ServerProcess;
  let key: string;
  let serviceId: string;

  beforeAll(async () => {
    database = await openTestDatabase({ seeded: true, poolSize: 1, postgresUrl: postgresUrl! });
    serviceId = await openService(database.prisma, { capacity: 10 });
    server = await startServerProcess({ DATABASE_URL: postgresUrlOf(database), ADMIN_API_KEY: adminKey });
    const admin = (path: string, body: object) =>
      fetch(`${server.url}${path}`, { method: 'POST', headers: bearer(adminKey, { 'content-type': 'application/json' }), body: JSON.stringify(body) }).then((response) =>
        response.json(),
      );
    const account = await admin('/v1/admin/accounts', { name: 'Live availability turns' });
    key = (await admin('/v1/admin/api_keys', { account_id: account.id, plan: 'business', scopes: ['bookings:read'] })).key;
  });
  afterAll(async () => {
    await server?.stop();
    await database?.close();
  });

  /** The longest the server's event loop was kept from a turn since the last read of its metrics, in milliseconds (prom-client's default metric). */
  async function longestLoopDelayMs(): Promise<number> {
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    return Number(/^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(metrics)![1]) * 1000;
  }

  /** Opens the service's availability of 30 days as an event stream, and reads its whole first state (up to the event carrying the state's id): how many slots it sent. */
  async function firstState(): Promise<number> {
    const controller = new AbortController();
    const response = await fetch(`${server.url}/v1/services/${serviceId}/availability?start_date=${day(1)}&end_date=${day(30)}`, {
      headers: bearer(key, { accept: 'text/event-stream' }),
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    const decoder = new TextDecoder();
    let slots = 0;
    let tail = '';
    const reader = response.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const lines = (tail + decoder.decode(value, { stream: true })).split('\n');
      tail = lines.pop()!;
      slots += lines.filter((line) => line.startsWith('data:')).length;
      // The first state's last slot carries its id, a non-empty one.
      if (lines.some((line) => /^id: .+/.test(line))) break;
    }
    controller.abort();
    return slots;
  }

  it('keep the server from other work for a few slots at a time, not for a whole state', async () => {
    await longestLoopDelayMs();
    const startedAt = performance.now();
    const slotsSent = await Promise.all(Array.from({ length: 5 }, firstState));
    const tookMs = performance.now() - startedAt;
    // Each stream sent its whole first state: 30 days of a slot every 5 minutes.
    for (const sent of slotsSent) expect(sent).toBeGreaterThan(29 * 288);
    const longestDelayMs = await longestLoopDelayMs();
    // Measured: under a twentieth of the whole time. Before, each stream's first state went out in one
    // run of promise callbacks, and the loop was kept for a fifth to a half of it.
    expect(longestDelayMs).toBeLessThan(tookMs / 8);
  });
});
