/**
 * Live availability: a place taken (a REST booking) reaching 1,000 subscribers of one service and
 * range, as widgets on 1,000 pages would follow it.
 *
 *   npx tsx bench/availability-live.ts     (BENCH_SUBSCRIBERS=1000 the subscribers, BENCH_BOOKINGS=24 the bookings,
 *                                           BENCH_RANGES=distinct for 329 distinct ranges instead of one)
 *
 * Prints a table, then one JSON line of the figures.
 *
 * The server runs in a child process on a scratch PostgreSQL database (BENCH_POSTGRES_URL, else
 * postgresql://postgres@127.0.0.1:5432/postgres when reachable, else in-memory PGlite); the
 * subscribers in two more, apart from the server and from this process, which books: half over
 * graphql-ws (a socket each), a quarter as GraphQL SSE and a quarter as REST's event stream
 * (`Accept: text/event-stream` on GET /v1/services/{id}/availability). Every subscriber follows the
 * same service and two days (48 hourly slots); with BENCH_RANGES=distinct, each follows one of 329
 * distinct ranges of 2 to 31 days that hold those two days, as widgets of many sites would (each
 * shows its own window). Bookings are sequential, each in a slot of its own;
 * latency runs from sending a booking's POST to each subscriber's receipt of the slot it changed,
 * timed on the machine's clock (the processes share it).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createApiKey } from '../src/access/keys.js';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase, parseDatabaseUrl } from '../src/db/connection.js';
import { applyMigrations } from '../src/db/migrator.js';
import { newId } from '../src/shared/ids.js';
import { createSecretBox, randomSecretsKey } from '../src/shared/secrets.js';
import { openFeed, type AvailabilityFeed, type Transport } from '../test/support/live-availability.js';
import { benchServerOptions, closeWhenParentLeaves, createBenchService, forkServer, reachable, withScratchDatabase } from './support.js';

const subscriberCount = Number(process.env['BENCH_SUBSCRIBERS'] ?? 1000);
const bookingCount = Number(process.env['BENCH_BOOKINGS'] ?? 24);
/** Subscribers per key: a key holds at most 1,000 open subscriptions; half keeps them well apart. */
const subscribersPerKey = 500;
const distinctRanges = process.env['BENCH_RANGES'] === 'distinct';
/** The days booked (after today, UTC), an hourly slot each (everyHour): every range holds both. */
const bookedDays = distinctRanges ? [15, 16] : [1, 2];

/** Ranges of days after today: [first, last]. One, or every range within 31 days that holds the booked days and starts after today. */
const ranges: (readonly [number, number])[] = distinctRanges
  ? Array.from({ length: bookedDays[0]! - 1 }, (_, before) => before).flatMap((before) =>
      Array.from({ length: 30 - before }, (_, after) => [bookedDays[0]! - before, bookedDays[1]! + after] as const),
    )
  : [[bookedDays[0]!, bookedDays[1]!]];
const rangeOf = (index: number) => ranges[index % ranges.length]!;
const goalP99Ms = 200;

interface Fixture {
  url: string;
  bookingKey: string;
  subscriberKeys: string[];
  serviceId: string;
}

/** A subscriber process's share: which transports, how many of each. */
type Share = Partial<Record<Transport, number>>;

/** Messages between this process and a subscriber process. */
type ToSubscribers = { collect: string } | { close: true };
type FromSubscribers = { ready: number } | { failed: string } | { receipts: string; times: number[] };

/** Milliseconds on the machine's clock, comparable across processes. */
const wallMs = () => performance.timeOrigin + performance.now();

const dayOf = (offset: number) => new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000 + offset * 86_400_000).toISOString().slice(0, 10);

// ---------------------------------------------------------------- child: the server

