import { describe, expect, it } from 'vitest';
import { createCredentialCache, credentialCacheTtlMs, recentlyFoundTtlMs } from '../../src/access/credential-cache.js';

/** A cache on a clock the test moves, and a loader that counts its reads. */
function setUp() {
  let now = 1_000;
  const cache = createCredentialCache({ perf: { now: () => now } });
  const reads: string[] = [];
  const records = new Map<string, { id: string }>([['key_known', { id: 'key_known' }]]);
  const lookUp = (id: string) =>
    cache.cachedCredential(id, async () => {
      reads.push(id);
      return records.get(id) ?? null;
    });
  return { cache, reads, records, lookUp, advance: (ms: number) => (now += ms) };
}

describe('credential cache', () => {
  it('reads a record once per TTL, and again once the TTL has passed', async () => {
    const { reads, lookUp, advance } = setUp();
    expect(await lookUp('key_known')).toEqual({ id: 'key_known' });
    advance(credentialCacheTtlMs);
    expect(await lookUp('key_known')).toEqual({ id: 'key_known' });
    expect(reads).toEqual(['key_known']);
    advance(1);
    expect(await lookUp('key_known')).toEqual({ id: 'key_known' });
    expect(reads).toEqual(['key_known', 'key_known']);
  });

  it('remembers an unknown id as long as a known one, then looks again', async () => {
    const { reads, records, lookUp, advance, cache } = setUp();
    expect(await lookUp('key_made_up')).toBeNull();
    records.set('key_made_up', { id: 'key_made_up' });
    advance(credentialCacheTtlMs);
    // Still the remembered "none": the negative answer is cached too.
    expect(await lookUp('key_made_up')).toBeNull();
    expect(reads).toEqual(['key_made_up']);
    expect(cache.wasRecentlyFound('key_made_up')).toBe(false);
    advance(1);
    expect(await lookUp('key_made_up')).toEqual({ id: 'key_made_up' });
    expect(cache.wasRecentlyFound('key_made_up')).toBe(true);
  });

  it('shares one read between concurrent misses', async () => {
    const { reads, lookUp } = setUp();
    const answers = await Promise.all([lookUp('key_known'), lookUp('key_known'), lookUp('key_nothere'), lookUp('key_nothere')]);
    expect(answers).toEqual([{ id: 'key_known' }, { id: 'key_known' }, null, null]);
    expect(reads).toEqual(['key_known', 'key_nothere']);
  });

  it('reads again at once after forgetting an id', async () => {
    const { reads, lookUp, cache } = setUp();
    await lookUp('key_known');
    cache.forgetCredential('key_known');
    await lookUp('key_known');
    expect(reads).toEqual(['key_known', 'key_known']);
  });

  it('keeps no failed read', async () => {
    const { cache } = setUp();
    let attempts = 0;
    const failing = () =>
      cache.cachedCredential('key_known', async () => {
        attempts += 1;
        if (attempts === 1) throw new Error('database down');
        return { id: 'key_known' };
      });
    await expect(failing()).rejects.toThrow('database down');
    expect(await failing()).toEqual({ id: 'key_known' });
    expect(attempts).toBe(2);
  });

  it('counts an id as recently found for an hour after its record was last read', async () => {
    const { lookUp, advance, cache } = setUp();
    await lookUp('key_known');
    expect(cache.wasRecentlyFound('key_known')).toBe(true);
    advance(recentlyFoundTtlMs);
    expect(cache.wasRecentlyFound('key_known')).toBe(true);
    advance(1);
    expect(cache.wasRecentlyFound('key_known')).toBe(false);
  });
});
