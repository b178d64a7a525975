import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openService, slotsPerDay } from '../support/bookable.js';
import { apiClient, customer, futureSlot, type ApiCall } from '../support/http.js';
import { openFeed, type AvailabilityFeed, type StreamedSlot } from '../support/live-availability.js';
import { subscriptionsActive } from '../support/metrics.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * Live availability followed over many ranges of one service: a change is read once for ranges that
 * overlap or touch (one statement of places), and each subscriber is still sent exactly what changed
 * in its own range.
 */

let server: TestServer;
let readerKey: string;
let booker: ApiCall;
let operator: ApiCall;
let serviceId: string;
/** Reads of places sent so far (the availability's statement over booking_slots). */
let placesReads = 0;
const feeds: AvailabilityFeed[] = [];

/** The day `days` after today's (UTC), as the Date scalar takes it. */
const dayAfter = (days: number) => futureSlot(days).slice(0, 10);
const daysIn = (first: number, last: number) => last - first + 1;

beforeAll(async () => {
  server = await startTestServer({
    seed: true,
    onQuery: (sql) => {
      if (/AS places FROM booking_slots/.test(sql)) placesReads++;
    },
  });
  ({ key: readerKey } = await server.createKey({ scopes: ['bookings:read'] }));
  booker = apiClient(server.url, (await server.createKey({ scopes: ['bookings:read', 'bookings:write'] })).key);
  operator = apiClient(server.url, (await server.createKey({ scopes: ['admin'] })).key);
  serviceId = await openService(server.prisma, { capacity: 4 });
});
afterAll(async () => {
  for (const feed of feeds) feed.close();
  await server?.close();
});

async function follow(first: number, last: number, service = serviceId, perDay = slotsPerDay): Promise<AvailabilityFeed> {
  const feed = await openFeed('graphql-ws', { baseUrl: server.url, credential: readerKey, serviceId: service, startDate: dayAfter(first), endDate: dayAfter(last) });
  feeds.push(feed);
  // The current state first: every slot of its days.
  await feed.take(daysIn(first, last) * perDay);
  return feed;
}

const at = (slots: StreamedSlot[]) => slots.map((slot) => [slot.startTime, slot.remaining] as const);

async function book(startTime: string, partySize: number, service = serviceId): Promise<string> {
  const answer = await booker('POST', '/v1/bookings', { service_id: service, start_time: startTime, party_size: partySize, customer });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return String(answer.body.id);
}

describe('subscribers of many ranges of one service', () => {
  const day = 10;
  const slot = futureSlot(day, 18);
  /** Ranges around `day` that each hold it, one of them followed twice. */
  const around = [
    [day, day],
    [day, day],
    [day - 1, day],
    [day, day + 1],
    [day - 2, day + 1],
    [day - 1, day + 2],
  ] as const;
  let holding: AvailabilityFeed[];
  let nearby: AvailabilityFeed;
  let far: AvailabilityFeed;

  beforeAll(async () => {
    holding = [];
    for (const [first, last] of around) holding.push(await follow(first, last));
    nearby = await follow(day + 3, day + 3);
    far = await follow(day + 70, day + 70);
  });

  it('are each sent the slot a booking changed in their range, and the booking read once for every range near it and once for the far one', async () => {
    const before = placesReads;
    await book(slot, 3);
    for (const feed of holding) expect(at([await feed.next()])).toEqual([[slot, 1]]);
    // Six ranges around the day (five distinct) and day + 3, which touches the last of them: one statement; day + 70: another.
    expect(placesReads - before).toBe(2);

    // Nothing was sent to a range the booking did not touch: their next slot is a later booking's.
    const farSlot = futureSlot(day + 70, 9);
    await book(farSlot, 1);
    expect(at([await far.next()])).toEqual([[farSlot, 3]]);
    const nearbySlot = futureSlot(day + 3, 9);
    await book(nearbySlot, 2);
    expect(at([await nearby.next()])).toEqual([[nearbySlot, 2]]);
  });

  it('reads a range no more once its last subscriber has gone', async () => {
    far.close();
    // The far stream has ended on the server once the open subscriptions no longer count it.
    await expect.poll(() => subscriptionsActive(server.url)).toBe(around.length + 1);
    const before = placesReads;
    const later = futureSlot(day, 20);
    await book(later, 1);
    // The next slot each is sent is this booking's: none was sent for the bookings of the other ranges.
    for (const feed of holding) expect(at([await feed.next()])).toEqual([[later, 3]]);
    expect(placesReads - before).toBe(1);
  });
});

describe('subscribers of neighbouring days of a service far from UTC', () => {
  /** Kiritimati is 14 hours ahead of UTC all year: its local day starts at 10:00 UTC the day before. */
  const zone = 'Pacific/Kiritimati';
  const day = 20;
  let kiritimati: string;
  let today: AvailabilityFeed;
  let tomorrow: AvailabilityFeed;

  beforeAll(async () => {
    // Every hour a slot, every day: the test service's openings (openService) at 60 minutes.
    kiritimati = await openService(server.prisma, { capacity: 4, name: 'Hourly in Kiritimati', schedule: { timezone: zone, slotMinutes: 60, durationMinutes: 60 } });
    today = await follow(day, day, kiritimati, 24);
    tomorrow = await follow(day + 1, day + 1, kiritimati, 24);
  });

  it('are each sent the slots of their own local day, read together', async () => {
    // 23:00 on the first local day and 01:00 on the second: both on one UTC day.
    const lateToday = `${dayAfter(day)}T09:00:00Z`;
    const earlyTomorrow = `${dayAfter(day)}T11:00:00Z`;
    await book(lateToday, 1, kiritimati);
    expect(at([await today.next()])).toEqual([[lateToday, 3]]);
    await book(earlyTomorrow, 2, kiritimati);
    expect(at([await tomorrow.next()])).toEqual([[earlyTomorrow, 2]]);

    const before = placesReads;
    expect((await operator('PATCH', `/v1/admin/services/${kiritimati}`, { capacity: 5 })).status).toBe(200);
    const [todaySlots, tomorrowSlots] = await Promise.all([today.take(24), tomorrow.take(24)]);
    expect(placesReads - before).toBe(1);
    for (const [feed, slots, first] of [
      [today, todaySlots, `${dayAfter(day - 1)}T10:00:00Z`],
      [tomorrow, tomorrowSlots, `${dayAfter(day)}T10:00:00Z`],
    ] as const) {
      expect(slots.every((slot) => slot.capacity === 5)).toBe(true);
      expect(slots[0]!.startTime).toBe(first);
      expect(new Date(slots.at(-1)!.startTime).getTime() - new Date(first).getTime()).toBe(23 * 3_600_000);
      // Nothing else came: the first day was sent one booking, the second another, then the change.
      expect(feed.received.length).toBe(24 + 1 + 24);
    }
    expect(at(todaySlots).find(([start]) => start === lateToday)).toEqual([lateToday, 4]);
    expect(at(tomorrowSlots).find(([start]) => start === earlyTomorrow)).toEqual([earlyTomorrow, 3]);
  });
});
