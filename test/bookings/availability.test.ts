import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fastPaths } from '../../src/fast-paths.js';
import { newId } from '../../src/shared/ids.js';
import { apiClient, type ApiCall } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { customer, graphql } from './fixtures.js';

// The clock stands on Friday 2027-10-29, 12:00 in Chicago (17:00Z), and moves only when a test moves it.
let now = new Date('2027-10-29T17:00:00Z');
let server: TestServer;
let call: ApiCall;
let other: ApiCall;
let statements: string[] = [];

const friday = ['03:00', '03:30', '04:00', '04:30', '05:00', '05:30'].map((time) => `2027-10-30T${time}:00Z`); // Fri 22:00 … Sat 00:30 CDT
const saturday = ['03:00', '03:30', '04:00', '04:30', '05:00', '05:30'].map((time) => `2027-10-31T${time}:00Z`); // Sat 22:00 … Sun 00:30 CDT

/** Fridays and Saturdays 22:00–01:00 in Chicago, a 30-minute visit every 30 minutes. */
async function nightService(capacity: number, extra: { timezone?: string; openingHours?: object[] } = {}): Promise<string> {
  const attraction = await server.prisma.attraction.findFirstOrThrow({ orderBy: { id: 'asc' } });
  const service = await server.prisma.service.create({
    data: {
      id: newId('service'),
      name: 'Night walk',
      attractionId: attraction.id,
      durationMinutes: 30,
      capacity,
      timezone: extra.timezone ?? 'America/Chicago',
      slotMinutes: 30,
      seasonStart: new Date('2027-09-15'),
      seasonEnd: new Date('2027-11-30'),
      openingHours: extra.openingHours ?? [
        { weekday: 5, opens: '22:00', closes: '01:00' },
        { weekday: 6, opens: '22:00', closes: '01:00' },
      ],
    },
  });
  return service.id;
}

type Slot = { startTime: string; endTime: string; capacity: number; remaining: number };

const availabilityQuery = `query ($id: ID!, $from: Date!, $to: Date!) { service(id: $id) { availability(startDate: $from, endDate: $to) { startTime endTime capacity remaining } } }`;

/** Service.availability over GraphQL: the slots, or the first error's extensions. */
async function availability(serviceId: string, from: string, to: string, as = call): Promise<{ slots?: Slot[]; error?: Record<string, unknown> }> {
  const answer = await graphql(as, availabilityQuery, { id: serviceId, from, to });
  if (answer.errors) return { error: answer.errors[0]!.extensions };
  return { slots: answer.data!['service'].availability as Slot[] };
}
const starts = (slots: Slot[] | undefined) => (slots ?? []).map((slot) => slot.startTime);

/** Statements that read the places of slots while `work` runs: 0 when the answer was kept. */
async function slotReads(work: () => Promise<unknown>): Promise<number> {
  statements = [];
  await work();
  return statements.filter((sql) => /FROM booking_slots/.test(sql)).length;
}

beforeAll(async () => {
  server = await startTestServer({ seed: true, clock: () => now, onQuery: (sql) => statements.push(sql) });
  call = apiClient(server.url, (await server.createKey({ scopes: ['bookings:read', 'bookings:write'] })).key);
  other = apiClient(server.url, (await server.createKey({ scopes: ['bookings:read', 'bookings:write'] })).key);
});
afterAll(() => server?.close());

