import { describe, expect, it } from 'vitest';
import { readSettings } from '../../src/widget/client/settings.js';

/** What the widget makes of its options (the script's own reading, without a page: it is plain code). */
function read(options: Record<string, unknown>): { near: unknown; radiusKm: number; warnings: string[] } {
  const warnings: string[] = [];
  const settings = readSettings({ token: 'wt_test', ...options }, null, (message) => warnings.push(message));
  return { near: settings.near, radiusKm: settings.radiusKm, warnings };
}

describe('the widget’s near option', () => {
  it('takes "lat,lng", { lat, lng } and "me"', () => {
    expect(read({ near: '42.52, -70.9' }).near).toEqual({ lat: 42.52, lng: -70.9 });
    expect(read({ near: { lat: 42.52, lng: -70.9 } }).near).toEqual({ lat: 42.52, lng: -70.9 });
    expect(read({ near: 'me' }).near).toBe('me');
    expect(read({}).near).toBeNull();
  });

  it.each([',', '42.52,', '42.52, ', ',-70.9', '42.52', '42.52,-70.9,3', '0x2a,0', '91,0', { lat: '', lng: 0 }, { lat: 42.5 }])(
    'warns and searches near nothing for %j, rather than near a point it made up',
    (near) => {
      const { near: point, warnings } = read({ near });
      expect(point).toBeNull();
      expect(warnings).toEqual(['near must be "me", "lat,lng" or { lat, lng } in degrees; events are not sorted by distance.']);
    },
  );

  it('reads radius and limit in decimals only, falling back to the default with a warning', () => {
    expect(read({ radius: '12.5' }).radiusKm).toBe(12.5);
    expect(read({ radius: ' 1e1 ' }).radiusKm).toBe(10);
    const hex = read({ radius: '0x10' });
    expect(hex).toEqual({ near: null, radiusKm: read({}).radiusKm, warnings: [expect.stringMatching(/^radius must be a number/)] });
    const warnings: string[] = [];
    const defaultLimit = readSettings({ token: 'wt_test' }, null, () => undefined).limit;
    expect(readSettings({ token: 'wt_test', limit: '0x10' }, null, (message) => warnings.push(message)).limit).toBe(defaultLimit);
    expect(warnings).toEqual([expect.stringMatching(/^limit must be a whole number/)]);
  });
});
