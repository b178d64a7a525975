import { TZDate } from '@date-fns/tz';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promoLastSecond } from '../../src/access/rate-limit.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { burst, postGraphQL } from './requests.js';

// The promotion's last second, written independently of the code: 23:59:59 on 31 July 2027 in Chicago (CDT, UTC-5).
const lastPromoSecond = new TZDate(2027, 6, 31, 23, 59, 59, 'America/Chicago');

let now = new Date(lastPromoSecond.getTime());
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ clock: () => now });
});
afterAll(() => server.close());

const typename = '{ __typename }';

async function promoKeyBurstAt(instant: Date, count: number) {
  now = instant;
  const { key } = await server.createKey({ plan: 'free', promo: true });
  return Object.fromEntries(await burst(count, () => postGraphQL(server.url, key, typename)));
}

describe('promotional bypass', () => {
  it('ends at 2027-07-31 23:59:59 America/Chicago, which is 2027-08-01T04:59:59Z', () => {
    expect(lastPromoSecond.toISOString()).toBe('2027-07-31T23:59:59.000-05:00');
    expect(promoLastSecond.toISOString()).toBe('2027-08-01T04:59:59.000Z');
  });

  it('leaves promo keys unlimited through the last second', async () => {
    expect(await promoKeyBurstAt(new Date('2027-08-01T04:59:59.000Z'), 130)).toEqual({ 200: 130 });
    expect(await promoKeyBurstAt(new Date('2027-08-01T04:59:59.999Z'), 130)).toEqual({ 200: 130 });
    expect(await promoKeyBurstAt(new Date('2026-10-31T12:00:00.000Z'), 130)).toEqual({ 200: 130 });
  });

  it('shows the plan limit, untouched, while the bypass lasts', async () => {
    now = new Date('2027-08-01T04:59:59.000Z');
    const { key } = await server.createKey({ plan: 'free', promo: true });
    await burst(5, () => postGraphQL(server.url, key, typename));
    const response = await postGraphQL(server.url, key, typename);
    expect(response.headers.get('x-ratelimit-limit')).toBe('100');
    expect(response.headers.get('x-ratelimit-remaining')).toBe('100');
    expect(response.headers.get('x-ratelimit-reset')).toBe(String(Date.parse('2027-08-01T05:00:00Z') / 1000));
  });

  it('limits promo keys by plan from the next second on', async () => {
    expect(await promoKeyBurstAt(new Date('2027-08-01T05:00:00.000Z'), 110)).toEqual({ 200: 100, 429: 10 });
    expect(await promoKeyBurstAt(new Date('2027-12-01T00:00:00.000Z'), 110)).toEqual({ 200: 100, 429: 10 });
  });

  it('never lifts the limit of keys without the promo flag', async () => {
    now = new Date('2027-08-01T04:59:59.000Z');
    const { key } = await server.createKey({ plan: 'free' });
    expect(Object.fromEntries(await burst(110, () => postGraphQL(server.url, key, typename)))).toEqual({ 200: 100, 429: 10 });
  });
});
