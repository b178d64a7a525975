import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, cursorParamOf, type ApiCall } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { customer } from './fixtures.js';

// The clock stands on Friday 2027-10-29, 12:00 in Chicago (17:00Z).
const now = new Date('2027-10-29T17:00:00Z');
let server: TestServer;
let admin: ApiCall;
let call: ApiCall;
let attractionId: string;

/** A Chicago haunted house as an operator sends it: Fridays and Saturdays 22:00–01:00, 30-minute visits. */
const hauntedHouse = () => ({
  attraction_id: attractionId,
  name: 'Timed entry – Spooky Hollow Asylum',
  duration_minutes: 30,
  capacity: 4,
  timezone: 'America/Chicago',
  slot_minutes: 30,
  season_start: '2027-09-15',
  season_end: '2027-11-01',
  opening_hours: [
    { weekday: 5, opens: '22:00', closes: '01:00' },
    { weekday: 6, opens: '22:00', closes: '01:00' },
  ],
});

// Friday 22:00 … Saturday 00:30 CDT.
const friday = ['03:00', '03:30', '04:00', '04:30', '05:00', '05:30'].map((time) => `2027-10-30T${time}:00Z`);

beforeAll(async () => {
  server = await startTestServer({ seed: true, clock: () => now });
  admin = apiClient(server.url, (await server.createKey({ scopes: ['admin'] })).key);
  call = apiClient(server.url, (await server.createKey({ scopes: ['bookings:read', 'bookings:write'] })).key);
  attractionId = (await server.prisma.attraction.findFirstOrThrow({ orderBy: { id: 'asc' } })).id;
});
afterAll(() => server?.close());

describe('POST /v1/admin/services', () => {
  it('creates a service: 201, the service in snake_case, Location its GET /v1/services/{id}', async () => {
    const created = await admin('POST', '/v1/admin/services', hauntedHouse());
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ ...hauntedHouse(), id: expect.stringMatching(/^svc_/) });
    expect(created.headers.get('location')).toBe(`${server.url}/v1/services/${created.body.id}`);
    const read = await call('GET', new URL(created.headers.get('location')!).pathname);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
  });

  it('answers 422 with a field error in the REST names for every bad field, and writes nothing', async () => {
    const before = await server.prisma.service.count();
    const refused = await admin('POST', '/v1/admin/services', {
      ...hauntedHouse(),
      timezone: 'America/Gotham',
      slot_minutes: 2,
      opening_hours: [{ weekday: 8, opens: '25:00', closes: '01:00' }],
    });
    expect(refused.status).toBe(422);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refused.body.code).toBe('validation_failed');
    expect(refused.body.errors.map((error: { field: string; code: string }) => [error.field, error.code])).toEqual(
      expect.arrayContaining([
        ['timezone', 'unknown_time_zone'],
        ['slot_minutes', 'out_of_range'],
        ['opening_hours.0.weekday', 'out_of_range'],
        ['opening_hours.0.opens', 'invalid'],
      ]),
    );
    const season = await admin('POST', '/v1/admin/services', { ...hauntedHouse(), season_end: '2027-09-14' });
    expect(season.body.errors).toEqual([expect.objectContaining({ field: 'season_end', code: 'before_season_start' })]);
    const missing = await admin('POST', '/v1/admin/services', { name: 'Nothing else' });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'capacity', code: 'required' })]));
    expect(await server.prisma.service.count()).toBe(before);
  });

  it('is for operators: a booking key gets 403 insufficient_scope before its body is read', async () => {
    const refused = await call('POST', '/v1/admin/services', '{not json');
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('insufficient_scope');
  });
});

describe('GET /v1/services', () => {
  it("pages an attraction's services, and refuses a cursor of another attraction's with 400 on cursor", async () => {
    const [here, there] = await server.prisma.service.findMany({ take: 2, distinct: ['attractionId'], select: { id: true, attractionId: true } });
    const first = await call('GET', `/v1/services?attraction_id=${here!.attractionId}&limit=1`);
    expect(first.status).toBe(200);
    const refused = await call('GET', `/v1/services?attraction_id=${here!.attractionId}&cursor=${cursorParamOf(there!.id)}`);
    expect([refused.status, refused.body.errors?.[0]?.field]).toEqual([400, 'cursor']);
    expect((await call('GET', `/v1/services?cursor=${cursorParamOf(there!.id)}`)).status).toBe(200);
  });
});

describe('PATCH /v1/admin/services/{id}', () => {
  it('changes the fields sent, and keeps confirmed bookings where they are', async () => {
    const service = (await admin('POST', '/v1/admin/services', hauntedHouse())).body;
    const booking = await call('POST', '/v1/bookings', { service_id: service.id, start_time: friday[0], party_size: 2, customer });
    expect(booking.status).toBe(201);
    const changed = await admin('PATCH', `/v1/admin/services/${service.id}`, { capacity: 6, opening_hours: [{ weekday: 6, opens: '20:00', closes: '23:00' }] });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ ...service, capacity: 6, opening_hours: [{ weekday: 6, opens: '20:00', closes: '23:00' }] });
    expect((await call('GET', `/v1/bookings/${booking.body.id}`)).body).toEqual(booking.body);
  });

  it('answers 404 for an unknown service and 422 for a bad field', async () => {
    const service = (await admin('POST', '/v1/admin/services', hauntedHouse())).body;
    expect((await admin('PATCH', '/v1/admin/services/svc_nothing', { capacity: 3 })).status).toBe(404);
    const refused = await admin('PATCH', `/v1/admin/services/${service.id}`, { duration_minutes: 400 });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([expect.objectContaining({ field: 'duration_minutes', code: 'longer_than_opening' })]);
  });
});

