import { randomUUID } from 'node:crypto';
import type { GraphQLError } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { credentialIdOf } from '../access/principal.js';
import type { Context } from '../graphql/context.js';
import { maskGraphQLError } from '../graphql/errors.js';
import { AppError } from '../shared/errors.js';
import { connectRedis, unhurriedCommandTimeoutMs } from '../shared/redis.js';
import { endableStream } from '../shared/streams.js';

/** Open subscriptions one graphql-ws socket may carry, and one credential may hold across all instances. */
export const subscriptionLimits = { perSocket: 100, perCredential: 1000 };

/** Counts the open subscriptions of each credential, across instances when Redis is shared. */
export interface SubscriptionQuota {
  /** Takes one of `subject`'s slots for `holder` (unique on this instance); false when all are taken, or when `holder` was released before the take completed (nothing is then held). */
  take(subject: string, holder: string): Promise<boolean>;
  release(subject: string, holder: string): Promise<void>;
  close(): Promise<void>;
}

function createMemoryQuota(limit: number): SubscriptionQuota {
  const held = new Map<string, Set<string>>();
  return {
    async take(subject, holder) {
      const holders = held.get(subject) ?? new Set<string>();
      if (holders.size >= limit) return false;
      held.set(subject, holders.add(holder));
      return true;
    },
    async release(subject, holder) {
      const holders = held.get(subject);
      holders?.delete(holder);
      if (holders?.size === 0) held.delete(subject);
    },
    async close() {},
  };
}

/** Milliseconds a slot lives unless its instance renews it: slots of an instance that died free themselves. */
const leaseMs = 30_000;
const renewEveryMs = 10_000;

/**
 * A sorted set per credential of `<instance>:<holder>` members scored by their lease's expiry (Redis
 * time, so instance clocks do not matter). Expired members are dropped before counting, atomically.
 */
const takeScript = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`;

const renewScript = `
local time = redis.call('TIME')
local expiry = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000) + tonumber(ARGV[1])
for index = 2, #ARGV do redis.call('ZADD', KEYS[1], expiry, ARGV[index]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`;

type QuotaRedis = Redis & {
  takeSubscriptionSlot(key: string, member: string, limit: number, leaseMs: number): Promise<number>;
  renewSubscriptionSlots(key: string, leaseMs: number, ...members: string[]): Promise<number>;
};

function createRedisQuota(redisUrl: string, limit: number, logger: Logger): SubscriptionQuota {
  const redis = connectRedis(redisUrl, { commandTimeoutMs: unhurriedCommandTimeoutMs }) as QuotaRedis;
  redis.on('error', (error: Error) => logger.warn({ err: error }, 'subscription quota: Redis error'));
  redis.defineCommand('takeSubscriptionSlot', { numberOfKeys: 1, lua: takeScript });
  redis.defineCommand('renewSubscriptionSlots', { numberOfKeys: 1, lua: renewScript });
  const instance = randomUUID();
  const keyOf = (subject: string) => `hallowgate:subscriptions:${subject}`;
  const memberOf = (holder: string) => `${instance}:${holder}`;
  /** The members this instance holds, per credential, to renew their leases: only those taken and not yet released. */
  const held = new Map<string, Set<string>>();
  /** Members whose take is on its way to Redis, with whether they were released meanwhile. */
  const taking = new Map<string, { released: boolean }>();

  const renewal = setInterval(() => {
    for (const [subject, members] of held) {
      redis.renewSubscriptionSlots(keyOf(subject), leaseMs, ...members).catch((error: unknown) => logger.warn({ err: error }, 'subscription quota: renewal failed'));
    }
  }, renewEveryMs);
  renewal.unref();

  return {
    async take(subject, holder) {
      const member = memberOf(holder);
      const pending = { released: false };
      taking.set(member, pending);
      try {
        if ((await redis.takeSubscriptionSlot(keyOf(subject), member, limit, leaseMs)) !== 1) return false;
      } catch (error) {
        // Redis down: the subscription goes ahead (each socket still carries at most its own limit).
        logger.warn({ err: error }, 'subscription quota: Redis unavailable, not counted');
        return true;
      } finally {
        taking.delete(member);
      }
      if (pending.released) {
        // Released while the take was on its way (its socket closed): the place goes back at once instead of being renewed for ever.
        await redis.zrem(keyOf(subject), member).catch(() => undefined);
        return false;
      }
      held.set(subject, (held.get(subject) ?? new Set<string>()).add(member));
      return true;
    },
    async release(subject, holder) {
      const member = memberOf(holder);
      const pending = taking.get(member);
      if (pending) pending.released = true;
      const members = held.get(subject);
      members?.delete(member);
      if (members?.size === 0) held.delete(subject);
      await redis.zrem(keyOf(subject), member).catch(() => undefined);
    },
    async close() {
      clearInterval(renewal);
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

export function createSubscriptionQuota(options: { redisUrl?: string | undefined; logger: Logger }): SubscriptionQuota {
  return options.redisUrl ? createRedisQuota(options.redisUrl, subscriptionLimits.perCredential, options.logger) : createMemoryQuota(subscriptionLimits.perCredential);
}

export function tooManySubscriptions(message: string): GraphQLError {
  return maskGraphQLError(new AppError('too_many_subscriptions', message));
}

/** What a transport that already took the subscription's slot itself (graphql-ws) tells the plugin below. */
export interface SubscriptionSlot {
  subscriptionSlotHeld?: boolean;
}

/**
 * Holds one of the credential's slots for each subscription from its start to its end, whatever the
 * transport (SSE, multipart); graphql-ws takes its slot before the operation, to answer a refusal
 * with an `error` message, and says so in the context.
 */
export function useSubscriptionQuota(quota: SubscriptionQuota): Plugin<Context & SubscriptionSlot> {
  return {
    onSubscribe: async ({ args, setResultAndStopExecution }) => {
      const { principal, subscriptionSlotHeld } = args.contextValue;
      if (!principal || subscriptionSlotHeld) return;
      const subject = credentialIdOf(principal);
      const holder = randomUUID();
      if (!(await quota.take(subject, holder))) {
        setResultAndStopExecution({ errors: [tooManySubscriptions(`A credential holds at most ${subscriptionLimits.perCredential} open subscriptions.`)] });
        return;
      }
      const release = () => void quota.release(subject, holder);
      return {
        onSubscribeResult: ({ result, setResult }) => {
          if (isAsyncIterable(result)) setResult(endableStream(result, release).stream);
          else release();
        },
      };
    },
  };
}
