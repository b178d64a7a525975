import { describe, expect, it } from 'vitest';
import { fastPathUses } from '../../src/fast-paths.js';
import { ResponseCache, type DataVersion, type DataVersionReads, type LookupOutcome, type Surface } from '../../src/response-cache/response-cache.js';

/** Budget 640: an entry may take at most 10 characters of it. */
const budget = 640;

interface Request {
  dataVersionReads: DataVersionReads;
}

const newRequest = (): Request => ({ dataVersionReads: new Map() });

/** A cache and the lookups it counted. */
function cacheWithCounts() {
  const counted: [Surface, LookupOutcome][] = [];
  return { cache: new ResponseCache(budget, (surface, outcome) => counted.push([surface, outcome])), counted };
}

/** The entry cached for `requestKey` (without data versions), asking for it as a request would. */
async function cachedEntry(cache: ResponseCache, requestKey: string): Promise<object | undefined> {
  return (await cache.lookup('rest', newRequest(), [], requestKey))?.entry;
}

/** Stores `{ n }` under k0…k(count-1), each asked for twice first (the first asking stores nothing). */
async function fill(cache: ResponseCache, count: number, size: number, from = 0) {
  for (let n = from; n < from + count; n += 1) {
    await cache.lookup('rest', newRequest(), [], `k${n}`);
    const slot = await cache.lookup('rest', newRequest(), [], `k${n}`);
    cache.store(slot!.key, { n }, size);
  }
}

describe('ResponseCache', () => {
  it('stores nothing for a request asked for the first time, and reads no data version for it', async () => {
    const { cache, counted } = cacheWithCounts();
    let reads = 0;
    const version: DataVersion<Request> = async () => `v${++reads}`;
    expect(await cache.lookup('graphql', newRequest(), [version], 'once')).toBeUndefined();
    expect(reads).toBe(0);
    const slot = await cache.lookup('graphql', newRequest(), [version], 'once');
    expect(slot).toEqual({ key: expect.any(String), entry: undefined });
    expect(reads).toBe(1);
    expect(counted).toEqual([
      ['graphql', 'miss'],
      ['graphql', 'miss'],
    ]);
  });

  it('finds an entry under equal data versions only, and counts the hit as the fast path in use', async () => {
    const { cache, counted } = cacheWithCounts();
    let value = 'a';
    const version: DataVersion<Request> = async () => value;
    await cache.lookup('rest', newRequest(), [version], 'r');
    cache.store((await cache.lookup('rest', newRequest(), [version], 'r'))!.key, { answer: 1 }, 5);
    const usesBefore = fastPathUses['response-cache'];
    expect((await cache.lookup('rest', newRequest(), [version], 'r'))?.entry).toEqual({ answer: 1 });
    expect(fastPathUses['response-cache']).toBe(usesBefore + 1);
    value = 'b';
    expect((await cache.lookup('rest', newRequest(), [version], 'r'))?.entry).toBeUndefined();
    expect(counted.slice(-2)).toEqual([
      ['rest', 'hit'],
      ['rest', 'miss'],
    ]);
  });

  it('reads each data version once per request, whoever looks up', async () => {
    const { cache } = cacheWithCounts();
    let reads = 0;
    const version: DataVersion<Request> = async () => `v${++reads}`;
    await cache.lookup('graphql', newRequest(), [version], 'r');
    const request = newRequest();
    await cache.lookup('graphql', request, [version], 'r');
    await cache.peek('graphql', request, [version], 'r');
    await cache.lookup('graphql', request, [version, version], 'r');
    expect(reads).toBe(1);
  });

  it('peeks without recording the asking or counting a miss', async () => {
    const { cache, counted } = cacheWithCounts();
    const version: DataVersion<Request> = async () => 'v';
    expect(await cache.peek('graphql', newRequest(), [version], 'r')).toBeUndefined();
    // Still the first asking for lookup: nothing stored for it.
    expect(await cache.lookup('graphql', newRequest(), [version], 'r')).toBeUndefined();
    const slot = await cache.lookup('graphql', newRequest(), [version], 'r');
    expect(await cache.peek('graphql', newRequest(), [version], 'r')).toBeUndefined();
    cache.store(slot!.key, { answer: 1 }, 1);
    expect(await cache.peek('graphql', newRequest(), [version], 'r')).toEqual({ answer: 1 });
    expect(counted).toEqual([
      ['graphql', 'miss'],
      ['graphql', 'miss'],
      ['graphql', 'hit'],
    ]);
  });

  it('keeps entries up to the budget and pushes out the least recently used first', async () => {
    const { cache } = cacheWithCounts();
    await fill(cache, 64, 10);
    expect(await cachedEntry(cache, 'k0')).toEqual({ n: 0 });
    // k0 was just read, so k1 is now the oldest and the first to go.
    await fill(cache, 1, 10, 64);
    expect(await cachedEntry(cache, 'k1')).toBeUndefined();
    expect(await cachedEntry(cache, 'k0')).toEqual({ n: 0 });
    expect(await cachedEntry(cache, 'k64')).toEqual({ n: 64 });
    // Twenty more characters push out exactly two more entries.
    await fill(cache, 2, 10, 65);
    expect(await Promise.all([2, 3, 4].map((n) => cachedEntry(cache, `k${n}`)))).toEqual([undefined, undefined, { n: 4 }]);
  });

  it('counts sizes, not entries: small entries fit many times over', async () => {
    const { cache } = cacheWithCounts();
    await fill(cache, 640, 1);
    expect(await cachedEntry(cache, 'k0')).toEqual({ n: 0 });
    await cache.lookup('rest', newRequest(), [], 'big');
    cache.store((await cache.lookup('rest', newRequest(), [], 'big'))!.key, { n: -1 }, 10);
    // Ten characters made room by pushing out the ten oldest after k0 (read last).
    expect(await cachedEntry(cache, 'k1')).toBeUndefined();
    expect(await cachedEntry(cache, 'k10')).toBeUndefined();
    expect(await cachedEntry(cache, 'k11')).toEqual({ n: 11 });
    expect(await cachedEntry(cache, 'big')).toEqual({ n: -1 });
  });

  it('never stores an entry over 1/64 of the budget, and pushes nothing out for it', async () => {
    const { cache } = cacheWithCounts();
    await fill(cache, 64, 10);
    await cache.lookup('rest', newRequest(), [], 'huge');
    cache.store((await cache.lookup('rest', newRequest(), [], 'huge'))!.key, { n: -1 }, 11);
    expect(await cachedEntry(cache, 'huge')).toBeUndefined();
    expect(await cachedEntry(cache, 'k0')).toEqual({ n: 0 });
  });

  it('replaces an entry stored under the same key, counting its size once', async () => {
    const { cache } = cacheWithCounts();
    await fill(cache, 64, 10);
    cache.store((await cache.lookup('rest', newRequest(), [], 'k63'))!.key, { n: 630 }, 10);
    expect(await cachedEntry(cache, 'k63')).toEqual({ n: 630 });
    expect(await cachedEntry(cache, 'k0')).toEqual({ n: 0 });
  });

  it('keeps an empty entry', async () => {
    const { cache } = cacheWithCounts();
    await fill(cache, 1, 0);
    expect(await cachedEntry(cache, 'k0')).toEqual({ n: 0 });
  });
});
