import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { Prisma, type PrismaClient } from '../generated/prisma/client.js';
import type { Clock } from '../shared/clock.js';
import { settleWithin } from '../shared/deadline.js';

/** Route of every GraphQL request that ran no named operation (refused, anonymous, or named over the length). */
export const otherGraphQLRoute = 'graphql:other';

/** One finished request (or WebSocket operation) of an API key. */
export interface UsageEntry {
  apiKeyId: string;
  /** REST route template (`GET /v1/bookings/:id`) or `graphql:<operationName>`. */
  route: string;
  status: number;
  latencyMs: number;
  bytes: number;
}

/** The totals of one (key, minute, route, status class) bucket, as flushed. */
export interface FlushedBucket {
  apiKeyId: string;
  minute: Date;
  route: string;
  statusClass: string;
  requests: number;
  totalLatencyMs: number;
  bytes: number;
}

export interface UsageRecorder {
  /** Adds the entry to its in-memory bucket; never touches the database. */
  record(entry: UsageEntry): void;
  /** Writes every pending bucket in one additive upsert. */
  flush(): Promise<void>;
  start(): void;
  /** Stops the timer and flushes what is left, waiting at most `deadlineMs` (its stopDeadlineMs unless given). */
  stop(deadlineMs?: number): Promise<void>;
}

export interface RecorderOptions {
  prisma: PrismaClient;
  logger: Logger;
  clock: Clock;
  flushMs: number;
  /** Runs after each successful flush with the buckets it wrote (alert rules look at them). */
  afterFlush?: (buckets: FlushedBucket[]) => Promise<void>;
  /** How long stop() waits for the last flush, the one under way included: a statement's deadline. */
  stopDeadlineMs: number;
}

const minuteMs = 60_000;

/**
 * Distinct GraphQL operations one key is counted under per minute on one instance; its further
 * operations that minute are counted as `graphql:other`. Operation names are the client's choice, so
 * without a cap one key could write any number of usage rows; a real client has far fewer operations.
 */
export const maxOperationRoutesPerKeyMinute = 100;

const statusClasses = ['0xx', '1xx', '2xx', '3xx', '4xx', '5xx'];

export function statusClassOf(status: number): string {
  return statusClasses[Math.floor(status / 100)] ?? 'other';
}

/** A batch of buckets flushed as one, under an id of its own, and sent again as it was until it lands. */
interface Batch {
  id: string;
  /** By (key, minute, route, status class), as pending buckets are. */
  buckets: Map<string, FlushedBucket>;
  /** Sent at least once: it may have landed with its answer lost, so nothing more may join it. */
  sent: boolean;
}

/**
 * Additive, so several instances add into the same rows, and once per batch: the batch's id is
 * claimed in the same statement, so a batch sent again after a lost answer adds nothing the second
 * time. Claims older than a day are pruned as it goes. Keys deleted meanwhile are skipped by the
 * join instead of failing the whole batch.
 */
function upsertStatement(batch: Batch) {
  const buckets = [...batch.buckets.values()];
  return Prisma.sql`
    WITH claimed AS (INSERT INTO usage_flushes (id) VALUES (${batch.id}) ON CONFLICT (id) DO NOTHING RETURNING id),
         pruned AS (DELETE FROM usage_flushes WHERE flushed_at < now() - interval '1 day')
    INSERT INTO usage_buckets (api_key_id, minute, route, status_class, requests, total_latency_ms, bytes)
    SELECT u.api_key_id, to_timestamp(u.minute_epoch) AT TIME ZONE 'UTC', u.route, u.status_class, u.requests, u.total_latency_ms, u.bytes
    FROM unnest(
      ${buckets.map((bucket) => bucket.apiKeyId)}::text[],
      ${buckets.map((bucket) => bucket.minute.getTime() / 1000)}::float8[],
      ${buckets.map((bucket) => bucket.route)}::text[],
      ${buckets.map((bucket) => bucket.statusClass)}::text[],
      ${buckets.map((bucket) => bucket.requests)}::int4[],
      ${buckets.map((bucket) => bucket.totalLatencyMs)}::int4[],
      ${buckets.map((bucket) => bucket.bytes)}::int8[]
    ) AS u(api_key_id, minute_epoch, route, status_class, requests, total_latency_ms, bytes)
    JOIN api_keys k ON k.id = u.api_key_id
    WHERE EXISTS (SELECT 1 FROM claimed)
    ON CONFLICT (api_key_id, minute, route, status_class) DO UPDATE SET
      requests = usage_buckets.requests + excluded.requests,
      total_latency_ms = usage_buckets.total_latency_ms + excluded.total_latency_ms,
      bytes = usage_buckets.bytes + excluded.bytes`;
}