async function serve(databaseUrl: string) {
  const config = loadConfig({ DATABASE_URL: databaseUrl, SEED_ON_START: 'never', LOG_LEVEL: 'silent', DATABASE_POOL_SIZE: '20' });
  const database = await openDatabase(parseDatabaseUrl(databaseUrl), { poolSize: config.DATABASE_POOL_SIZE });
  await applyMigrations(database);
  const { prisma } = database;
  const { service } = await createBenchService(prisma);
  const secrets = createSecretBox(randomSecretsKey());
  const keyIn = async (name: string, scopes: ('bookings:read' | 'bookings:write')[]) => {
    const account = await prisma.account.create({ data: { id: newId('account'), name } });
    return (await createApiKey(prisma, secrets, { accountId: account.id, plan: 'enterprise', promo: true, scopes })).key;
  };
  // API keys stand in for the widgets' tokens, whose per-minute budget is shared by each client
  // address (all subscribers here come from one). They read and book nothing; the booker is another account.
  const subscriberKeys: string[] = [];
  for (let index = 0; index < Math.ceil(subscriberCount / subscribersPerKey); index++) subscriberKeys.push(await keyIn(`Widgets ${index}`, ['bookings:read']));
  const bookingKey = await keyIn('Box office', ['bookings:read', 'bookings:write']);
  const app = createApp({ config, database, secrets });
  const url = await app.listen(0, '127.0.0.1');
  process.send!({ url, bookingKey, subscriberKeys, serviceId: service.id } satisfies Fixture);
  closeWhenParentLeaves(app, database);
}

// ---------------------------------------------------------------- child: subscribers

async function until(condition: () => boolean, what: string, ms = 120_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function subscribe(fixture: Fixture, share: Share, firstIndex: number) {
  const send = (message: FromSubscribers) => process.send!(message);
  /** Receipt times of each changed slot (by start time), over all of this process's subscribers. */
  const receipts = new Map<string, number[]>();
  const feeds: AvailabilityFeed[] = [];
  const snapshots: Promise<unknown>[] = [];
  try {
    let index = firstIndex;
    for (const [transport, count] of Object.entries(share) as [Transport, number][]) {
      for (let opened = 0; opened < count; opened++, index++) {
        const [first, last] = rangeOf(index);
        const feed = await openFeed(transport, {
          baseUrl: fixture.url,
          credential: fixture.subscriberKeys[Math.floor(index / subscribersPerKey)]!,
          serviceId: fixture.serviceId,
          startDate: dayOf(first),
          endDate: dayOf(last),
          timeoutMs: 120_000,
        });
        feeds.push(feed);
        // The first slots are the state when it subscribed; every one after is a change, timed as it arrives.
        const snapshot = feed.take((last - first + 1) * 24);
        snapshots.push(snapshot);
        // A stream that fails later stops here, and counts as a subscriber not reached.
        void snapshot
          .then(async () => {
            for (;;) {
              const slot = await feed.next();
              const at = wallMs();
              const times = receipts.get(slot.startTime);
              if (times) times.push(at);
              else receipts.set(slot.startTime, [at]);
            }
          })
          .catch(() => undefined);
        // Opened in steps, so the server's connection_init deadline is not outrun; a refusal fails the run.
        if (feeds.length % 100 === 0) await Promise.all(snapshots);
      }
    }
    await Promise.all(snapshots);
    send({ ready: feeds.length });
  } catch (error) {
    process.send!({ failed: String(error) } satisfies FromSubscribers, () => process.exit(1));
    return;
  }
  process.on('message', (message: ToSubscribers) => {
    if ('close' in message) {
      for (const feed of feeds) feed.close();
      process.exit(0);
    }
    const slot = message.collect;
    // Every subscriber once, or what came within the wait: a subscriber not reached counts as such.
    void until(() => (receipts.get(slot)?.length ?? 0) >= feeds.length, `slot ${slot}`, 10_000)
      .catch(() => undefined)
      .then(() => send({ receipts: slot, times: receipts.get(slot) ?? [] }));
  });
}

// ---------------------------------------------------------------- parent: bookings and figures

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * fraction) - 1)]!;
}

function nextMessage(child: ChildProcess): Promise<FromSubscribers> {
  return new Promise((resolve) => child.once('message', (message) => resolve(message as FromSubscribers)));
}

