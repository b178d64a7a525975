import { createInMemoryAPQStore, type APQStore } from '@graphql-yoga/plugin-apq';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';

/** How long a registered document is kept after its registration. */
export const persistedQueryTtlSeconds = 24 * 3600;

/**
 * Automatic persisted queries (Apollo's protocol) clients use with their own hashes: an unknown hash
 * answers PERSISTED_QUERY_NOT_FOUND, and the client registers the document by sending it with its
 * hash. These codes are the protocol's, so masking keeps them.
 */
export const persistedQueryCodes: ReadonlySet<string> = new Set(['PERSISTED_QUERY_NOT_FOUND', 'PERSISTED_QUERY_MISMATCH']);

export interface PersistedQueryStore extends APQStore {
  close(): Promise<void>;
}

/**
 * Registered documents, by SHA-256 hash: in Redis when it is configured, so a document registered
 * on one instance is found on every other (a client's next request may reach any of them); in this
 * process's memory otherwise. A Redis failure only costs the client one more round trip: the hash is
 * reported unknown and the client sends the document again.
 */
export function createPersistedQueryStore(options: { redisUrl?: string | undefined; logger: Logger }): PersistedQueryStore {
  if (!options.redisUrl) {
    const memory = createInMemoryAPQStore({ max: 1000, ttl: persistedQueryTtlSeconds * 1000 });
    return { get: (hash) => memory.get(hash), set: (hash, query) => memory.set(hash, query), close: async () => undefined };
  }
  const { logger } = options;
  const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: 2 });
  redis.on('error', (error: Error) => logger.warn({ err: error }, 'persisted queries: Redis error'));
  const keyOf = (hash: string) => `hallowgate:apq:${hash}`;
  return {
    async get(hash) {
      try {
        return await redis.get(keyOf(hash));
      } catch (error) {
        logger.warn({ err: error }, 'persisted queries: Redis unavailable, reported unknown');
        return null;
      }
    },
    async set(hash, query) {
      try {
        await redis.set(keyOf(hash), query, 'EX', persistedQueryTtlSeconds);
      } catch (error) {
        logger.warn({ err: error }, 'persisted queries: Redis unavailable, not registered');
      }
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
