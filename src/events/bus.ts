import { createPubSub } from 'graphql-yoga';
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { Redis } from 'ioredis';

/** What is announced after a booking event commits: ids only, subscribers reload the row. */
export interface BookingEventNotice {
  accountId: string;
  eventId: string;
  seq: string;
}

type Channels = { 'booking-event': [accountId: string, notice: BookingEventNotice] };

export interface BookingEventBus {
  publish(notice: BookingEventNotice): void;
  subscribe(accountId: string): AsyncIterable<BookingEventNotice>;
  close(): Promise<void>;
}

/** In memory for one instance; through Redis pub/sub when REDIS_URL is set, so every instance hears every commit. */
export function createBookingEventBus(options: { redisUrl?: string | undefined }): BookingEventBus {
  const redisClients = options.redisUrl
    ? [new Redis(options.redisUrl, { lazyConnect: false }), new Redis(options.redisUrl, { lazyConnect: false })]
    : [];
  const [publishClient, subscribeClient] = redisClients;
  const pubSub = createPubSub<Channels>(
    publishClient && subscribeClient ? { eventTarget: createRedisEventTarget({ publishClient, subscribeClient }) } : {},
  );
  return {
    publish: (notice) => pubSub.publish('booking-event', notice.accountId, notice),
    subscribe: (accountId) => pubSub.subscribe('booking-event', accountId),
    close: async () => {
      await Promise.all(redisClients.map((client) => client.quit().catch(() => client.disconnect())));
    },
  };
}