function addTotals(into: FlushedBucket, totals: Pick<FlushedBucket, 'requests' | 'totalLatencyMs' | 'bytes'>): void {
  into.requests += totals.requests;
  into.totalLatencyMs += totals.totalLatencyMs;
  into.bytes += totals.bytes;
}

/** Aggregates usage in memory per (key, minute, route, status class) and flushes it in batches. */
export function createUsageRecorder(options: RecorderOptions): UsageRecorder {
  const { prisma, logger, clock } = options;
  let pending = new Map<string, FlushedBucket>();
  let timer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> = Promise.resolve();
  /** The minute whose operation routes are being counted, and those routes by key. */
  let routesMinute = 0;
  let operationRoutes = new Map<string, Set<string>>();

  /** `route`, or `graphql:other` for an operation beyond the key's cap this minute. */
  function boundedRoute(apiKeyId: string, minute: number, route: string): string {
    if (!route.startsWith('graphql:') || route === otherGraphQLRoute) return route;
    if (minute !== routesMinute) {
      routesMinute = minute;
      operationRoutes = new Map();
    }
    let seen = operationRoutes.get(apiKeyId);
    if (!seen) operationRoutes.set(apiKeyId, (seen = new Set()));
    if (seen.has(route)) return route;
    if (seen.size >= maxOperationRoutesPerKeyMinute) return otherGraphQLRoute;
    seen.add(route);
    return route;
  }

  /** Adds into the pending bucket of (key, minute, route, status class); a new object only for a new bucket. */
  function add(apiKeyId: string, minute: number, route: string, statusClass: string, totals: Pick<FlushedBucket, 'requests' | 'totalLatencyMs' | 'bytes'>) {
    const key = `${apiKeyId}\0${minute}\0${route}\0${statusClass}`;
    const existing = pending.get(key);
    if (!existing) {
      const { requests, totalLatencyMs, bytes } = totals;
      pending.set(key, { apiKeyId, minute: new Date(minute), route, statusClass, requests, totalLatencyMs, bytes });
      return;
    }
    addTotals(existing, totals);
  }

  /** Batches not known to have landed, oldest first: each is sent again as it was, never merged with another once sent. */
  const unsent: Batch[] = [];
  /** Flushes running or waiting: the timer starts none while one is (a database that hangs would queue one per tick). */
  let flushesUnderWay = 0;

  function batchPending(): void {
    if (pending.size === 0) return;
    const newest = unsent.at(-1);
    // A batch never sent takes more in; one sent may have landed, and is kept as it was.
    if (newest && !newest.sent) {
      for (const [key, bucket] of pending) {
        const same = newest.buckets.get(key);
        if (same) addTotals(same, bucket);
        else newest.buckets.set(key, bucket);
      }
    } else unsent.push({ id: randomUUID(), buckets: pending, sent: false });
    pending = new Map();
  }

  async function writePending() {
    batchPending();
    for (let batch = unsent[0]; batch; batch = unsent[0]) {
      batch.sent = true;
      try {
        await prisma.$executeRaw(upsertStatement(batch));
      } catch (error) {
        // Kept, and sent again with the next flush: added once whether or not this one landed.
        logger.warn({ err: error, buckets: batch.buckets.size }, 'usage flush failed; retrying on the next flush');
        return;
      }
      unsent.shift();
      if (options.afterFlush) {
        await options.afterFlush([...batch.buckets.values()]).catch((error: unknown) => logger.error({ err: error }, 'usage alert evaluation failed'));
      }
    }
  }

  function flush(): Promise<void> {
    // One flush at a time: a second waits for the first, then writes what came in meanwhile.
    flushesUnderWay++;
    flushing = flushing.then(writePending).finally(() => flushesUnderWay--);
    return flushing;
  }

  return {
    record(entry) {
      const now = clock().getTime();
      const minute = now - (now % minuteMs);
      add(entry.apiKeyId, minute, boundedRoute(entry.apiKeyId, minute, entry.route), statusClassOf(entry.status), {
        requests: 1,
        totalLatencyMs: Math.round(entry.latencyMs),
        bytes: entry.bytes,
      });
    },
    flush,
    start() {
      timer ??= setInterval(() => {
        if (flushesUnderWay === 0) void flush();
      }, options.flushMs);
      timer.unref();
    },
    async stop(deadlineMs = options.stopDeadlineMs) {
      clearInterval(timer);
      timer = undefined;
      // One deadline for the flush under way and the last one together: a database that hangs delays no shutdown for longer.
      await settleWithin(flush(), deadlineMs, () => {
        logger.warn({ batches: unsent.length }, `usage not flushed within ${Math.round(deadlineMs)} ms of stopping; its counts are lost`);
      });
    },
  };
}
