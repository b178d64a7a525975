/**
 * A short-lived, in-process cache of credential records, so a busy key costs one database read per
 * few seconds rather than one per request. Entries are whole records: the secret is still checked
 * on every request. Revoking or rotating through this process forgets the entry at once; other
 * processes see the change within `credentialCacheTtlMs`.
 */
export const credentialCacheTtlMs = 5_000;
const maxEntries = 10_000;

interface Entry {
  expiresAt: number;
  value: Promise<unknown>;
}

const entries = new Map<string, Entry>();

/** The cached record for `id`, loading it on a miss. Concurrent misses share one load; absent records are not kept. */
export function cachedCredential<T>(id: string, load: () => Promise<T | null>): Promise<T | null> {
  const now = performance.now();
  const cached = entries.get(id);
  if (cached && cached.expiresAt > now) return cached.value as Promise<T | null>;
  if (entries.size >= maxEntries) entries.clear();
  const value = load();
  entries.set(id, { expiresAt: now + credentialCacheTtlMs, value });
  value.then(
    (record) => {
      if (record === null && entries.get(id)?.value === value) entries.delete(id);
    },
    () => {
      if (entries.get(id)?.value === value) entries.delete(id);
    },
  );
  return value;
}

export function forgetCredential(id: string): void {
  entries.delete(id);
}
