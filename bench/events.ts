/**
 * Booking events: webhook deliveries per second to a loopback receiver, then event-to-subscriber
 * latency with 1,000 and 10,000 concurrent graphql-ws subscribers.
 *
 *   npx tsx bench/events.ts            (BENCH_SUBSCRIBERS=1000,10000 to choose the counts,
 *                                       BENCH_DELIVERIES_PER_ENDPOINT=200 the queue)
 *
 * Prints its tables, then one JSON line of the figures.
 *
 * The server runs in a child process on a scratch PostgreSQL database (BENCH_POSTGRES_URL, else
 * postgresql://postgres@127.0.0.1:5432/postgres when reachable, else in-memory PGlite). Its
 * delivery queue is filled before it starts: 50 endpoints × 200 deliveries, so the worker runs
 * flat out. All subscribers belong to one account (the worst case: every commit wakes all of them);
 * latency runs from sending the booking's POST to the subscriber's receipt of its event.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { createApiKey } from '../src/access/keys.js';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase, parseDatabaseUrl } from '../src/db/connection.js';
import { applyMigrations } from '../src/db/migrator.js';
import { newId } from '../src/shared/ids.js';
import { createSecretBox, randomSecretsKey } from '../src/shared/secrets.js';
import { createBenchService, forkServer, reachable, withScratchDatabase, closeWhenParentLeaves } from './support.js';

const endpointCount = 50;
const deliveriesPerEndpoint = Number(process.env['BENCH_DELIVERIES_PER_ENDPOINT'] ?? 200);
const latencyEvents = 20;
const subscriberCounts = (process.env['BENCH_SUBSCRIBERS'] ?? '1000,10000').split(',').map(Number);

interface Fixture {
  url: string;
  key: string;
  /** Keys of the same account for the subscribers: a key holds at most 1,000 open subscriptions. */
  subscriberKeys: string[];
  serviceId: string;
}

// ---------------------------------------------------------------- child: the server

async function serve(databaseUrl: string, receiverUrl: string) {
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    SEED_ON_START: 'never',
    LOG_LEVEL: 'silent',
    DATABASE_POOL_SIZE: '20',
    WEBHOOK_ALLOW_PRIVATE: '1',
    WEBHOOK_POLL_MS: '50',
  });
  const database = await openDatabase(parseDatabaseUrl(databaseUrl), { poolSize: config.DATABASE_POOL_SIZE });
  await applyMigrations(database);
  const { prisma } = database;
  const { service } = await createBenchService(prisma);
  const account = await prisma.account.create({ data: { id: newId('account'), name: 'Bench' } });
  const secrets = createSecretBox(randomSecretsKey());
  const { key } = await createApiKey(prisma, secrets, { accountId: account.id, plan: 'enterprise', promo: true, scopes: ['bookings:read', 'bookings:write'] });
  const subscriberKeys: string[] = [];
  for (let index = 0; index < Math.ceil(Math.max(...subscriberCounts) / 1000); index++) {
    subscriberKeys.push((await createApiKey(prisma, secrets, { accountId: account.id, plan: 'enterprise', promo: true, scopes: ['bookings:read'] })).key);
  }

  // The queue as a burst of commits would leave it; the worker starts with the app. The endpoints
  // take only cancellations, so the bookings of the latency runs add no deliveries.
  for (let endpointIndex = 0; endpointIndex < endpointCount; endpointIndex++) {
    const endpoint = await prisma.webhookEndpoint.create({
      data: {
        id: newId('webhookEndpoint'),
        accountId: account.id,
        url: `${receiverUrl}/${endpointIndex}`,
        events: ['booking.cancelled'],
        // Stored as the product stores it: sealed under SECRETS_KEY.
        secret: secrets.seal(`whsec_${Buffer.alloc(32, endpointIndex).toString('base64')}`),
      },
    });
    await prisma.webhookDelivery.createMany({
      data: Array.from({ length: deliveriesPerEndpoint }, (_, seq) => {
        const messageId = newId('bookingEvent');
        return {
          id: newId('webhookDelivery'),
          endpointId: endpoint.id,
          messageId,
          eventType: 'booking.created',
          seq,
          payload: { id: messageId, event: 'booking.created', data: { seq } },
        };
      }),
    });
  }
  const app = createApp({ config, database, secrets });
  const url = await app.listen(0, '127.0.0.1');
  process.send!({ url, key, subscriberKeys, serviceId: service.id } satisfies Fixture);
  closeWhenParentLeaves(app, database);
}

// ---------------------------------------------------------------- parent: receiver and subscribers

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

async function until(condition: () => boolean, what: string, ms = 300_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function startCountingReceiver() {
  const receipts: number[] = [];
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      receipts.push(performance.now());
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, receipts, close: () => server.close() };
}

