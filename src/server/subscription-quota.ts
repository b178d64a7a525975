import { randomUUID } from 'node:crypto';
import type { GraphQLError } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Admission } from '../access/gate.js';
import type { Context } from '../graphql/context.js';
import { maskGraphQLError } from '../graphql/errors.js';
import { AppError } from '../shared/errors.js';
import { connectRedis, unhurriedCommandTimeoutMs } from '../shared/redis.js';
import { endableStream } from '../shared/streams.js';

/**
 * Open subscriptions one graphql-ws socket may carry, one API key may hold across all instances,
 * and one visitor of a widget token (its client address) may: a widget token sits in a public page,
 * so each of its visitors has a share of its own, as each has of its rate limit, and a page's one
 * socket is enough for a visitor.
 */
export const subscriptionLimits = { perSocket: 100, perCredential: 1000, perWidgetVisitor: 100 };

/** Whose open subscriptions a subscription counts among, and how many they may hold. */
export interface QuotaSubject {
  key: string;
  limit: number;
  /** What the refusal says. */
  refusal: string;
}

/** The quota subject of a request admitted with a credential. */
export function quotaSubjectOf(admission: Admission): QuotaSubject {
  const principal = admission.principal!;
  if (principal.kind === 'api_key') {
    return { key: principal.keyId, limit: subscriptionLimits.perCredential, refusal: `An API key holds at most ${subscriptionLimits.perCredential} open subscriptions.` };
  }
  return {
    key: `${principal.tokenId}@${admission.clientAddress}`,
    limit: subscriptionLimits.perWidgetVisitor,
    refusal: `A visitor of a widget holds at most ${subscriptionLimits.perWidgetVisitor} open subscriptions.`,
  };
}

/** Counts the open subscriptions of each subject, across instances when Redis is shared. */
export interface SubscriptionQuota {
  /** Takes one of `subject`'s slots for `holder` (unique on this instance); false when all are taken, or when `holder` was released before the take completed (nothing is then held). */
  take(subject: QuotaSubject, holder: string): Promise<boolean>;
  release(subject: QuotaSubject, holder: string): Promise<void>;
  close(): Promise<void>;
}

export function createMemoryQuota(): SubscriptionQuota {
  const held = new Map<string, Set<string>>();
  return {
    async take({ key, limit }, holder) {
      const holders = held.get(key) ?? new Set<string>();
      if (holders.size >= limit) return false;
      held.set(key, holders.add(holder));
      return true;
    },
    async release({ key }, holder) {
      const holders = held.get(key);
      holders?.delete(holder);
      if (holders?.size === 0) held.delete(key);
    },
    async close() {},
  };
}

/**
 * A sorted set per credential of `<instance>:<holder>` members scored by their lease's expiry (Redis
 * time, so instance clocks do not matter). Expired members are dropped before counting, atomically.
 * The key's own expiry is only ever pushed later (PTTL is -1 on a new key), so an instance with a
 * shorter SUBSCRIPTION_LEASE_MS never ends the places of one with a longer lease.
 */
const takeScript = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return 1`;

const renewScript = `
local time = redis.call('TIME')
local expiry = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000) + tonumber(ARGV[1])
for index = 2, #ARGV do redis.call('ZADD', KEYS[1], expiry, ARGV[index]) end
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return 1`;

type QuotaRedis = Redis & {
  takeSubscriptionSlot(key: string, member: string, limit: number, leaseMs: number): Promise<number>;
  renewSubscriptionSlots(key: string, leaseMs: number, ...members: string[]): Promise<number>;
};

/**
 * `leaseMs`: how long a slot lives unless its instance renews it, so that the slots of an instance
 * that died free themselves; renewed every third of it, so one renewal may fail.
 */
function createRedisQuota(redisUrl: string, leaseMs: number, logger: Logger): SubscriptionQuota {
  const redis = connectRedis(redisUrl, { commandTimeoutMs: unhurriedCommandTimeoutMs }) as QuotaRedis;
  redis.on('error', (error: Error) => logger.warn({ err: error }, 'subscription quota: Redis error'));
  redis.defineCommand('takeSubscriptionSlot', { numberOfKeys: 1, lua: takeScript });
  redis.defineCommand('renewSubscriptionSlots', { numberOfKeys: 1, lua: renewScript });
  const instance = randomUUID();
  const keyOf = (subjectKey: string) => `hallowgate:subscriptions:${subjectKey}`;
  const memberOf = (holder: string) => `${instance}:${holder}`;
  /** The members this instance holds, per subject key, to renew their leases: only those taken and not yet released. */
  const held = new Map<string, Set<string>>();
  /** Members whose take is on its way to Redis, with whether they were released meanwhile. */
  const taking = new Map<string, { released: boolean }>();

  const renewal = setInterval(() => {
    for (const [subject, members] of held) {
      redis.renewSubscriptionSlots(keyOf(subject), leaseMs, ...members).catch((error: unknown) => logger.warn({ err: error }, 'subscription quota: renewal failed'));
    }
  }, leaseMs / 3);
  renewal.unref();

  return {
    async take({ key, limit }, holder) {
      const member = memberOf(holder);
      const pending = { released: false };
      taking.set(member, pending);
      try {
        if ((await redis.takeSubscriptionSlot(keyOf(key), member, limit, leaseMs)) !== 1) return false;
      } catch (error) {
        // Redis down: the subscription goes ahead (each socket still carries at most its own limit).
        logger.warn({ err: error }, 'subscription quota: Redis unavailable, not counted');
        return true;
      } finally {
        taking.delete(member);
      }
      if (pending.released) {
        // Released while the take was on its way (its socket closed): the place goes back at once instead of being renewed for ever.
        await redis.zrem(keyOf(key), member).catch(() => undefined);
        return false;
      }
      held.set(key, (held.get(key) ?? new Set<string>()).add(member));
      return true;
    },
    async release({ key }, holder) {
      const member = memberOf(holder);
      const pending = taking.get(member);
      if (pending) pending.released = true;
      const members = held.get(key);
      members?.delete(member);
      if (members?.size === 0) held.delete(key);
      await redis.zrem(keyOf(key), member).catch(() => undefined);
    },
    async close() {
      clearInterval(renewal);
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

export function createSubscriptionQuota(options: { redisUrl?: string | undefined; leaseMs: number; logger: Logger }): SubscriptionQuota {
  return options.redisUrl ? createRedisQuota(options.redisUrl, options.leaseMs, options.logger) : createMemoryQuota();
}

export function tooManySubscriptions(message: string): GraphQLError {
  return maskGraphQLError(new AppError('too_many_subscriptions', message));
}

/** What a transport that already took the subscription's slot itself (graphql-ws) tells the plugin below. */
export interface SubscriptionSlot {
  subscriptionSlotHeld?: boolean;
}

/**
 * Holds one of the subject's slots for each subscription from its start to its end, whatever the
 * transport (SSE, multipart); graphql-ws takes its slot before the operation, to answer a refusal
 * with an `error` message, and says so in the context.
 */
export function useSubscriptionQuota(quota: SubscriptionQuota): Plugin<Context & SubscriptionSlot & { admission?: Admission }> {
  return {
    onSubscribe: async ({ args, setResultAndStopExecution }) => {
      const { admission, subscriptionSlotHeld } = args.contextValue;
      if (!admission?.principal || subscriptionSlotHeld) return;
      const subject = quotaSubjectOf(admission);
      const holder = randomUUID();
      if (!(await quota.take(subject, holder))) {
        setResultAndStopExecution({ errors: [tooManySubscriptions(subject.refusal)] });
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
