import type { Logger } from 'pino';
import { Prisma, type PrismaClient } from '../generated/prisma/client.js';
import type { Clock } from '../shared/clock.js';

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
  /** Stops the timer and flushes what is left. */
  stop(): Promise<void>;
}

export interface RecorderOptions {
  prisma: PrismaClient;
  logger: Logger;
  clock: Clock;
  flushMs: number;
  /** Runs after each successful flush with the buckets it wrote (alert rules look at them). */
  afterFlush?: (buckets: FlushedBucket[]) => Promise<void>;
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

/**
 * Additive, so several instances (or a retried flush after a failure) add into the same rows.
 * Keys deleted meanwhile are skipped by the join instead of failing the whole batch.
 */
function upsertStatement(buckets: FlushedBucket[]) {
  return Prisma.sql`
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
    ON CONFLICT (api_key_id, minute, route, status_class) DO UPDATE SET
      requests = usage_buckets.requests + excluded.requests,
      total_latency_ms = usage_buckets.total_latency_ms + excluded.total_latency_ms,
      bytes = usage_buckets.bytes + excluded.bytes`;
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
    existing.requests += totals.requests;
    existing.totalLatencyMs += totals.totalLatencyMs;
    existing.bytes += totals.bytes;
  }

  async function writePending() {
    if (pending.size === 0) return;
    const buckets = [...pending.values()];
    pending = new Map();
    try {
      await prisma.$executeRaw(upsertStatement(buckets));
    } catch (error) {
      // Keep the counts for the next flush rather than lose them.
      for (const bucket of buckets) add(bucket.apiKeyId, bucket.minute.getTime(), bucket.route, bucket.statusClass, bucket);
      logger.warn({ err: error, buckets: buckets.length }, 'usage flush failed; retrying on the next flush');
      return;
    }
    if (options.afterFlush) {
      await options.afterFlush(buckets).catch((error: unknown) => logger.error({ err: error }, 'usage alert evaluation failed'));
    }
  }

  function flush(): Promise<void> {
    // One flush at a time: a second waits for the first, then writes what came in meanwhile.
    flushing = flushing.then(writePending);
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
      timer ??= setInterval(() => void flush(), options.flushMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await flush();
    },
  };
}
