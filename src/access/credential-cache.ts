import { LRUCache } from 'lru-cache';

/**
 * A short-lived, in-process cache of credential records, so a busy key costs one database read per
 * few seconds rather than one per request. Entries are whole records: the secret is still checked
 * on every request. An id with no record is remembered as unknown just as long, so unknown and known
 * ids cost the same and a flood of made-up ids does not reach the database. Revoking, rotating or
 * creating through this process forgets the entry at once; other processes see the change within
 * `credentialCacheTtlMs`.
 */
export const credentialCacheTtlMs = 5_000;

/** Boxed, because the cache holds no null: a box with a null record is a remembered unknown id. */
interface Entry {
  record: unknown;
}

type Load = () => Promise<unknown>;

/** Ids that had a record within the last hour, for callers that look up only credentials known to exist. */
const recentlyFound = new LRUCache<string, true>({ max: 100_000, ttl: 60 * 60_000 });

const entries = new LRUCache<string, Entry, Load>({
  max: 10_000,
  ttl: credentialCacheTtlMs,
  // Concurrent misses share one load; a failed load is not kept.
  fetchMethod: async (id, _stale, { context: load }) => {
    const record = await load();
    if (record !== null) recentlyFound.set(id, true);
    return { record };
  },
  // A load under way when its id is forgotten still answers the requests waiting on it; it is just not kept.
  ignoreFetchAbort: true,
});

/** The cached record for `id` (null when there is none), loading it on a miss. */
export async function cachedCredential<T>(id: string, load: () => Promise<T | null>): Promise<T | null> {
  const entry = await entries.fetch(id, { context: load });
  return (entry?.record ?? null) as T | null;
}

/** Whether `id` is a credential this process found lately: looking it up again costs one read per few seconds at most. */
export function wasRecentlyFound(id: string): boolean {
  return recentlyFound.has(id);
}

export function forgetCredential(id: string): void {
  entries.delete(id);
}
