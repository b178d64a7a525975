import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/shared/ids.js';
import { apiClient, type ApiCall } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { confirmedCounts, customer, graphql } from './fixtures.js';

// The server's clock stands still on Friday 2027-10-29 at 12:00 in Chicago (17:00Z, CDT), so these
// slots of the 2027 season stay in the future whenever the test runs.
const now = new Date('2027-10-29T17:00:00Z');
const saturday22 = '2027-10-31T03:00:00Z'; // Saturday 2027-10-30 22:00 CDT
const saturday2230 = '2027-10-31T03:30:00Z';
const sunday0030 = '2027-10-31T05:30:00Z'; // the same night, after midnight

let server: TestServer;
let call: ApiCall;

/** A Chicago haunted house: Fridays and Saturdays 22:00–01:00, a 30-minute visit every 30 minutes. */
async function nightService(capacity: number): Promise<string> {
  const attraction = await server.prisma.attraction.findFirstOrThrow({ orderBy: { id: 'asc' } });
  const service = await server.prisma.service.create({
    data: {
      id: newId('service'),
      name: `Night walk for ${capacity}`,
      attractionId: attraction.id,
      durationMinutes: 30,
      capacity,
      timezone: 'America/Chicago',
      slotMinutes: 30,
      seasonStart: new Date('2027-09-15'),
      seasonEnd: new Date('2027-11-06'),
      openingHours: [
        { weekday: 5, opens: '22:00', closes: '01:00' },
        { weekday: 6, opens: '22:00', closes: '01:00' },
      ],
    },
  });
  return service.id;
}

const book = (serviceId: string, startTime: string, extra: Record<string, unknown> = {}) =>
  call('POST', '/v1/bookings', { service_id: serviceId, start_time: startTime, customer, ...extra });

beforeAll(async () => {
  server = await startTestServer({ seed: true, clock: () => now });
  call = apiClient(server.url, (await server.createKey({ scopes: ['bookings:read', 'bookings:write'] })).key);
});
afterAll(() => server?.close());

describe('start times must be slots of the service', () => {
  it('books a slot, with its end time and one place by default, the night past midnight included', async () => {
    const serviceId = await nightService(10);
    const created = await book(serviceId, saturday22);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ start_time: saturday22, end_time: saturday2230, party_size: 1 });
    expect((await book(serviceId, sunday0030)).body).toMatchObject({ start_time: sunday0030, end_time: '2027-10-31T06:00:00Z' });
  });

  it.each([
    ['between two slots', '2027-10-31T03:15:00Z'],
    ['a millisecond after a slot', '2027-10-31T03:00:00.001Z'],
    ['before opening', '2027-10-31T02:30:00Z'],
    ['at closing time', '2027-10-31T06:00:00Z'],
    ['on a day without opening hours (Thursday 22:00)', '2027-11-05T03:00:00Z'],
    ['after the season (Saturday 2027-11-13 22:00 CST)', '2027-11-14T04:00:00Z'],
  ])('refuses a time %s with 422 not_a_slot on start_time', async (_label, startTime) => {
    const refused = await book(await nightService(10), startTime);
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: 'validation_failed', errors: [expect.objectContaining({ field: 'start_time', code: 'not_a_slot' })] });
  });

  it('refuses a slot that has started (in_past), on create and on PATCH', async () => {
    const serviceId = await nightService(10);
    const lastSaturday = '2027-10-24T03:00:00Z'; // Saturday 2027-10-23 22:00 CDT, a slot before the clock
    const refused = await book(serviceId, lastSaturday);
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([expect.objectContaining({ field: 'start_time', code: 'in_past' })]);
    const id = (await book(serviceId, saturday22)).body.id;
    const moved = await call('PATCH', `/v1/bookings/${id}`, { start_time: lastSaturday });
    expect(moved.status).toBe(422);
    expect(moved.body.errors).toEqual([expect.objectContaining({ field: 'start_time', code: 'in_past' })]);
  });

  it('checks PATCH against the grid too: a new time, or a new service whose grid lacks the booked time', async () => {
    const serviceId = await nightService(10);
    const id = (await book(serviceId, saturday22)).body.id;
    const offGrid = await call('PATCH', `/v1/bookings/${id}`, { start_time: '2027-10-31T03:10:00Z' });
    expect(offGrid.status).toBe(422);
    expect(offGrid.body.errors).toEqual([expect.objectContaining({ field: 'start_time', code: 'not_a_slot' })]);
    const attraction = await server.prisma.attraction.findFirstOrThrow({ orderBy: { id: 'asc' } });
    const mornings = await server.prisma.service.create({
      data: {
        id: newId('service'),
        name: 'Mornings',
        attractionId: attraction.id,
        durationMinutes: 60,
        capacity: 5,
        timezone: 'America/Chicago',
        slotMinutes: 60,
        seasonStart: new Date('2027-10-01'),
        seasonEnd: new Date('2027-11-30'),
        openingHours: [{ weekday: 6, opens: '09:00', closes: '12:00' }],
      },
    });
    const otherService = await call('PATCH', `/v1/bookings/${id}`, { service_id: mornings.id });
    expect(otherService.status).toBe(422);
    expect(otherService.body.errors).toEqual([expect.objectContaining({ field: 'start_time', code: 'not_a_slot' })]);
    // Saturday 09:00 CDT is a slot of the morning service: moving there takes its duration.
    const movedThere = await call('PATCH', `/v1/bookings/${id}`, { service_id: mornings.id, start_time: '2027-10-30T14:00:00Z' });
    expect(movedThere.body).toMatchObject({ service_id: mornings.id, start_time: '2027-10-30T14:00:00Z', end_time: '2027-10-30T15:00:00Z' });
    expect(await confirmedCounts(server, serviceId)).toEqual({ [saturday22]: 0 });
  });
});