describe('GET /v1/services/{id}/availability', () => {
  it('lists the free slots of the local days asked for, in the documented shape', async () => {
    const service = (await admin('POST', '/v1/admin/services', hauntedHouse())).body;
    expect((await call('POST', '/v1/bookings', { service_id: service.id, start_time: friday[1], party_size: 3, customer })).status).toBe(201);
    const answer = await call('GET', `/v1/services/${service.id}/availability?start_date=2027-10-29&end_date=2027-10-29`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      service_id: service.id,
      timezone: 'America/Chicago',
      // The slots after midnight start on Saturday's local date, so Friday alone has four.
      data: friday.slice(0, 4).map((start, index) => ({
        start_time: start,
        end_time: new Date(Date.parse(start) + 30 * 60_000).toISOString().replace('.000Z', 'Z'),
        capacity: 4,
        remaining: index === 1 ? 1 : 4,
      })),
    });
  });

  it('answers 304 to a repeat with its ETag, and a new answer once a booking takes a place', async () => {
    const service = (await admin('POST', '/v1/admin/services', hauntedHouse())).body;
    const path = `/v1/services/${service.id}/availability?start_date=2027-10-29&end_date=2027-10-30`;
    const first = await call('GET', path);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"/);
    expect((await call('GET', path, undefined, { 'if-none-match': etag })).status).toBe(304);
    await call('POST', '/v1/bookings', { service_id: service.id, start_time: friday[0], customer });
    const after = await call('GET', path, undefined, { 'if-none-match': etag });
    expect(after.status).toBe(200);
    expect(after.body.data[0]).toMatchObject({ start_time: friday[0], remaining: 3 });
  });

  it('refuses a missing, malformed, backwards or too wide range with 400 naming the parameter', async () => {
    const service = (await admin('POST', '/v1/admin/services', hauntedHouse())).body;
    const ask = (query: string) => call('GET', `/v1/services/${service.id}/availability?${query}`);
    const missing = await ask('start_date=2027-10-29');
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual([expect.objectContaining({ field: 'end_date' })]);
    const malformed = await ask('start_date=2027-10-29&end_date=2027-13-01');
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors).toEqual([expect.objectContaining({ field: 'end_date' })]);
    const backwards = await ask('start_date=2027-10-31&end_date=2027-10-30');
    expect(backwards.status).toBe(400);
    expect(backwards.body.errors).toEqual([expect.objectContaining({ field: 'start_date', code: 'after_end_date' })]);
    const wide = await ask('start_date=2027-10-01&end_date=2027-11-01');
    expect(wide.status).toBe(400);
    expect(wide.body.errors).toEqual([expect.objectContaining({ field: 'end_date', code: 'out_of_range' })]);
  });

  it('answers 404 for an unknown service, and needs bookings:read', async () => {
    expect((await call('GET', '/v1/services/svc_nothing/availability?start_date=2027-10-29&end_date=2027-10-29')).status).toBe(404);
    const service = (await admin('POST', '/v1/admin/services', hauntedHouse())).body;
    const directoryOnly = apiClient(server.url, (await server.createKey({ scopes: ['directory:read'] })).key);
    const refused = await directoryOnly('GET', `/v1/services/${service.id}/availability?start_date=2027-10-29&end_date=2027-10-29`);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('insufficient_scope');
  });
});

describe('finding a free slot and booking it, as the README shows', () => {
  it('takes the first slot with room for the party from availability, and books it', async () => {
    const service = (await admin('POST', '/v1/admin/services', { ...hauntedHouse(), capacity: 3 })).body;
    await call('POST', '/v1/bookings', { service_id: service.id, start_time: friday[0], party_size: 2, customer });
    const { body } = await call('GET', `/v1/services/${service.id}/availability?start_date=2027-10-29&end_date=2027-10-29`);
    const slot = body.data.find((candidate: { remaining: number }) => candidate.remaining >= 2);
    expect(slot.start_time).toBe(friday[1]);
    const booked = await call('POST', '/v1/bookings', { service_id: service.id, start_time: slot.start_time, party_size: 2, customer });
    expect(booked.status).toBe(201);
    expect(booked.body).toMatchObject({ start_time: friday[1], end_time: slot.end_time, party_size: 2, status: 'confirmed' });
    const full = await call('POST', '/v1/bookings', { service_id: service.id, start_time: friday[1], party_size: 2, customer });
    expect(full.status).toBe(409);
    expect(full.body.code).toBe('slot_full');
  });
});