async function book(fixture: Fixture, hour: number): Promise<string> {
  const start = new Date();
  start.setUTCHours(24 + hour, 0, 0, 0);
  const response = await fetch(`${fixture.url}/v1/bookings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${fixture.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ service_id: fixture.serviceId, start_time: start.toISOString(), customer: { name: 'Bench', email: 'bench@example.com' } }),
  });
  if (response.status !== 201) throw new Error(`booking gave ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}

async function lastEventId(fixture: Fixture): Promise<string> {
  const response = await fetch(`${fixture.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${fixture.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ bookingEvents(last: 1) { edges { node { id } } } }' }),
  });
  const body = (await response.json()) as { data: { bookingEvents: { edges: { node: { id: string } }[] } } };
  return body.data.bookingEvents.edges[0]!.node.id;
}

async function subscriberLatency(fixture: Fixture, subscribers: number, firstHour: number) {
  // Subscribers replay from the event before the latest one: once each has it, all are live.
  await book(fixture, firstHour);
  const replayFrom = await lastEventId(fixture);
  const warmBooking = await book(fixture, firstHour + 1);
  const receipts = new Map<string, number[]>();
  const clients: Client[] = [];
  const connectStarted = performance.now();
  let connected = 0;
  const failures: string[] = [];
  for (let index = 0; index < subscribers; index++) {
    const client = createClient({
      url: `${fixture.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${fixture.subscriberKeys[Math.floor(index / 1000)]}` },
      retryAttempts: 0,
      lazy: false,
      onNonLazyError: (error) => failures.push(String((error as { code?: number }).code ?? error)),
      on: { connected: () => void connected++ },
    });
    clients.push(client);
    client.subscribe<{ bookingEvents: { data: { id: string } } }>(
      { query: 'subscription($after: ID) { bookingEvents(after: $after) { data } }', variables: { after: replayFrom } },
      {
        next: ({ data }) => {
          const bookingId = data!.bookingEvents.data.id;
          const list = receipts.get(bookingId) ?? [];
          list.push(performance.now());
          receipts.set(bookingId, list);
        },
        error: (error) => failures.push((error as { code?: number; reason?: string }).reason ?? String(error)),
        complete: () => undefined,
      },
    );
    // Connect in steps of 100, so the server's 3 s connection_init timeout is not outrun.
    if (index % 100 === 99) await until(() => connected > index || failures.length > 0, 'connections');
    if (failures.length > 0) throw new Error(`subscriber failed: ${failures[0]}`);
  }
  await until(() => (receipts.get(warmBooking)?.length ?? 0) >= subscribers, 'every subscriber to replay');
  const connectSeconds = (performance.now() - connectStarted) / 1000;

  const latencies: number[] = [];
  const fanOutMs: number[] = [];
  for (let event = 0; event < latencyEvents; event++) {
    const sent = performance.now();
    const bookingId = await book(fixture, firstHour + 2 + event);
    await until(() => (receipts.get(bookingId)?.length ?? 0) >= subscribers, `event ${event} at every subscriber`);
    const times = receipts.get(bookingId)!;
    latencies.push(...times.map((time) => time - sent));
    fanOutMs.push(Math.max(...times) - sent);
  }
  await Promise.all(clients.map((client) => client.dispose()));
  latencies.sort((a, b) => a - b);
  return {
    subscribers,
    'connect+replay s': Number(connectSeconds.toFixed(1)),
    events: latencyEvents,
    'p50 ms': Math.round(percentile(latencies, 0.5)),
    'p99 ms': Math.round(percentile(latencies, 0.99)),
    'last subscriber, mean ms': Math.round(fanOutMs.reduce((sum, value) => sum + value, 0) / fanOutMs.length),
  };
}

async function benchDatabase(label: string, databaseUrl: string) {
  const receiver = await startCountingReceiver();
  const { child, fixture } = await forkServer<Fixture>(import.meta.url, ['serve', databaseUrl, receiver.url]);
  try {
    const total = endpointCount * deliveriesPerEndpoint;
    await until(() => receiver.receipts.length >= total, 'every delivery');
    const seconds = (receiver.receipts[total - 1]! - receiver.receipts[0]!) / 1000;
    console.log(`\n${label}: ${total} webhook deliveries (${endpointCount} endpoints) in ${seconds.toFixed(1)} s = ${Math.round(total / seconds)} deliveries/s`);
    console.log(`${label}: event-to-subscriber latency (one account, graphql-ws, ${latencyEvents} sequential bookings)`);
    let hour = 0;
    const fanOut: Awaited<ReturnType<typeof subscriberLatency>>[] = [];
    for (const subscribers of subscriberCounts) {
      const figures = await subscriberLatency(fixture, subscribers, hour);
      fanOut.push(figures);
      console.table([{ database: label, ...figures }]);
      hour += latencyEvents + 2;
    }
    console.log(
      JSON.stringify({
        bench: 'events',
        database: label,
        deliveriesPerSecond: Math.round(total / seconds),
        fanOut: fanOut.map((figures) => ({
          subscribers: figures.subscribers,
          p50Ms: figures['p50 ms'],
          p99Ms: figures['p99 ms'],
          lastMeanMs: figures['last subscriber, mean ms'],
        })),
      }),
    );
  } finally {
    child.disconnect();
    receiver.close();
  }
}

async function main() {
  const [mode, databaseUrl, receiverUrl] = process.argv.slice(2);
  if (mode === 'serve') return serve(databaseUrl!, receiverUrl!);
  const postgresUrl = process.env['BENCH_POSTGRES_URL'] ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  if (await reachable(postgresUrl, 5432)) {
    await withScratchDatabase(postgresUrl, 'hallowgate_bench_events', (url) => benchDatabase('PostgreSQL (pool 20)', url));
  } else {
    await benchDatabase('PGlite (memory)', 'pglite:memory');
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