describe('party sizes', () => {
  it('take that many places: a party that does not fit is 409 slot_full, one larger than the capacity 422', async () => {
    const serviceId = await nightService(5);
    const family = await book(serviceId, saturday22, { party_size: 3 });
    expect(family.status).toBe(201);
    expect(family.body.party_size).toBe(3);
    const tooMany = await book(serviceId, saturday22, { party_size: 3 });
    expect(tooMany.status).toBe(409);
    expect(tooMany.body.code).toBe('slot_full');
    expect(tooMany.body.detail).toMatch(new RegExp(`^Only 2 places are left in .+ at ${saturday22}; the party needs 3\\.$`));
    expect((await book(serviceId, saturday22, { party_size: 2 })).status).toBe(201);
    const full = await book(serviceId, saturday22);
    expect(full.status).toBe(409);
    expect(full.body.detail).toMatch(new RegExp(`^.+ at ${saturday22} is full\\.$`));
    expect(await confirmedCounts(server, serviceId)).toEqual({ [saturday22]: 5 });

    const overCapacity = await book(serviceId, saturday2230, { party_size: 6 });
    expect(overCapacity.status).toBe(422);
    expect(overCapacity.body.errors).toEqual([expect.objectContaining({ field: 'party_size', code: 'out_of_range' })]);
    for (const bad of [0, -1, 1.5, '2']) {
      const refused = await book(serviceId, saturday2230, { party_size: bad });
      expect(refused.status, String(bad)).toBe(422);
      expect(refused.body.errors.map((error: { field: string }) => error.field)).toEqual(['party_size']);
    }

    // A cancel frees the whole party.
    expect((await call('DELETE', `/v1/bookings/${family.body.id}`)).status).toBe(200);
    expect(await confirmedCounts(server, serviceId)).toEqual({ [saturday22]: 2 });
  });

  it('change with PATCH in the same slot or with a move, never beyond the places left', async () => {
    const serviceId = await nightService(4);
    const id = (await book(serviceId, saturday22, { party_size: 2 })).body.id;
    await book(serviceId, saturday2230, { party_size: 3 });
    expect((await call('PATCH', `/v1/bookings/${id}`, { party_size: 4 })).body.party_size).toBe(4);
    expect(await confirmedCounts(server, serviceId)).toEqual({ [saturday22]: 4, [saturday2230]: 3 });
    expect((await call('PATCH', `/v1/bookings/${id}`, { party_size: 5 })).body.errors).toEqual([expect.objectContaining({ field: 'party_size', code: 'out_of_range' })]);

    // Into a slot with one place left: a party of four is refused and nothing moves.
    const refused = await call('PATCH', `/v1/bookings/${id}`, { start_time: saturday2230 });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('slot_full');
    expect(await confirmedCounts(server, serviceId)).toEqual({ [saturday22]: 4, [saturday2230]: 3 });
    // A party of one fits there.
    const moved = await call('PATCH', `/v1/bookings/${id}`, { start_time: saturday2230, party_size: 1 });
    expect(moved.body).toMatchObject({ start_time: saturday2230, party_size: 1 });
    expect(await confirmedCounts(server, serviceId)).toEqual({ [saturday22]: 0, [saturday2230]: 4 });
  });

  it('are in GraphQL (partySize, endTime) and in the booking events', async () => {
    const serviceId = await nightService(8);
    const created = await graphql(
      call,
      `
        mutation ($input: CreateBookingInput!) {
          createBooking(input: $input) {
            booking {
              id
              startTime
              endTime
              partySize
            }
          }
        }
      `,
      { input: { serviceId, startTime: sunday0030, partySize: 4, customer } },
    );
    const booking = created.data!['createBooking'].booking;
    expect(booking).toMatchObject({ startTime: sunday0030, endTime: '2027-10-31T06:00:00Z', partySize: 4 });
    const changed = await graphql(
      call,
      `
        mutation ($id: ID!) {
          updateBooking(id: $id, input: { partySize: 2 }) {
            partySize
          }
        }
      `,
      { id: booking.id },
    );
    expect(changed.data!['updateBooking'].partySize).toBe(2);
    const events = (await call('GET', '/v1/booking_events?limit=100')).body.data.filter((event: { data: { id: string } }) => event.data.id === booking.id);
    expect(events.map((event: { event: string; data: { party_size: number; end_time: string } }) => [event.event, event.data.party_size, event.data.end_time])).toEqual([
      ['booking.created', 4, '2027-10-31T06:00:00Z'],
      ['booking.updated', 2, '2027-10-31T06:00:00Z'],
    ]);
  });
});
