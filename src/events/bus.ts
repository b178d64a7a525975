import { once, setMaxListeners } from 'node:events';
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { createPubSub } from 'graphql-yoga';
import type { Redis } from 'ioredis';
import { settleWithin } from '../shared/deadline.js';
import { connectRedis, connectRedisSubscriber } from '../shared/redis.js';

/** What is announced to an account after one of its booking events commits: subscribers reload the row. */
export interface BookingEventNotice {
  eventId: string;
  seq: string;
}

/**
 * What is announced to a service's availability subscribers after a commit moved places in its slots,
 * or an operator changed it: subscribers read its availability again. It carries nothing to compare:
 * one notice for several commits is enough.
 */
export interface AvailabilityNotice {
  serviceId: string;
}

/** Announcements to one account's subscribers, on whichever instance they are connected. */
export interface AccountChannel<Message> {
  publish(accountId: string, message: Message): void;
  subscribe(accountId: string): AsyncIterable<Message>;
}

export type BookingEventBus = AccountChannel<BookingEventNotice>;
/** Fired usage alerts, by `ual_…` id. */
export type UsageAlertBus = AccountChannel<string>;

/** Ids of API keys and widget tokens that stopped being valid (revoked, or rotated to a new secret), for every instance. */
export interface RevokedCredentialBus {
  publish(credentialId: string): void;
  subscribe(): AsyncIterable<string>;
}

/** Availability notices, by service, for every instance. */
export interface AvailabilityBus {
  publish(serviceId: string): void;
  subscribe(serviceId: string): AsyncIterable<AvailabilityNotice>;
}

export interface Announcements {
  bookingEvents: BookingEventBus;
  availability: AvailabilityBus;
  usageAlerts: UsageAlertBus;
  revokedCredentials: RevokedCredentialBus;
  close(): Promise<void>;
}

type Channels = {
  'booking-event': [accountId: string, notice: BookingEventNotice];
  'availability-change': [serviceId: string, notice: AvailabilityNotice];
  'usage-alert': [accountId: string, alertId: string];
  'credential-revoked': [credentialId: string];
};

/** Where notices are dispatched: an in-memory EventTarget, or Redis' event target. */
interface NoticeTarget {
  addEventListener(type: string, listener: (event: Event) => void): void;
  removeEventListener(type: string, listener: (event: Event) => void): void;
}

/**
 * The notices on `topic` from now on, as an iterator that answers the newest one not yet taken (or
 * waits for one). A booking-event stream rereads the log past its last event on a notice, and an
 * availability stream rereads the availability, so one notice for several commits is enough: a
 * subscriber still sending when more arrive reads once for all of them. It replaces a pubsub queue
 * per subscriber, whose cost thousands of subscribers of one account or service would each pay per event.
 * `isNewer` says whether a notice supersedes the one kept (notices through Redis may arrive out of order).
 */
function newestNotices<Notice>(target: NoticeTarget, topic: string, isNewer: (notice: Notice, kept: Notice) => boolean): AsyncIterable<Notice> {
  return {
    [Symbol.asyncIterator]() {
      const done: IteratorReturnResult<undefined> = { done: true, value: undefined };
      let newest: Notice | undefined;
      let waiting: ((result: IteratorResult<Notice>) => void) | undefined;
      let closed = false;
      const listener = (event: Event) => {
        const notice = (event as CustomEvent<Notice>).detail;
        if (waiting) {
          const answer = waiting;
          waiting = undefined;
          answer({ done: false, value: notice });
        } else if (newest === undefined || isNewer(notice, newest)) {
          newest = notice;
        }
      };
      // Joined at once, not at the first next(): a stream joins before it reads the log.
      target.addEventListener(topic, listener);
      return {
        next() {
          if (closed) return Promise.resolve(done);
          if (newest !== undefined) {
            const value = newest;
            newest = undefined;
            return Promise.resolve({ done: false, value });
          }
          return new Promise((resolve) => (waiting = resolve));
        },
        return() {
          if (!closed) {
            closed = true;
            target.removeEventListener(topic, listener);
            waiting?.(done);
            waiting = undefined;
          }
          return Promise.resolve(done);
        },
      };
    },
  };
}