async function book(fixture: Fixture, startTime: string): Promise<void> {
  const response = await fetch(`${fixture.url}/v1/bookings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${fixture.bookingKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ service_id: fixture.serviceId, start_time: startTime, customer: { name: 'Bench', email: 'bench@example.com' } }),
  });
  if (response.status !== 201) throw new Error(`booking gave ${response.status}: ${await response.text()}`);
}

async function benchDatabase(label: string, databaseUrl: string) {
  const loadBefore = loadavg()[0]!;
  const { child: server, fixture } = await forkServer<Fixture>(import.meta.url, ['serve', databaseUrl]);
  const websocketShare = Math.ceil(subscriberCount / 2);
  const sseShare = subscriberCount - websocketShare;
  const shares: Share[] = [{ 'graphql-ws': websocketShare }, { 'graphql-sse': Math.ceil(sseShare / 2), 'rest-sse': Math.floor(sseShare / 2) }];
  const subscribers: ChildProcess[] = [];
  try {
    const connectStarted = performance.now();
    let firstIndex = 0;
    for (const share of shares) {
      const child = fork(fileURLToPath(import.meta.url), ['subscribe', JSON.stringify(fixture), JSON.stringify(share), String(firstIndex)], benchServerOptions());
      subscribers.push(child);
      firstIndex += Object.values(share).reduce((sum, count) => sum + count, 0);
    }
    const ready = await Promise.all(subscribers.map(nextMessage));
    const refused = ready.find((message): message is { failed: string } => 'failed' in message);
    if (refused) throw new Error(`a subscriber process failed: ${refused.failed}`);
    const connectSeconds = (performance.now() - connectStarted) / 1000;

    const latencies: number[] = [];
    const reachedPerBooking: number[] = [];
    for (let booking = 0; booking < bookingCount; booking++) {
      const day = bookedDays[Math.floor(booking / 24) % bookedDays.length]!;
      const startTime = `${dayOf(day)}T${String(booking % 24).padStart(2, '0')}:00:00.000Z`;
      const slot = startTime.replace('.000Z', 'Z');
      const sent = wallMs();
      await book(fixture, startTime);
      const answers = await Promise.all(
        subscribers.map((child) => {
          const answer = nextMessage(child);
          child.send({ collect: slot } satisfies ToSubscribers);
          return answer;
        }),
      );
      const times = answers.flatMap((answer) => ('times' in answer ? answer.times : []));
      reachedPerBooking.push(times.length);
      latencies.push(...times.map((time) => time - sent));
    }
    latencies.sort((a, b) => a - b);
    const loadAfter = loadavg()[0]!;
    const reached = Math.min(...reachedPerBooking);
    const figures = {
      database: label,
      subscribers: subscriberCount,
      bookings: bookingCount,
      'connect s': Number(connectSeconds.toFixed(1)),
      'p50 ms': Math.round(percentile(latencies, 0.5)),
      'p95 ms': Math.round(percentile(latencies, 0.95)),
      'p99 ms': Math.round(percentile(latencies, 0.99)),
      'max ms': Math.round(latencies.at(-1)!),
      'subscribers reached (fewest of any booking)': reached,
    };
    console.log(
      `\n${label}: a place taken → ${subscriberCount} live availability subscribers (${shares.map((share) => JSON.stringify(share)).join(' + ')}) of ${Math.min(ranges.length, subscriberCount)} range(s), ${bookingCount} sequential bookings`,
    );
    console.table([figures]);
    console.log(
      `1-minute load average: ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after; goal p99 < ${goalP99Ms} ms: ${figures['p99 ms'] < goalP99Ms && reached === subscriberCount ? 'met' : 'NOT met'}`,
    );
    console.log(
      JSON.stringify({
        bench: 'availability-live',
        database: label,
        node: process.version,
        subscribers: subscriberCount,
        ranges: Math.min(ranges.length, subscriberCount),
        bookings: bookingCount,
        reached,
        p50Ms: figures['p50 ms'],
        p95Ms: figures['p95 ms'],
        p99Ms: figures['p99 ms'],
        maxMs: figures['max ms'],
        loadBefore: Number(loadBefore.toFixed(2)),
        loadAfter: Number(loadAfter.toFixed(2)),
      }),
    );
  } finally {
    // The subscribers leave first, so the server's shutdown closes none of their streams.
    await Promise.all(
      subscribers.map((child) => {
        if (child.exitCode !== null) return undefined;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        if (child.connected) child.send({ close: true } satisfies ToSubscribers);
        return exited;
      }),
    );
    server.disconnect();
  }
}

async function main() {
  const [mode, first, second, third] = process.argv.slice(2);
  if (mode === 'serve') return serve(first!);
  if (mode === 'subscribe') return subscribe(JSON.parse(first!) as Fixture, JSON.parse(second!) as Share, Number(third));
  const postgresUrl = process.env['BENCH_POSTGRES_URL'] ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  if (await reachable(postgresUrl, 5432)) {
    await withScratchDatabase(postgresUrl, 'hallowgate_bench_live', (url) => benchDatabase('PostgreSQL (pool 20)', url));
  } else {
    await benchDatabase('PGlite (memory)', 'pglite:memory');
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
