import { TZDate } from '@date-fns/tz';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Plan } from '../generated/prisma/client.js';
import { AppError } from '../shared/errors.js';
import type { Principal } from './principal.js';

/** Requests per key per minute, by the key's plan (listed in the README under Access). */
export const planLimits: Record<Plan, number> = { free: 100, pro: 1000, business: 10_000, enterprise: 10_000 };

/** The last second of the promotional bypass: 2027-07-31 23:59:59 in Chicago, which is 2027-08-01T04:59:59Z. */
export const promoLastSecond = new Date(new TZDate(2027, 6, 31, 23, 59, 59, 'America/Chicago').getTime());

/** Promo keys are unlimited through the whole of their last second, and limited from the next one. */
export function promoBypassActive(now: Date): boolean {
  return now.getTime() < promoLastSecond.getTime() + 1000;
}

/** A principal's per-minute limit, and whether the promotional bypass lifts it right now. */
export function limitFor(principal: Principal, now: Date): { limit: number; bypassed: boolean } {
  if (principal.kind === 'widget_token') return { limit: principal.rateLimitPerMinute, bypassed: false };
  return { limit: planLimits[principal.plan], bypassed: principal.promo && promoBypassActive(now) };
}

/** The part of a widget token's budget one client address may spend, so no one client can spend it all. */
export function perClientLimitFor(principal: Principal): number | null {
  return principal.kind === 'widget_token' ? Math.max(1, Math.ceil(principal.rateLimitPerMinute / 10)) : null;
}

/** Failed authentications a client address may make per minute before it is refused without a lookup. */
export const failedAuthenticationsPerMinute = 30;

const windowMs = 60_000;

export interface RateLimitStatus {
  limit: number;
  remaining: number;
  /** Unix seconds at which the current one-minute window ends. */
  resetAt: number;
}

export function rateLimitHeaders(status: RateLimitStatus): Record<string, string> {
  return {
    'x-ratelimit-limit': String(status.limit),
    'x-ratelimit-remaining': String(status.remaining),
    'x-ratelimit-reset': String(status.resetAt),
  };
}

/** Fixed one-minute windows aligned to the clock's minutes, so every instance agrees on when a window ends. */
function windowOf(now: Date): { index: number; endMs: number } {
  const index = Math.floor(now.getTime() / windowMs);
  return { index, endMs: (index + 1) * windowMs };
}

export interface RateLimiter {
  /** What a bypassed principal is shown: its plan's limit, untouched, since nothing is counted. */
  bypassedStatus(limit: number, now: Date): RateLimitStatus;
  /** Counts one request of `subject` against `limit` in the current window; throws 429 (with the status headers) when over. */
  take(subject: string, limit: number, now: Date): Promise<RateLimitStatus>;
  /** The 429 `take` would throw when `subject` has already used all of `limit` in the current window, counting nothing; else null. */
  refusal(subject: string, limit: number, now: Date): Promise<AppError | null>;
}

function overLimit(limit: number, now: Date): AppError {
  const window = windowOf(now);
  const resetAt = window.endMs / 1000;
  const retryAfter = Math.max(1, Math.ceil((window.endMs - now.getTime()) / 1000));
  return new AppError('rate_limited', `Over the limit of ${limit} requests per minute; retry in ${retryAfter} s.`, {
    headers: { ...rateLimitHeaders({ limit, remaining: 0, resetAt }), 'retry-after': String(retryAfter) },
  });
}

/**
 * Counting is rate-limiter-flexible's atomic consume: an in-process counter, or a Redis Lua
 * increment shared by every instance when Redis is given (with an in-process insurance limiter
 * should Redis fail, so an outage degrades to per-instance limits instead of errors). A Redis that
 * does not answer fails at the connection's command deadline (src/shared/redis.ts), which hands
 * the count to the insurance limiter too.
 */
export function createRateLimiter(redis: Redis | undefined): RateLimiter {
  const limiters = new Map<number, RateLimiterAbstract>();

  function limiterFor(points: number): RateLimiterAbstract {
    let limiter = limiters.get(points);
    if (!limiter) {
      const options = { points, duration: windowMs / 1000, keyPrefix: 'hallowgate:rate' };
      const memory = new RateLimiterMemory(options);
      // While Redis is not connected, straight to memory: no wait for a command that cannot be sent.
      limiter = redis ? new RateLimiterRedis({ ...options, storeClient: redis, insuranceLimiter: memory, rejectIfRedisNotReady: true }) : memory;
      limiters.set(points, limiter);
    }
    return limiter;
  }

  return {
    bypassedStatus(limit, now) {
      return { limit, remaining: limit, resetAt: windowOf(now).endMs / 1000 };
    },
    async take(subject, limit, now) {
      const window = windowOf(now);
      try {
        const result = await limiterFor(limit).consume(`${subject}:${window.index}`);
        return { limit, remaining: result.remainingPoints, resetAt: window.endMs / 1000 };
      } catch (error) {
        if (!(error instanceof RateLimiterRes)) throw error;
        throw overLimit(limit, now);
      }
    },
    async refusal(subject, limit, now) {
      const used = await limiterFor(limit).get(`${subject}:${windowOf(now).index}`);
      return used && used.consumedPoints >= limit ? overLimit(limit, now) : null;
    },
  };
}
