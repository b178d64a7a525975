import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, futureSlot, type ApiCall } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { requireService } from '../support/services.js';
import { confirmedCounts, createService, customer } from './fixtures.js';

const postgresUrl = await requireService('postgres');

describe.skipIf(!postgresUrl)('capacity under concurrency on PostgreSQL', () => {
  let server: TestServer;
  let call: ApiCall;
  /** Another account, so the log-order test below reads only its own account's events. */
  let families: ApiCall;

  beforeAll(async () => {
    server = await startTestServer({ seed: true, config: { DATABASE_POOL_SIZE: 20 }, postgresUrl: postgresUrl! });
    call = apiClient(server.url, (await server.createKey({ scopes: ['bookings:write', 'bookings:read'] })).key);
    families = apiClient(server.url, (await server.createKey({ scopes: ['bookings:write', 'bookings:read'] })).key);
  });
  afterAll(() => server?.close());

  it('lets exactly 10 of 120 concurrent creates into a slot of capacity 10', async () => {
    expect(server.database.config.kind).toBe('postgres');
    const serviceId = await createService(server, 10);
    const startTime = futureSlot(40);
    const responses = await Promise.all(
      Array.from({ length: 120 }, (_, index) =>
        call('POST', '/v1/bookings', { service_id: serviceId, start_time: startTime, customer: { name: `Guest ${index}`, email: `guest${index}@example.com` } }),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(10);
    expect(statuses.filter((status) => status === 409)).toHaveLength(110);
    expect(await server.prisma.booking.count({ where: { serviceId, status: 'confirmed' } })).toBe(10);
    expect(await server.prisma.bookingEvent.count({ where: { booking: { serviceId } } })).toBe(10);
  });

  it('never takes more than the capacity of 10 places with 100 concurrent creates of parties of 1 to 4', async () => {
    const serviceId = await createService(server, 10);
    const startTime = futureSlot(44);
    const parties = Array.from({ length: 100 }, (_, index) => (index % 4) + 1);
    const responses = await Promise.all(
      parties.map((party_size, index) =>
        families('POST', '/v1/bookings', { service_id: serviceId, start_time: startTime, party_size, customer: { name: `Family ${index}`, email: `family${index}@example.com` } }),
      ),
    );
    expect(new Set(responses.map((response) => response.status))).toEqual(new Set([201, 409]));
    const booked = responses.filter((response) => response.status === 201).reduce((places, response) => places + (response.body.party_size as number), 0);
    // 25 parties of one cannot all fit in 10 places, and one is refused only when no place is left: the slot is full, not over.
    expect(booked).toBe(10);
    expect(await confirmedCounts(server, serviceId)).toEqual({ [startTime]: booked });
    const confirmed = await server.prisma.booking.aggregate({ where: { serviceId, status: 'confirmed' }, _sum: { partySize: true } });
    expect(confirmed._sum.partySize).toBe(booked);
  });

  it('refuses concurrent reschedules into a slot beyond its places left with 409, moving exactly as many as fit', async () => {
    const serviceId = await createService(server, 10);
    const [from, to] = [futureSlot(45), futureSlot(46)];
    for (let index = 0; index < 4; index++) expect((await families('POST', '/v1/bookings', { service_id: serviceId, start_time: to, party_size: 2, customer })).status).toBe(201);
    const movers = await Promise.all(Array.from({ length: 10 }, () => families('POST', '/v1/bookings', { service_id: serviceId, start_time: from, customer })));
    expect(movers.map((response) => response.status)).toEqual(Array(10).fill(201));
    const moves = await Promise.all(movers.map((booking) => families('PATCH', `/v1/bookings/${booking.body.id}`, { start_time: to })));
    const statuses = moves.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(2);
    expect(statuses.filter((status) => status === 409)).toHaveLength(8);
    expect(await confirmedCounts(server, serviceId)).toEqual({ [from]: 8, [to]: 10 });
  });

  it('moves bookings between two slots in both directions at once without deadlock or lost places', async () => {
    const serviceId = await createService(server, 40);
    const [slotA, slotB] = [futureSlot(41), futureSlot(42)];
    const bookIn = async (startTime: string) => (await call('POST', '/v1/bookings', { service_id: serviceId, start_time: startTime, customer })).body.id as string;
    const inA = await Promise.all(Array.from({ length: 20 }, () => bookIn(slotA)));
    const inB = await Promise.all(Array.from({ length: 20 }, () => bookIn(slotB)));
    const moves = await Promise.all([
      ...inA.map((id) => call('PATCH', `/v1/bookings/${id}`, { start_time: slotB })),
      ...inB.map((id) => call('PATCH', `/v1/bookings/${id}`, { start_time: slotA })),
    ]);
    expect(moves.map((response) => response.status)).toEqual(Array(40).fill(200));
    expect(await confirmedCounts(server, serviceId)).toEqual({ [slotA]: 20, [slotB]: 20 });
  });

  it("commits each account's events in log order, so a reader following `after` during writes misses none", async () => {
    const serviceId = await createService(server, 1_000);
    const startTime = futureSlot(43);
    const first = await call('POST', '/v1/bookings', { service_id: serviceId, start_time: startTime, customer });
    let after = (await call('GET', '/v1/booking_events?limit=100')).body.data.at(-1).id as string;
    expect(first.status).toBe(201);

    const seen = new Set<string>();
    const follow = async () => {
      for (;;) {
        const page = await call('GET', `/v1/booking_events?limit=100&after=${after}`);
        for (const event of page.body.data) seen.add(event.data.id);
        if (page.body.data.length === 0) return;
        after = page.body.data.at(-1).id;
      }
    };
    let writing = true;
    const follower = (async () => {
      while (writing) await follow();
    })();
    const responses = await Promise.all(Array.from({ length: 80 }, () => call('POST', '/v1/bookings', { service_id: serviceId, start_time: startTime, customer })));
    writing = false;
    await follower;
    await follow();
    expect(responses.map((response) => response.status)).toEqual(Array(80).fill(201));
    expect(seen).toEqual(new Set(responses.map((response) => response.body.id)));
  });
});
