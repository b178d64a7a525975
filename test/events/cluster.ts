import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApiKey } from '../../src/access/keys.js';
import type { Database } from '../../src/db/connection.js';
import { newId } from '../../src/shared/ids.js';
import { createSecretBox } from '../../src/shared/secrets.js';
import { openTestDatabase } from '../support/database.js';
import { apiClient, futureSlot, type ApiCall } from '../support/http.js';
import { postgresUrlOf } from '../access/processes.js';
import { testSecretsKey } from '../support/secrets.js';
import { openService } from '../support/bookable.js';

/** A seeded PostgreSQL database for server processes, with one account's key and a bookable service. */
export async function openEventsDatabase(postgresUrl: string) {
  const database: Database = await openTestDatabase({ seeded: true, poolSize: 2, postgresUrl });
  const account = await database.prisma.account.create({ data: { id: newId('account'), name: 'Events cluster' } });
  const { key } = await createApiKey(database.prisma, createSecretBox(Buffer.from(testSecretsKey, 'base64')), {
    accountId: account.id,
    plan: 'business',
    scopes: ['bookings:read', 'bookings:write', 'webhooks:manage'],
  });
  const serviceId = await openService(database.prisma);
  return {
    database,
    key,
    accountId: account.id,
    /** Environment of a server process (startServerProcess) on this database that delivers webhooks to loopback quickly. */
    env: { DATABASE_URL: postgresUrlOf(database), WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_POLL_MS: '20', WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms,100ms,100ms' },
    /** Books one place per day from `firstDay` on, `count` times, through the given servers in turn. */
    async book(serverUrls: string[], firstDay: number, count: number): Promise<string[]> {
      const calls: ApiCall[] = serverUrls.map((url) => apiClient(url, key));
      const responses = await Promise.all(
        Array.from({ length: count }, (_, index) =>
          calls[index % calls.length]!('POST', '/v1/bookings', {
            service_id: serviceId,
            start_time: futureSlot(firstDay + index),
            customer: { name: 'Cluster', email: 'cluster@example.com' },
          }),
        ),
      );
      if (responses.some((response) => response.status !== 201)) throw new Error(`booking failed: ${JSON.stringify(responses.find((response) => response.status !== 201))}`);
      return responses.map((response) => response.body.id as string);
    },
    /** The account's event ids in log order. */
    async eventIds(): Promise<string[]> {
      const events = await database.prisma.bookingEvent.findMany({ where: { accountId: account.id }, orderBy: { seq: 'asc' }, select: { id: true } });
      return events.map((event) => event.id);
    },
    /** Resolves once no delivery is pending any more; returns them all. */
    async settledDeliveries(ms = 60_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const deliveries = await database.prisma.webhookDelivery.findMany({ include: { attempts: true } });
        if (deliveries.length > 0 && deliveries.every((delivery) => delivery.status !== 'pending')) return deliveries;
        if (Date.now() > deadline) throw new Error('deliveries still pending');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
  };
}

/**
 * A loopback receiver that holds every request `holdMs` before answering 200, so deliveries are
 * caught in flight. It records each request's path and webhook-id as it arrives.
 */
export async function startHoldingReceiver(holdMs: number) {
  const received: { path: string; webhookId: string }[] = [];
  let unanswered = 0;
  const server = createServer((request, response) => {
    received.push({ path: request.url ?? '', webhookId: String(request.headers['webhook-id']) });
    unanswered += 1;
    request.resume();
    setTimeout(() => {
      unanswered -= 1;
      response.writeHead(200).end();
    }, holdMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    inFlight: () => unanswered,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Polls `condition` every 20 ms until it holds, or fails after `ms`. */
export async function until(condition: () => boolean, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
