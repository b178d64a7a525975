import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type ApiCall } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { customer, graphql } from './fixtures.js';

// The clock stands on Friday 2027-10-29, 12:00 in Chicago.
const now = new Date('2027-10-29T17:00:00Z');
let server: TestServer;
let admin: ApiCall;
let call: ApiCall;
let attractionId: string;

const serviceFields = 'id name attractionId durationMinutes capacity timezone slotMinutes seasonStart seasonEnd openingHours { weekday opens closes }';
const createMutation = `mutation ($input: CreateServiceInput!) { createService(input: $input) { ${serviceFields} } }`;
const updateMutation = `mutation ($id: ID!, $input: UpdateServiceInput!) { updateService(id: $id, input: $input) { ${serviceFields} } }`;
const availabilityQuery = `query ($id: ID!, $from: Date!, $to: Date!) { service(id: $id) { availability(startDate: $from, endDate: $to) { startTime remaining } } }`;

/** A Chicago haunted house: Fridays and Saturdays 19:00–01:00, 45-minute visits every 30 minutes. */
const hauntedHouse = () => ({
  attractionId,
  name: 'Timed entry – Spooky Hollow Asylum',
  durationMinutes: 45,
  capacity: 4,
  timezone: 'America/Chicago',
  slotMinutes: 30,
  seasonStart: '2027-09-15',
  seasonEnd: '2027-11-01',
  openingHours: [
    { weekday: 5, opens: '19:00', closes: '01:00' },
    { weekday: 6, opens: '19:00', closes: '01:00' },
  ],
});

async function created(input = hauntedHouse()) {
  const answer = await graphql(admin, createMutation, { input });
  expect(answer.errors).toBeUndefined();
  return answer.data!['createService'] as { id: string } & Record<string, unknown>;
}

const fieldErrors = (answer: Awaited<ReturnType<typeof graphql>>) =>
  answer.errors![0]!.extensions.errors!.map((error) => [error.field, (error as unknown as { code: string }).code]);

beforeAll(async () => {
  server = await startTestServer({ seed: true, clock: () => now });
  admin = apiClient(server.url, (await server.createKey({ scopes: ['admin'] })).key);
  call = apiClient(server.url, (await server.createKey({ scopes: ['bookings:read', 'bookings:write'] })).key);
  attractionId = (await server.prisma.attraction.findFirstOrThrow({ orderBy: { id: 'asc' } })).id;
});
afterAll(() => server?.close());

describe('createService', () => {
  it('makes a service whose schedule gives its slots at once', async () => {
    const service = await created();
    expect(service).toMatchObject({ ...hauntedHouse(), id: expect.stringMatching(/^svc_/) });
    const slots = await graphql(call, availabilityQuery, { id: service.id, from: '2027-10-29', to: '2027-10-29' });
    // Friday 19:00 … 23:30 CDT, and 00:00 (ends 00:45) after midnight on Saturday's date: 10 on Friday.
    const fridayEvening = Array.from({ length: 10 }, (_, index) => new Date(Date.parse('2027-10-30T00:00:00Z') + index * 30 * 60_000).toISOString().replace('.000Z', 'Z'));
    expect(slots.data!['service'].availability.map((slot: { startTime: string }) => slot.startTime)).toEqual(fridayEvening);
  });

  it('refuses every bad field with 422 and a field error each', async () => {
    const services = await server.prisma.service.count();
    const bad = await graphql(admin, createMutation, {
      input: { ...hauntedHouse(), timezone: 'America/Gotham', slotMinutes: 2, openingHours: [{ weekday: 8, opens: '25:00', closes: '01:00' }] },
    });
    expect(bad.errors![0]!.extensions.code).toBe('validation_failed');
    expect(fieldErrors(bad)).toEqual(
      expect.arrayContaining([
        ['timezone', 'unknown_time_zone'],
        ['slotMinutes', 'out_of_range'],
        ['openingHours.0.weekday', 'out_of_range'],
        ['openingHours.0.opens', 'invalid'],
      ]),
    );
    const season = await graphql(admin, createMutation, { input: { ...hauntedHouse(), seasonEnd: '2027-09-14' } });
    expect(fieldErrors(season)).toEqual([['seasonEnd', 'before_season_start']]);
    const short = await graphql(admin, createMutation, { input: { ...hauntedHouse(), openingHours: [{ weekday: 5, opens: '23:30', closes: '00:00' }] } });
    expect(fieldErrors(short)).toEqual([['openingHours.0', 'shorter_than_duration']]);
    const empty = await graphql(admin, createMutation, { input: { ...hauntedHouse(), openingHours: [{ weekday: 5, opens: '19:00', closes: '19:00' }] } });
    expect(fieldErrors(empty)).toEqual([['openingHours.0.closes', 'invalid']]);
    // Openings overlapping at an offset would start slots a minute apart: more slots a day than availability is weighed for.
    const offset = [0, 1].map((minute) => ({ weekday: 5, opens: `19:0${minute}`, closes: '23:00' }));
    const crowded = await graphql(admin, createMutation, { input: { ...hauntedHouse(), slotMinutes: 5, durationMinutes: 5, openingHours: offset } });
    expect(fieldErrors(crowded)).toEqual([['openingHours', 'slots_too_close']]);
    // The same opening twice, or one past midnight meeting the next day's, starts no slot twice: allowed.
    const twice = [0, 1].map(() => ({ weekday: 5, opens: '19:00', closes: '23:00' }));
    const nightAndMorning = [
      { weekday: 5, opens: '22:00', closes: '02:00' },
      { weekday: 6, opens: '02:00', closes: '05:00' },
    ];
    for (const openingHours of [twice, nightAndMorning]) {
      const answer = await graphql(admin, createMutation, { input: { ...hauntedHouse(), slotMinutes: 5, durationMinutes: 5, openingHours } });
      expect(answer.errors).toBeUndefined();
      await server.prisma.service.delete({ where: { id: answer.data!['createService'].id } });
    }
    const nowhere = await graphql(admin, createMutation, { input: { ...hauntedHouse(), attractionId: 'at_nothing' } });
    expect(fieldErrors(nowhere)).toEqual([['attractionId', 'unknown']]);
    expect(await server.prisma.service.count()).toBe(services);
  });

  it('is for operators only', async () => {
    const refused = await graphql(call, createMutation, { input: hauntedHouse() });
    expect(refused.errors![0]!.extensions.code).toBe('insufficient_scope');
  });
});