/**
 * How long a notice may wait to go out. Nothing waits on it (a publisher never holds a request), so
 * it is longer than a request's Redis deadline: long enough for a connection being made (a CLI's
 * one revocation), short enough that an outage does not pile notices up in memory.
 */
const publishDeadlineMs = 2000;

/**
 * In memory for one instance; through Redis pub/sub when REDIS_URL is set, so every instance hears
 * what any instance commits. One pair of Redis connections carries every channel.
 */
export function createAnnouncements(options: {
  redisUrl?: string | undefined;
  onRedisError?(error: Error): void;
  /** How long close() lets a Redis still connecting come up and take what was published meanwhile (a CLI's one revocation). */
  closeGraceMs?: number;
}): Announcements {
  // A notice lost to an outage is made up by the next one, which makes subscribers read the log
  // past their last event. The subscriber's commands wait for the connection instead, and it
  // subscribes again on every new one (the health probe makes one when the old goes silent).
  const publishClient = options.redisUrl ? connectRedis(options.redisUrl, { commandTimeoutMs: publishDeadlineMs }) : undefined;
  const subscribeConnection = options.redisUrl ? connectRedisSubscriber(options.redisUrl) : undefined;
  const subscribeClient = subscribeConnection?.redis;
  const redisClients = publishClient && subscribeClient ? [publishClient, subscribeClient] : [];
  const onError = (error: Error) => options.onRedisError?.(error);
  for (const client of redisClients) client.on('error', onError);
  const localTarget = new EventTarget();
  // Every subscriber of an account listens on the same event name: thousands are normal, not a leak.
  setMaxListeners(0, localTarget);
  // The Redis event target never awaits a publish, a subscribe or an unsubscribe: their failures (a
  // connection closed before Redis answered) are caught here, or they would crash the process.
  const publisher = publishClient && { publish: (channel: string, message: string) => publishClient.publish(channel, message).catch(onError) };
  const subscriber = subscribeConnection && {
    on: (event: 'message', listener: (channel: string, message: string) => void) => subscribeConnection.redis.on(event, listener),
    subscribe: (channel: string) => subscribeConnection.subscribe(channel).catch(onError),
    unsubscribe: (channel: string) => subscribeConnection.unsubscribe(channel).catch(onError),
  };
  const eventTarget: NoticeTarget =
    publisher && subscriber ? createRedisEventTarget({ publishClient: publisher as unknown as Redis, subscribeClient: subscriber as unknown as Redis }) : localTarget;
  const pubSub = createPubSub<Channels>({ eventTarget: eventTarget as never });
  return {
    bookingEvents: {
      publish: (accountId, notice) => pubSub.publish('booking-event', accountId, notice),
      // The topic createPubSub publishes an account's notices under.
      subscribe: (accountId) => newestNotices<BookingEventNotice>(eventTarget, `booking-event:${accountId}`, (notice, kept) => BigInt(notice.seq) > BigInt(kept.seq)),
    },
    availability: {
      publish: (serviceId) => pubSub.publish('availability-change', serviceId, { serviceId }),
      // Every notice of a service says the same: the latest is kept, and an availability read begun after it is what it asks for.
      subscribe: (serviceId) => newestNotices<AvailabilityNotice>(eventTarget, `availability-change:${serviceId}`, () => true),
    },
    usageAlerts: {
      publish: (accountId, alertId) => pubSub.publish('usage-alert', accountId, alertId),
      subscribe: (accountId) => pubSub.subscribe('usage-alert', accountId),
    },
    revokedCredentials: {
      publish: (credentialId) => pubSub.publish('credential-revoked', credentialId),
      subscribe: () => pubSub.subscribe('credential-revoked'),
    },
    close: async () => {
      const closeGraceMs = options.closeGraceMs ?? 0;
      await Promise.all(
        redisClients.map(async (client) => {
          if (client.status !== 'ready' && closeGraceMs > 0) await once(client, 'ready', { signal: AbortSignal.timeout(closeGraceMs) }).catch(() => undefined);
          // QUIT would wait for a Redis that is down; once ready, it goes out after what was published,
          // unless Redis does not answer it (a hung server) within the publish deadline.
          if (client.status !== 'ready') return client.disconnect();
          await settleWithin(
            client.quit().then(() => undefined),
            publishDeadlineMs,
            () => client.disconnect(),
          ).catch(() => client.disconnect());
        }),
      );
    },
  };
}
