import { describe, expect, it } from 'vitest';
import { isoTimestamp } from '../../src/shared/clock.js';

/** What isoTimestamp promises, by way of the platform's own ISO writer. */
function expected(date: Date): string {
  const iso = date.toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
}

describe('isoTimestamp', () => {
  it('writes whole seconds without milliseconds, and milliseconds with three digits', () => {
    expect(isoTimestamp(new Date('2026-10-31T19:00:00.000Z'))).toBe('2026-10-31T19:00:00Z');
    expect(isoTimestamp(new Date('2026-01-02T03:04:05.007Z'))).toBe('2026-01-02T03:04:05.007Z');
    expect(isoTimestamp(new Date('0001-01-01T00:00:00Z'))).toBe('0001-01-01T00:00:00Z');
    expect(isoTimestamp(new Date('9999-12-31T23:59:59.999Z'))).toBe('9999-12-31T23:59:59.999Z');
    expect(isoTimestamp(new Date(Date.UTC(10_000, 0, 1)))).toBe('+010000-01-01T00:00:00Z');
  });

  it('agrees with toISOString on dates from before 1970 to past 9999, at every millisecond', () => {
    // A fixed walk (no randomness): steps of a prime number of milliseconds cover every field's values.
    const start = Date.UTC(-1000, 0, 1);
    const end = Date.UTC(12_000, 0, 1);
    const step = 1_000_003 * 60_000 + 7;
    let checked = 0;
    for (let time = start; time < end; time += step) {
      const date = new Date(time);
      expect(isoTimestamp(date)).toBe(expected(date));
      checked++;
    }
    expect(checked).toBeGreaterThan(5_000);
  });
});