describe('updateService', () => {
  it('changes what it is sent and checks the result: a longer visit than an opening is blamed on the duration', async () => {
    const service = await created();
    const renamed = await graphql(admin, updateMutation, { id: service.id, input: { name: 'Timed entry – Renamed', capacity: 6 } });
    expect(renamed.data!['updateService']).toMatchObject({ ...hauntedHouse(), name: 'Timed entry – Renamed', capacity: 6 });
    const tooLong = await graphql(admin, updateMutation, { id: service.id, input: { durationMinutes: 400 } });
    expect(fieldErrors(tooLong)).toEqual([['durationMinutes', 'longer_than_opening']]);
    const backwards = await graphql(admin, updateMutation, { id: service.id, input: { seasonStart: '2027-12-01' } });
    expect(fieldErrors(backwards)).toEqual([['seasonStart', 'after_season_end']]);
    expect((await graphql(admin, updateMutation, { id: service.id, input: {} })).errors![0]!.extensions.code).toBe('validation_failed');
    expect((await graphql(admin, updateMutation, { id: 'svc_nothing', input: { capacity: 3 } })).errors![0]!.extensions.code).toBe('not_found');
  });

  it('never cancels or moves a confirmed booking: the slots offered change, the bookings stay', async () => {
    const service = await created();
    const friday19 = '2027-10-30T00:00:00Z';
    const booking = await call('POST', '/v1/bookings', { service_id: service.id, start_time: friday19, party_size: 3, customer });
    expect(booking.status).toBe(201);

    // Saturdays only, 90-minute visits, two places: Friday 19:00 is no slot any more.
    const changed = await graphql(admin, updateMutation, {
      id: service.id,
      input: { durationMinutes: 90, capacity: 2, openingHours: [{ weekday: 6, opens: '18:00', closes: '23:00' }] },
    });
    expect(changed.errors).toBeUndefined();
    const after = await call('GET', `/v1/bookings/${booking.body.id}`);
    expect(after.body).toEqual(booking.body);
    expect(await server.prisma.bookingSlot.findMany({ where: { serviceId: service.id } })).toEqual([
      { serviceId: service.id, startTime: new Date(friday19), placesTaken: 3, holds: [] },
    ]);
    const friday = await graphql(call, availabilityQuery, { id: service.id, from: '2027-10-29', to: '2027-10-29' });
    expect(friday.data!['service'].availability).toEqual([]);
    const refused = await call('POST', '/v1/bookings', { service_id: service.id, start_time: friday19, customer });
    expect(refused.body.errors).toEqual([expect.objectContaining({ field: 'start_time', code: 'not_a_slot' })]);
    // The booking may still change party within its slot, down to fit the new capacity.
    expect((await call('PATCH', `/v1/bookings/${booking.body.id}`, { party_size: 2 })).body).toMatchObject({ start_time: friday19, party_size: 2 });
  });

  it('shows in answers kept before it: the service, its availability and the bookings that embed it', async () => {
    const service = await created();
    const booked = await call('POST', '/v1/bookings', { service_id: service.id, start_time: '2027-10-30T00:30:00Z', customer });
    const serviceName = async () => (await graphql(call, 'query ($id: ID!) { service(id: $id) { name capacity } }', { id: service.id })).data!['service'];
    const bookingService = async () => (await graphql(call, 'query ($id: ID!) { booking(id: $id) { service { name } } }', { id: booked.body.id })).data!['booking'].service.name;
    for (let asked = 0; asked < 3; asked++) {
      expect(await serviceName()).toEqual({ name: hauntedHouse().name, capacity: 4 });
      expect(await bookingService()).toBe(hauntedHouse().name);
    }
    await graphql(admin, updateMutation, { id: service.id, input: { name: 'Lights-out entry', capacity: 5 } });
    expect(await serviceName()).toEqual({ name: 'Lights-out entry', capacity: 5 });
    expect(await bookingService()).toBe('Lights-out entry');
  });
});
