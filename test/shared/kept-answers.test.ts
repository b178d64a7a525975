import { describe, expect, it } from 'vitest';
import { KeptAnswers } from '../../src/shared/kept-answers.js';

/** Budget 640: an answer may take at most 10 characters of it. */
const budget = 640;

function fill(kept: KeptAnswers<{ n: number }>, count: number, size: number) {
  for (let n = 0; n < count; n += 1) kept.set(`k${n}`, { n }, size);
}

describe('KeptAnswers', () => {
  it('keeps answers up to the budget and pushes out the least recently used first', () => {
    const kept = new KeptAnswers<{ n: number }>(budget);
    fill(kept, 64, 10);
    expect(kept.get('k0')).toEqual({ n: 0 });
    // k0 was just read, so k1 is now the oldest and the first to go.
    kept.set('k64', { n: 64 }, 10);
    expect(kept.get('k1')).toBeUndefined();
    expect(kept.get('k0')).toEqual({ n: 0 });
    expect(kept.get('k64')).toEqual({ n: 64 });
    // Twenty more characters push out exactly two more answers.
    kept.set('k65', { n: 65 }, 10);
    kept.set('k66', { n: 66 }, 10);
    expect([2, 3, 4].map((n) => kept.get(`k${n}`))).toEqual([undefined, undefined, { n: 4 }]);
  });

  it('counts sizes, not answers: small answers fit many times over', () => {
    const kept = new KeptAnswers<{ n: number }>(budget);
    fill(kept, 640, 1);
    expect(kept.get('k0')).toEqual({ n: 0 });
    kept.set('big', { n: -1 }, 10);
    // Ten characters made room by pushing out the ten oldest after k0 (read last).
    expect(kept.get('k1')).toBeUndefined();
    expect(kept.get('k10')).toBeUndefined();
    expect(kept.get('k11')).toEqual({ n: 11 });
    expect(kept.get('big')).toEqual({ n: -1 });
  });

  it('never keeps an answer over 1/64 of the budget, and pushes nothing out for it', () => {
    const kept = new KeptAnswers<{ n: number }>(budget);
    fill(kept, 64, 10);
    kept.set('huge', { n: -1 }, 11);
    expect(kept.get('huge')).toBeUndefined();
    expect(kept.get('k0')).toEqual({ n: 0 });
  });

  it('replaces an answer kept under the same key, counting its size once', () => {
    const kept = new KeptAnswers<{ n: number }>(budget);
    fill(kept, 64, 10);
    kept.set('k63', { n: 630 }, 10);
    expect(kept.get('k63')).toEqual({ n: 630 });
    expect(kept.get('k0')).toEqual({ n: 0 });
  });

  it('keeps an empty answer', () => {
    const kept = new KeptAnswers<{ n: number }>(budget);
    kept.set('empty', { n: 0 }, 0);
    expect(kept.get('empty')).toEqual({ n: 0 });
  });
});
