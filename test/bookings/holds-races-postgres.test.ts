import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWidgetToken } from '../../src/access/admin.js';
import { maxHeldHoldsPerAccount, maxHeldHoldsPerWidgetToken } from '../../src/bookings/holds/holds.js';
import { maxOpenWaitlistEntriesPerAccount } from '../../src/bookings/holds/waitlist.js';
import { newId } from '../../src/shared/ids.js';
import { apiClient, futureSlot, type ApiCall } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { requireService } from '../support/services.js';
import { createService, customer } from './fixtures.js';

/**
 * Holds and waitlists under concurrent requests on PostgreSQL (PGlite runs one transaction at a
 * time, so it cannot race): conversions against releases and withdrawals, one hold booked twice at
 * once, offers against withdrawals, and holds beside bookings at capacity. No request may get a 5xx
 * (a deadlock is run again, not answered 503), and every pair of racing requests must leave one
 * consistent outcome.
 */

const postgresUrl = await requireService('postgres');

describe.skipIf(!postgresUrl)('holds and waitlists under concurrency on PostgreSQL', () => {
  let server: TestServer;
  let call: ApiCall;
  let accountId: string;

  beforeAll(async () => {
    server = await startTestServer({ seed: true, config: { DATABASE_POOL_SIZE: 20 }, postgresUrl: postgresUrl! });
    const key = await server.createKey({ scopes: ['bookings:read', 'bookings:write'] });
    accountId = key.accountId;
    call = apiClient(server.url, key.key);
  });
  afterAll(() => server?.close());

  /** Confirmed places and places of unexpired holds in a slot, as its row holds them. */
  async function slotRow(serviceId: string, slot: string): Promise<{ confirmed: number; held: number }> {
    const row = await server.prisma.bookingSlot.findFirst({ where: { serviceId, startTime: new Date(slot) } });
    const holds = (row?.holds ?? []) as { places: number; until: number }[];
    return { confirmed: row?.placesTaken ?? 0, held: holds.filter((hold) => hold.until > Date.now()).reduce((sum, hold) => sum + hold.places, 0) };
  }

  const statusesOf = (responses: { status: number }[]) => responses.map((response) => response.status);

  it('books one hold sent ten times at once exactly once: one 201, nine 409 hold_expired', async () => {
    expect(server.database.config.kind).toBe('postgres');
    const serviceId = await createService(server, 5);
    const slot = futureSlot(80);
    const held = await call('POST', '/v1/holds', { service_id: serviceId, start_time: slot, party_size: 3 });
    expect(held.status).toBe(201);
    const responses = await Promise.all(Array.from({ length: 10 }, () => call('POST', '/v1/bookings', { hold_id: held.body.id, customer })));
    expect(statusesOf(responses).sort()).toEqual([201, ...Array(9).fill(409)]);
    expect(new Set(responses.filter((response) => response.status === 409).map((response) => response.body.code))).toEqual(new Set(['hold_expired']));
    expect(await server.prisma.booking.count({ where: { serviceId } })).toBe(1);
    expect(await slotRow(serviceId, slot)).toEqual({ confirmed: 3, held: 0 });
  });

  it('makes one booking from a hold sent eight times at once with one Idempotency-Key', async () => {
    const serviceId = await createService(server, 5);
    const slot = futureSlot(81);
    const held = await call('POST', '/v1/holds', { service_id: serviceId, start_time: slot, party_size: 2 });
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => call('POST', '/v1/bookings', { hold_id: held.body.id, customer }, { 'idempotency-key': `storm-${held.body.id}` })),
    );
    for (const response of responses) expect([201, 409]).toContain(response.status);
    const ids = new Set(responses.filter((response) => response.status === 201).map((response) => response.body.id));
    expect(ids.size).toBe(1);
    for (const response of responses.filter((each) => each.status === 409)) expect(response.body.code).toBe('idempotency_key_in_use');
    expect(await server.prisma.booking.count({ where: { serviceId } })).toBe(1);
    expect(await slotRow(serviceId, slot)).toEqual({ confirmed: 2, held: 0 });
  });

  it('settles each hold booked and released at once one way: booked and converted, or released and refused', async () => {
    const serviceId = await createService(server, 20);
    const slot = futureSlot(82);
    const holds = await Promise.all(Array.from({ length: 10 }, () => call('POST', '/v1/holds', { service_id: serviceId, start_time: slot, party_size: 2 })));
    expect(statusesOf(holds)).toEqual(Array(10).fill(201));
    const pairs = await Promise.all(
      holds.map((hold) => Promise.all([call('POST', '/v1/bookings', { hold_id: hold.body.id, customer }), call('DELETE', `/v1/holds/${hold.body.id}`)])),
    );
    let booked = 0;
    for (const [[booking, release], hold] of pairs.map((pair, index) => [pair, holds[index]!] as const)) {
      expect([booking.status, release.status]).toEqual([booking.status === 201 ? 201 : 409, 200]);
      const now = (await call('GET', `/v1/holds/${hold.body.id}`)).body;
      if (booking.status === 201) {
        booked++;
        expect(release.body.status).toBe('converted');
        expect(now).toMatchObject({ status: 'converted', booking_id: booking.body.id });
      } else {
        expect(booking.body.code).toBe('hold_expired');
        expect(release.body.status).toBe('released');
        expect(now).toMatchObject({ status: 'released', booking_id: null });
      }
    }
    expect(await slotRow(serviceId, slot)).toEqual({ confirmed: 2 * booked, held: 0 });
  });

  /** A full slot of `capacity` whose line of `entries` parties of one was just offered every place (the booking filling it cancelled). */
  async function offeredLine(capacity: number, entries: number, days: number) {
    const serviceId = await createService(server, capacity);
    const slot = futureSlot(days);
    const filling = await call('POST', '/v1/bookings', { service_id: serviceId, start_time: slot, party_size: capacity, customer });
    expect(filling.status).toBe(201);
    const line: { id: string }[] = [];
    for (let index = 0; index < entries; index++) {
      const entry = await call('POST', '/v1/waitlist_entries', {
        service_id: serviceId,
        start_time: slot,
        customer: { name: `Guest ${index}`, email: `guest${index}@example.com` },
      });
      expect(entry.body.status).toBe('waiting');
      line.push(entry.body);
    }
    return { serviceId, slot, filling: filling.body.id as string, line };
  }

  it("settles each offer booked and withdrawn at once one way, with no 5xx (the hold's and the entry's locks are taken in opposite orders)", async () => {
    const { serviceId, slot, filling, line } = await offeredLine(10, 10, 83);
    expect((await call('DELETE', `/v1/bookings/${filling}`)).status).toBe(200);
    const offers = await Promise.all(line.map(async (entry) => (await call('GET', `/v1/waitlist_entries/${entry.id}`)).body));
    expect(offers.map((offer) => offer.status)).toEqual(Array(10).fill('offered'));

    const pairs = await Promise.all(
      offers.map((offer) => Promise.all([call('POST', '/v1/bookings', { hold_id: offer.offer.hold_id }), call('DELETE', `/v1/waitlist_entries/${offer.id}`)])),
    );
    expect(pairs.map(([booking, withdrawal]) => [booking.status, withdrawal.status]).filter(([booking, withdrawal]) => booking! >= 500 || withdrawal! >= 500)).toEqual([]);
    let booked = 0;
    for (const [index, [booking, withdrawal]] of pairs.entries()) {
      const entry = (await call('GET', `/v1/waitlist_entries/${offers[index].id}`)).body;
      const hold = (await call('GET', `/v1/holds/${offers[index].offer.hold_id}`)).body;
      if (booking.status === 201) {
        booked++;
        expect([withdrawal.status, withdrawal.body.status, entry.status, hold.status]).toEqual([200, 'booked', 'booked', 'converted']);
      } else {
        expect([booking.status, booking.body.code, withdrawal.status, entry.status, hold.status]).toEqual([409, 'hold_expired', 200, 'withdrawn', 'released']);
      }
    }
    expect(await slotRow(serviceId, slot)).toEqual({ confirmed: booked, held: 0 });
    expect(await server.prisma.booking.count({ where: { serviceId, status: 'confirmed' } })).toBe(booked);
  });

  it('settles each offer released and withdrawn at once, with no 5xx: the entry withdrawn, its hold released, its place free', async () => {
    const { serviceId, slot, filling, line } = await offeredLine(10, 10, 84);
    expect((await call('DELETE', `/v1/bookings/${filling}`)).status).toBe(200);
    const offers = await Promise.all(line.map(async (entry) => (await call('GET', `/v1/waitlist_entries/${entry.id}`)).body));
    const pairs = await Promise.all(offers.map((offer) => Promise.all([call('DELETE', `/v1/holds/${offer.offer.hold_id}`), call('DELETE', `/v1/waitlist_entries/${offer.id}`)])));
    expect(pairs.map(([release, withdrawal]) => [release.status, withdrawal.status])).toEqual(Array(10).fill([200, 200]));
    for (const offer of offers) {
      expect((await call('GET', `/v1/waitlist_entries/${offer.id}`)).body.status).toBe('withdrawn');
      expect((await call('GET', `/v1/holds/${offer.offer.hold_id}`)).body.status).toBe('released');
    }
    expect(await slotRow(serviceId, slot)).toEqual({ confirmed: 0, held: 0 });
  });

  it('never offers a place to an entry withdrawn while the places are being offered, and offers each freed place once', async () => {
    const { serviceId, slot, filling, line } = await offeredLine(5, 10, 85);
    const withdrawn = line.slice(0, 5);
    const responses = await Promise.all([call('DELETE', `/v1/bookings/${filling}`), ...withdrawn.map((entry) => call('DELETE', `/v1/waitlist_entries/${entry.id}`))]);
    expect(statusesOf(responses)).toEqual(Array(6).fill(200));
    const entries = await Promise.all(line.map(async (entry) => (await call('GET', `/v1/waitlist_entries/${entry.id}`)).body));
    // Every withdrawn entry ends withdrawn, and any offer it had was given back.
    for (const entry of entries.slice(0, 5)) {
      expect(entry.status).toBe('withdrawn');
      if (entry.offer) expect((await call('GET', `/v1/holds/${entry.offer.hold_id}`)).body.status).toBe('released');
    }
    // The five places went to the five entries still in line, once each.
    expect(entries.slice(5).map((entry) => entry.status)).toEqual(Array(5).fill('offered'));
    expect(await slotRow(serviceId, slot)).toEqual({ confirmed: 0, held: 5 });
    const offerEvents = await server.prisma.bookingEvent.findMany({ where: { accountId, type: 'waitlist.offered', waitlistEntry: { serviceId } } });
    const offeredIds = offerEvents.map((event) => event.waitlistEntryId);
    expect(new Set(offeredIds).size).toBe(offeredIds.length);
  });

  it('offers the one free place of a slot to the entry first in line (as GET /v1/waitlist_entries lists it) when twenty join in the same millisecond', async () => {
    // A server whose clock stands still: every entry joins at the same instant, so the line's order
    // is the ids' (created_at, then id), whatever order the requests' transactions take the slot in.
    const instant = new Date();
    const still = await startTestServer({ seed: true, clock: () => instant, config: { DATABASE_POOL_SIZE: 20 }, postgresUrl: postgresUrl! });
    try {
      const as = apiClient(still.url, (await still.createKey({ scopes: ['bookings:read', 'bookings:write'] })).key);
      const serviceId = await createService(still, 1);
      const slots = [0, 1, 2, 3, 4].map((hour) => futureSlot(87, 10 + hour));
      const joins = await Promise.all(
        slots.flatMap((slot) =>
          Array.from({ length: 20 }, (_, index) =>
            as('POST', '/v1/waitlist_entries', { service_id: serviceId, start_time: slot, customer: { name: `Guest ${index}`, email: `guest${index}@example.com` } }),
          ),
        ),
      );
      expect(new Set(statusesOf(joins))).toEqual(new Set([201]));
      const lines = (await as('GET', `/v1/waitlist_entries?service_id=${serviceId}&limit=100`)).body.data as { start_time: string; status: string }[];
      expect(lines).toHaveLength(100);
      for (const slot of slots) {
        const line = lines.filter((entry) => entry.start_time === slot);
        expect({ slot, statuses: line.map((entry) => entry.status) }).toEqual({ slot, statuses: ['offered', ...Array(19).fill('waiting')] });
      }
    } finally {
      await still.close();
    }
  });

  it('never lets holds and bookings made at once take more than the capacity', async () => {
    const serviceId = await createService(server, 10);
    const slot = futureSlot(86);
    const responses = await Promise.all(
      Array.from({ length: 60 }, (_, index) =>
        index % 2 === 0
          ? call('POST', '/v1/holds', { service_id: serviceId, start_time: slot })
          : call('POST', '/v1/bookings', { service_id: serviceId, start_time: slot, customer: { name: `Guest ${index}`, email: `guest${index}@example.com` } }),
      ),
    );
    expect(new Set(statusesOf(responses))).toEqual(new Set([201, 409]));
    const taken = responses.filter((response) => response.status === 201);
    expect(taken).toHaveLength(10);
    const holds = taken.filter((response) => String(response.body.id).startsWith('hold_')).length;
    expect(await slotRow(serviceId, slot)).toEqual({ confirmed: 10 - holds, held: holds });

    // Converting every hold at once needs no free place and takes none more.
    const conversions = await Promise.all(
      taken.filter((response) => String(response.body.id).startsWith('hold_')).map((hold) => call('POST', '/v1/bookings', { hold_id: hold.body.id, customer })),
    );
    expect(statusesOf(conversions)).toEqual(Array(holds).fill(201));
    expect(await slotRow(serviceId, slot)).toEqual({ confirmed: 10, held: 0 });
  });

  describe('caps, when creates are sent at once', () => {
    let serviceId: string;
    let slot: string;
    beforeAll(async () => {
      serviceId = await createService(server, 1000);
      slot = futureSlot(90);
    });

    /**
     * Twenty creates sent at once, each for a slot of its own (one slot's lock would queue them
     * anyway): how many were placed, and the codes of those refused.
     */
    async function twentyAtOnce(create: (slot: string) => Promise<{ status: number; body: { code?: string } }>) {
      const responses = await Promise.all(Array.from({ length: 20 }, (_, hour) => create(futureSlot(91, hour))));
      for (const response of responses) expect([201, 422]).toContain(response.status);
      return {
        placed: responses.filter((response) => response.status === 201).length,
        refused: new Set(responses.filter((response) => response.status === 422).map((response) => response.body.code)),
      };
    }

    /** `count` unexpired holds of the account made by `createdBy`, written straight in (the caps count rows, not places). */
    async function holdingAlready(accountId: string, count: number, createdBy: string) {
      await server.prisma.hold.createMany({
        data: Array.from({ length: count }, () => ({
          id: newId('hold'),
          accountId,
          createdBy,
          serviceId,
          startTime: new Date(slot),
          endTime: new Date(Date.parse(slot) + 300_000),
          partySize: 1,
          expiresAt: new Date(Date.parse(slot) - 60_000),
        })),
      });
    }

    it(`places no more than ${maxHeldHoldsPerAccount} held holds in an account: five short of it, twenty at once place five`, async () => {
      const { key, keyId, accountId } = await server.createKey({ scopes: ['bookings:read', 'bookings:write'] });
      await holdingAlready(accountId, maxHeldHoldsPerAccount - 5, keyId);
      const ownCall = apiClient(server.url, key);
      const outcome = await twentyAtOnce((start) => ownCall('POST', '/v1/holds', { service_id: serviceId, start_time: start, party_size: 1 }));
      expect(outcome).toEqual({ placed: 5, refused: new Set(['too_many_holds']) });
    });

    it(`places no more than ${maxHeldHoldsPerWidgetToken} held holds for a booking widget token: five short of it, twenty at once place five`, async () => {
      const origin = 'https://shop.example';
      const { accountId } = await server.createKey({ scopes: ['bookings:read'] });
      const token = (await createWidgetToken(server.prisma, { accountId, allowedOrigins: [origin], allowBooking: true, rateLimitPerMinute: 1000 })).id;
      await holdingAlready(accountId, maxHeldHoldsPerWidgetToken - 5, token);
      const tokenCall = apiClient(server.url, token);
      const outcome = await twentyAtOnce((start) => tokenCall('POST', '/v1/holds', { service_id: serviceId, start_time: start, party_size: 1 }, { origin }));
      expect(outcome).toEqual({ placed: 5, refused: new Set(['too_many_holds']) });
    });

    it(`opens no more than ${maxOpenWaitlistEntriesPerAccount} waitlist entries in an account: five short of it, twenty at once open five`, async () => {
      const { key, accountId } = await server.createKey({ scopes: ['bookings:read', 'bookings:write'] });
      await server.prisma.waitlistEntry.createMany({
        data: Array.from({ length: maxOpenWaitlistEntriesPerAccount - 5 }, () => ({
          id: newId('waitlistEntry'),
          accountId,
          serviceId,
          startTime: new Date(slot),
          partySize: 1,
          customerName: customer.name,
          customerEmail: customer.email,
          offerSeconds: 600,
        })),
      });
      const ownCall = apiClient(server.url, key);
      const outcome = await twentyAtOnce((start) => ownCall('POST', '/v1/waitlist_entries', { service_id: serviceId, start_time: start, party_size: 1, customer }));
      expect(outcome).toEqual({ placed: 5, refused: new Set(['too_many_waitlist_entries']) });
    });
  });
});
