import { LRUCache, type Perf } from 'lru-cache';

/**
 * A short-lived, in-process cache of credential records, so a busy key costs one database read per
 * few seconds rather than one per request. Entries are whole records: the secret is still checked
 * on every request. An id with no record is remembered as unknown just as long, so unknown and known
 * ids cost the same and a flood of made-up ids does not reach the database. Revoking, rotating or
 * creating through this process forgets the entry at once; other processes see the change within
 * `credentialCacheTtlMs`.
 */
export const credentialCacheTtlMs = 5_000;

/** How long an id that had a record counts as recently found. */
export const recentlyFoundTtlMs = 60 * 60_000;

/** Boxed, because the cache holds no null: a box with a null record is a remembered unknown id. */
interface Entry {
  record: unknown;
}

type Load = () => Promise<unknown>;

export interface CredentialCache {
  /** The cached record for `id` (null when there is none), loading it on a miss. */
  cachedCredential<T>(id: string, load: () => Promise<T | null>): Promise<T | null>;
  /** Whether `id` is a credential this process found lately: looking it up again costs one read per few seconds at most. */
  wasRecentlyFound(id: string): boolean;
  forgetCredential(id: string): void;
}

/** `perf` is lru-cache's time source (milliseconds, monotonic), replaced by tests that move time. */
export function createCredentialCache(options: { perf?: Perf } = {}): CredentialCache {
  // Read the clock on every staleness check: lru-cache's default reuses a reading for 1 ms behind a
  // timer, which saves nothing at one check per request and would hide a moved test clock.
  const time = { ttlResolution: 0, ...(options.perf ? { perf: options.perf } : {}) };

  /** Ids that had a record within the last hour, for callers that look up only credentials known to exist. */
  const recentlyFound = new LRUCache<string, true>({ max: 100_000, ttl: recentlyFoundTtlMs, ...time });

  const entries = new LRUCache<string, Entry, Load>({
    max: 10_000,
    ttl: credentialCacheTtlMs,
    ...time,
    // Concurrent misses share one load; a failed load is not kept.
    fetchMethod: async (id, _stale, { context: load }) => {
      const record = await load();
      if (record !== null) recentlyFound.set(id, true);
      return { record };
    },
    // A load under way when its id is forgotten still answers the requests waiting on it; it is just not kept.
    ignoreFetchAbort: true,
  });

  return {
    async cachedCredential<T>(id: string, load: () => Promise<T | null>): Promise<T | null> {
      const entry = await entries.fetch(id, { context: load });
      return (entry?.record ?? null) as T | null;
    },
    wasRecentlyFound: (id) => recentlyFound.has(id),
    forgetCredential: (id) => void entries.delete(id),
  };
}

/** The process's one cache: every request and every change through this process share it. */
export const { cachedCredential, wasRecentlyFound, forgetCredential } = createCredentialCache();
