import { createInMemoryAPQStore, type APQStore } from '@graphql-yoga/plugin-apq';
import type { Logger } from 'pino';
import { deadlineDefaults } from '../config.js';
import { connectRedis } from '../shared/redis.js';

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
 * on one instance is found on every other (a client's next request may reach any of them), and in
 * this process's memory. A Redis that fails or does not answer within the command deadline costs a
 * lookup nothing more: the hash is looked up in memory, and if this instance never saw it, it is
 * reported unknown and the client sends the document again.
 */
export function createPersistedQueryStore(options: { redisUrl?: string | undefined; redisCommandTimeoutMs?: number; logger: Logger }): PersistedQueryStore {
  const memory = createInMemoryAPQStore({ max: 1000, ttl: persistedQueryTtlSeconds * 1000 });
  if (!options.redisUrl) {
    return { get: (hash) => memory.get(hash), set: (hash, query) => memory.set(hash, query), close: async () => undefined };
  }
  const { logger } = options;
  const redis = connectRedis(options.redisUrl, { commandTimeoutMs: options.redisCommandTimeoutMs ?? deadlineDefaults.REDIS_COMMAND_TIMEOUT_MS });
  redis.on('error', (error: Error) => logger.warn({ err: error }, 'persisted queries: Redis error'));
  const keyOf = (hash: string) => `hallowgate:apq:${hash}`;
  return {
    async get(hash) {
      try {
        return (await redis.get(keyOf(hash))) ?? (await memory.get(hash));
      } catch (error) {
        logger.warn({ err: error }, 'persisted queries: Redis unavailable, looked up in memory');
        return memory.get(hash);
      }
    },
    async set(hash, query) {
      await memory.set(hash, query);
      try {
        await redis.set(keyOf(hash), query, 'EX', persistedQueryTtlSeconds);
      } catch (error) {
        logger.warn({ err: error }, 'persisted queries: Redis unavailable, registered in memory only');
      }
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
