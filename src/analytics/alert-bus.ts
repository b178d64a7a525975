import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { createPubSub } from 'graphql-yoga';
import { Redis } from 'ioredis';

type Channels = { 'usage-alert': [accountId: string, alertId: string] };

/** Announces fired alerts (ids only; subscribers load the row) to the GraphQL subscription. */
export interface UsageAlertBus {
  publish(accountId: string, alertId: string): void;
  subscribe(accountId: string): AsyncIterable<string>;
  close(): Promise<void>;
}

/** In memory for one instance; through Redis pub/sub when REDIS_URL is set, as the instance that fires an alert may not hold the subscriber. */
export function createUsageAlertBus(options: { redisUrl?: string | undefined }): UsageAlertBus {
  const redisClients = options.redisUrl ? [new Redis(options.redisUrl), new Redis(options.redisUrl)] : [];
  const [publishClient, subscribeClient] = redisClients;
  const pubSub = createPubSub<Channels>(
    publishClient && subscribeClient ? { eventTarget: createRedisEventTarget({ publishClient, subscribeClient }) } : {},
  );
  return {
    publish: (accountId, alertId) => pubSub.publish('usage-alert', accountId, alertId),
    subscribe: (accountId) => pubSub.subscribe('usage-alert', accountId),
    close: async () => {
      await Promise.all(redisClients.map((client) => client.quit().catch(() => client.disconnect())));
    },
  };
}