describe('Service.availability', () => {
  it('lists the slots of the local days asked for, oldest first, with the places left', async () => {
    const serviceId = await nightService(5);
    expect((await call('POST', '/v1/bookings', { service_id: serviceId, start_time: saturday[0], party_size: 2, customer })).status).toBe(201);
    expect((await call('POST', '/v1/bookings', { service_id: serviceId, start_time: saturday[5], party_size: 5, customer })).status).toBe(201);
    const { slots } = await availability(serviceId, '2027-10-29', '2027-10-31');
    // Friday's opening runs into Saturday and Saturday's into Sunday: each slot is listed on the day it starts.
    expect(starts(slots)).toEqual([...friday, ...saturday]);
    expect(slots![6]).toEqual({ startTime: saturday[0], endTime: saturday[1], capacity: 5, remaining: 3 });
    expect(slots!.at(-1)).toMatchObject({ startTime: saturday[5], remaining: 0 });
    expect(slots!.filter((slot) => slot.remaining === 5)).toHaveLength(10);
    // Saturday alone: its evening, and Friday's slots after midnight.
    expect(starts((await availability(serviceId, '2027-10-30', '2027-10-30')).slots)).toEqual([friday[4], friday[5], ...saturday.slice(0, 4)]);
  });

  it('leaves out slots that have started, and has none outside the season', async () => {
    const serviceId = await nightService(5);
    // Last week's slots have started; only this Friday's evening is left of the range.
    expect(starts((await availability(serviceId, '2027-10-22', '2027-10-29')).slots)).toEqual(friday.slice(0, 4));
    expect((await availability(serviceId, '2027-12-01', '2027-12-31')).slots).toEqual([]);
  });

  it('has 8 slots on the night New York falls back, and each can be booked', async () => {
    const serviceId = await nightService(2, { timezone: 'America/New_York', openingHours: [{ weekday: 7, opens: '00:00', closes: '03:00' }] });
    const night = starts((await availability(serviceId, '2027-11-07', '2027-11-07')).slots);
    expect(night).toEqual(['04:00', '04:30', '05:00', '05:30', '06:00', '06:30', '07:00', '07:30'].map((time) => `2027-11-07T${time}:00Z`));
    for (const start of night) expect((await call('POST', '/v1/bookings', { service_id: serviceId, start_time: start, customer })).status, start).toBe(201);
  });

  it('refuses a backwards range or more than 31 days as invalid_parameter naming the argument, and needs bookings:read', async () => {
    const serviceId = await nightService(5);
    expect((await availability(serviceId, '2027-10-31', '2027-10-30')).error).toMatchObject({
      code: 'invalid_parameter',
      errors: [expect.objectContaining({ field: 'startDate', code: 'after_end_date' })],
    });
    expect((await availability(serviceId, '2027-10-01', '2027-11-01')).error).toMatchObject({
      code: 'invalid_parameter',
      errors: [expect.objectContaining({ field: 'endDate', code: 'out_of_range' })],
    });
    expect((await availability(serviceId, '2027-10-01', '2027-10-31')).slots!.length).toBeGreaterThan(0);
    const directoryOnly = apiClient(server.url, (await server.createKey({ scopes: ['directory:read'] })).key);
    expect((await availability(serviceId, '2027-10-29', '2027-10-31', directoryOnly)).error).toMatchObject({ code: 'insufficient_scope' });
    const servicesOnly = await graphql(
      directoryOnly,
      'query ($id: ID!) { service(id: $id) { timezone slotMinutes seasonStart seasonEnd openingHours { weekday opens closes } } }',
      { id: serviceId },
    );
    expect(servicesOnly.data!['service']).toEqual({
      timezone: 'America/Chicago',
      slotMinutes: 30,
      seasonStart: '2027-09-15',
      seasonEnd: '2027-11-30',
      openingHours: [
        { weekday: 5, opens: '22:00', closes: '01:00' },
        { weekday: 6, opens: '22:00', closes: '01:00' },
      ],
    });
  });
});

describe('kept availability answers', () => {
  /** Slot reads of a repeat whose answer is kept: none, or one every time without the response cache (HALLOWGATE_FAST_PATHS). */
  const keptRead = fastPaths['response-cache'] ? 0 : 1;

  it('serve repeats until a booking, cancel, reschedule or party change in any account, or a slot starting, changes them', async () => {
    const serviceId = await nightService(6);
    /** Places left in Friday night's slots (the range holds Saturday evening's too). */
    const read = async () => (await availability(serviceId, '2027-10-29', '2027-10-30')).slots!.filter((slot) => friday.includes(slot.startTime)).map((slot) => slot.remaining);
    // Kept from the second asking, served from the third.
    expect(await slotReads(read)).toBe(1);
    expect(await slotReads(read)).toBe(1);
    expect(await slotReads(read)).toBe(keptRead);

    // Another account's booking takes places everyone sees.
    const booked = await other('POST', '/v1/bookings', { service_id: serviceId, start_time: friday[0], party_size: 2, customer });
    expect(booked.status).toBe(201);
    expect(await slotReads(read)).toBe(1);
    expect(await read()).toEqual([4, 6, 6, 6, 6, 6]);
    expect(await slotReads(read)).toBe(keptRead);

    await other('PATCH', `/v1/bookings/${booked.body.id}`, { start_time: friday[2] });
    expect(await read()).toEqual([6, 6, 4, 6, 6, 6]);
    await other('PATCH', `/v1/bookings/${booked.body.id}`, { party_size: 5 });
    expect(await read()).toEqual([6, 6, 1, 6, 6, 6]);
    await other('DELETE', `/v1/bookings/${booked.body.id}`);
    expect(await read()).toEqual([6, 6, 6, 6, 6, 6]);
    // A change that moves no place (the customer's name) leaves the cached response standing.
    const mine = await call('POST', '/v1/bookings', { service_id: serviceId, start_time: friday[5], customer });
    expect(await read()).toEqual([6, 6, 6, 6, 6, 5]);
    await read();
    await call('PATCH', `/v1/bookings/${mine.body.id}`, { customer: { name: 'Renamed' } });
    expect(await slotReads(read)).toBe(keptRead);

    // Friday 22:00 starts: the next answer is made again, without it.
    now = new Date('2027-10-30T03:00:00Z');
    expect(await slotReads(read)).toBe(1);
    expect(await read()).toEqual([6, 6, 6, 6, 5]);
  });
});
