import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, cursorParamOf, futureSlot, type ApiCall } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createService, customer, graphql } from './fixtures.js';

/** The server's clock: real time plus what a test has moved it on by. */
let offsetMs = 0;
const clock = () => new Date(Date.now() + offsetMs);

let server: TestServer;
let call: ApiCall;
let other: ApiCall;

beforeAll(async () => {
  server = await startTestServer({ seed: true, clock, config: { WAITLIST_POLL_MS: 50 } });
  call = apiClient(server.url, (await server.createKey({ scopes: ['bookings:read', 'bookings:write'] })).key);
  other = apiClient(server.url, (await server.createKey({ scopes: ['bookings:read', 'bookings:write'] })).key);
});
afterAll(() => server?.close());

/** The places availability says are left in `slot` of `serviceId`. */
async function remaining(serviceId: string, slot: string): Promise<number | undefined> {
  const day = slot.slice(0, 10);
  const answer = await call('GET', `/v1/services/${serviceId}/availability?start_date=${day}&end_date=${day}`);
  expect(answer.status).toBe(200);
  return (answer.body.data as { start_time: string; remaining: number }[]).find((entry) => entry.start_time === slot)?.remaining;
}

describe('holds', () => {
  it('take places as a booking does, and a booking with hold_id takes them with no new check', async () => {
    const serviceId = await createService(server, 5);
    const slot = futureSlot(40);
    const held = await call('POST', '/v1/holds', { service_id: serviceId, start_time: slot, party_size: 3 });
    expect(held.status).toBe(201);
    expect(held.headers.get('location')).toBe(`${server.url}/v1/holds/${held.body.id}`);
    expect(held.body).toMatchObject({ service_id: serviceId, start_time: slot, party_size: 3, status: 'held', booking_id: null });
    expect(held.body.id).toMatch(/^hold_/);
    expect(Date.parse(held.body.expires_at) - Date.parse(held.body.created_at)).toBe(600_000);
    expect(await remaining(serviceId, slot)).toBe(2);

    // Three places are held: a party of three no longer fits beside them.
    const full = await call('POST', '/v1/bookings', { service_id: serviceId, start_time: slot, party_size: 3, customer });
    expect(full.status).toBe(409);
    expect(full.body.code).toBe('slot_full');

    const booked = await call('POST', '/v1/bookings', { hold_id: held.body.id, customer });
    expect(booked.status).toBe(201);
    expect(booked.body).toMatchObject({ service_id: serviceId, start_time: slot, party_size: 3, status: 'confirmed' });
    expect(await remaining(serviceId, slot)).toBe(2);
    expect((await call('GET', `/v1/holds/${held.body.id}`)).body).toMatchObject({ status: 'converted', booking_id: booked.body.id });

    const again = await call('POST', '/v1/bookings', { hold_id: held.body.id, customer });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('hold_expired');
  });

  it('count for nothing from expires_at on, with nothing run at that moment', async () => {
    const serviceId = await createService(server, 2);
    const slot = futureSlot(41);
    const held = await call('POST', '/v1/holds', { service_id: serviceId, start_time: slot, party_size: 2, expires_in_seconds: 60 });
    expect(held.status).toBe(201);
    expect(await remaining(serviceId, slot)).toBe(0);
    offsetMs += 60_000;
    try {
      expect(await remaining(serviceId, slot)).toBe(2);
      expect((await call('GET', `/v1/holds/${held.body.id}`)).body.status).toBe('expired');
      const late = await call('POST', '/v1/bookings', { hold_id: held.body.id, customer });
      expect(late.status).toBe(409);
      expect(late.body.code).toBe('hold_expired');
      const fresh = await call('POST', '/v1/bookings', { service_id: serviceId, start_time: slot, party_size: 2, customer });
      expect(fresh.status).toBe(201);
    } finally {
      offsetMs -= 60_000;
    }
  });

  it('are released by DELETE, again and again, and are not another account’s to see', async () => {
    const serviceId = await createService(server, 4);
    const slot = futureSlot(42);
    const held = await call('POST', '/v1/holds', { service_id: serviceId, start_time: slot, party_size: 4 });
    expect(await remaining(serviceId, slot)).toBe(0);
    expect((await other('GET', `/v1/holds/${held.body.id}`)).status).toBe(404);
    expect((await other('DELETE', `/v1/holds/${held.body.id}`)).status).toBe(404);
    expect((await other('POST', '/v1/bookings', { hold_id: held.body.id, customer })).status).toBe(404);
    const released = await call('DELETE', `/v1/holds/${held.body.id}`);
    expect(released.status).toBe(200);
    expect(released.body.status).toBe('released');
    expect(await remaining(serviceId, slot)).toBe(4);
    const again = await call('DELETE', `/v1/holds/${held.body.id}`);
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('released');
    expect((await call('POST', '/v1/bookings', { hold_id: held.body.id, customer })).body.code).toBe('hold_expired');
  });

  it('refuse bad input with 422 naming each field', async () => {
    const serviceId = await createService(server, 4);
    const tooShort = await call('POST', '/v1/holds', { service_id: serviceId, start_time: futureSlot(43), expires_in_seconds: 59 });
    expect(tooShort.status).toBe(422);
    expect(tooShort.body.errors).toEqual([expect.objectContaining({ field: 'expires_in_seconds', code: 'out_of_range' })]);
    const tooLong = await call('POST', '/v1/holds', { service_id: serviceId, start_time: futureSlot(43), expires_in_seconds: 1801, party_size: 0 });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.errors.map((error: { field: string }) => error.field).sort()).toEqual(['expires_in_seconds', 'party_size']);
    const both = await call('POST', '/v1/bookings', { hold_id: 'hold_abc', service_id: serviceId, start_time: futureSlot(43), customer });
    expect(both.status).toBe(422);
    expect(both.body.errors.map((error: { field: string; code: string }) => [error.field, error.code]).sort()).toEqual([
      ['service_id', 'not_with_hold'],
      ['start_time', 'not_with_hold'],
    ]);
    const neither = await call('POST', '/v1/bookings', { customer });
    expect(neither.status).toBe(422);
    expect(neither.body.errors.map((error: { field: string }) => error.field).sort()).toEqual(['service_id', 'start_time']);
    const noCustomer = await call('POST', '/v1/holds', { service_id: serviceId, start_time: futureSlot(43) });
    const withoutCustomer = await call('POST', '/v1/bookings', { hold_id: noCustomer.body.id });
    expect(withoutCustomer.status).toBe(422);
    expect(withoutCustomer.body.errors).toEqual([expect.objectContaining({ field: 'customer', code: 'required' })]);
    expect((await call('GET', '/v1/holds/hold_doesnotexist')).status).toBe(404);
  });
});

describe('what one account may keep', () => {
  it('is at most 1,000 holds held and 1,000 waitlist entries open', async () => {
    const { key, accountId } = await server.createKey({ scopes: ['bookings:read', 'bookings:write'] });
    const busy = apiClient(server.url, key);
    const serviceId = await createService(server, 1000);
    const slot = futureSlot(48);
    const now = clock();
    const base = { accountId, serviceId, startTime: new Date(slot), endTime: new Date(Date.parse(slot) + 300_000), partySize: 1, createdAt: now, updatedAt: now };
    await server.prisma.hold.createMany({
      data: Array.from({ length: 1000 }, (_, index) => ({ ...base, id: `hold_limit${index}`, expiresAt: new Date(now.getTime() + 600_000) })),
    });
    const refused = await busy('POST', '/v1/holds', { service_id: serviceId, start_time: slot });
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('too_many_holds');
    await server.prisma.hold.update({ where: { id: 'hold_limit0' }, data: { status: 'released' } });
    expect((await busy('POST', '/v1/holds', { service_id: serviceId, start_time: slot })).status).toBe(201);

    // In the line of a full slot, so the offers worker has nothing to offer them.
    const fullService = await createService(server, 1);
    expect((await busy('POST', '/v1/bookings', { service_id: fullService, start_time: slot, customer })).status).toBe(201);
    const entry = {
      accountId,
      serviceId: fullService,
      startTime: new Date(slot),
      partySize: 1,
      customerName: 'Line',
      customerEmail: 'line@example.com',
      offerSeconds: 600,
      createdAt: now,
      updatedAt: now,
    };
    await server.prisma.waitlistEntry.createMany({ data: Array.from({ length: 1000 }, (_, index) => ({ ...entry, id: `wle_limit${index}` })) });
    const tooMany = await busy('POST', '/v1/waitlist_entries', { service_id: fullService, start_time: slot, customer });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.code).toBe('too_many_waitlist_entries');
  });
});

describe('waitlists', () => {
  it('offer freed places to the earliest entries that fit, announced as waitlist.offered, booked with the offer’s hold', async () => {
    const serviceId = await createService(server, 4);
    const slot = futureSlot(44);
    const first = await call('POST', '/v1/bookings', { service_id: serviceId, start_time: slot, party_size: 4, customer });
    expect(first.status).toBe(201);
    const join = (party: number, name: string) =>
      call('POST', '/v1/waitlist_entries', { service_id: serviceId, start_time: slot, party_size: party, customer: { name, email: `${name.toLowerCase()}@example.com` } });
    const large = await join(3, 'Large');
    const small = await join(1, 'Small');
    const later = await join(1, 'Later');
    expect(large.status).toBe(201);
    expect(large.body).toMatchObject({ status: 'waiting', offer: null, party_size: 3 });
    expect(large.body.id).toMatch(/^wle_/);

    // Two places freed: the party of three does not fit, the next party that does is offered them.
    expect((await call('PATCH', `/v1/bookings/${first.body.id}`, { party_size: 2 })).status).toBe(200);
    const offered = (await call('GET', `/v1/waitlist_entries/${small.body.id}`)).body;
    expect(offered.status).toBe('offered');
    expect(offered.offer.hold_id).toMatch(/^hold_/);
    expect((await call('GET', `/v1/waitlist_entries/${large.body.id}`)).body.status).toBe('waiting');
    expect((await call('GET', `/v1/waitlist_entries/${later.body.id}`)).body.status).toBe('offered');

    const events = (await call('GET', '/v1/booking_events?limit=100')).body.data as { event: string; data: Record<string, unknown> }[];
    const offers = events.filter((event) => event.event === 'waitlist.offered');
    expect(offers.map((event) => event.data['id'])).toEqual([small.body.id, later.body.id]);
    // The change that freed the places comes first in the log, then the offers it made.
    const freeing = events.findIndex((event) => event.event === 'booking.updated' && event.data['id'] === first.body.id);
    expect(freeing).toBeGreaterThanOrEqual(0);
    expect(events.indexOf(offers[0]!)).toBe(freeing + 1);
    expect(offers[0]!.data).toStrictEqual(offered);
    expect(JSON.stringify(offers[0]!.data), 'key order as REST answers the entry').toBe(JSON.stringify(offered));

    const booked = await call('POST', '/v1/bookings', { hold_id: offered.offer.hold_id });
    expect(booked.status).toBe(201);
    expect(booked.body.customer).toEqual({ name: 'Small', email: 'small@example.com' });
    expect((await call('GET', `/v1/waitlist_entries/${small.body.id}`)).body.status).toBe('booked');

    // Declining an offer (releasing its hold) withdraws the entry and frees its place again.
    const declined = (await call('GET', `/v1/waitlist_entries/${later.body.id}`)).body;
    expect((await call('DELETE', `/v1/holds/${declined.offer.hold_id}`)).status).toBe(200);
    expect((await call('GET', `/v1/waitlist_entries/${later.body.id}`)).body.status).toBe('withdrawn');
    expect(await remaining(serviceId, slot)).toBe(1);

    const listed = await call('GET', `/v1/waitlist_entries?service_id=${serviceId}`);
    expect(listed.body.data.map((entry: { id: string }) => entry.id)).toEqual([large.body.id, small.body.id, later.body.id]);
    const waiting = await call('GET', `/v1/waitlist_entries?service_id=${serviceId}&status=waiting`);
    expect(waiting.body.data.map((entry: { id: string }) => entry.id)).toEqual([large.body.id]);
  });

  it('moves an offer not taken by its expiry on to the next entry', async () => {
    const serviceId = await createService(server, 1);
    const slot = futureSlot(45);
    const booking = await call('POST', '/v1/bookings', { service_id: serviceId, start_time: slot, customer });
    const join = (name: string) =>
      call('POST', '/v1/waitlist_entries', { service_id: serviceId, start_time: slot, customer: { name, email: 'x@example.com' }, offer_expires_in_seconds: 60 });
    const first = await join('First');
    const second = await join('Second');
    await call('DELETE', `/v1/bookings/${booking.body.id}`);
    expect((await call('GET', `/v1/waitlist_entries/${first.body.id}`)).body.status).toBe('offered');
    offsetMs += 61_000;
    try {
      expect((await call('GET', `/v1/waitlist_entries/${first.body.id}`)).body.status).toBe('expired');
      await expect.poll(async () => (await call('GET', `/v1/waitlist_entries/${second.body.id}`)).body.status, { timeout: 5000 }).toBe('offered');
      const expired = await call('GET', `/v1/waitlist_entries?service_id=${serviceId}&status=expired`);
      expect(expired.body.data.map((entry: { id: string }) => entry.id)).toEqual([first.body.id]);
    } finally {
      offsetMs -= 61_000;
    }
  });

  it('answers an entry made while places are free already offered, and withdraws', async () => {
    const serviceId = await createService(server, 2);
    const slot = futureSlot(46);
    const entry = await call('POST', '/v1/waitlist_entries', { service_id: serviceId, start_time: slot, party_size: 2, customer });
    expect(entry.status).toBe(201);
    expect(entry.body.status).toBe('offered');
    expect(await remaining(serviceId, slot)).toBe(0);
    const withdrawn = await call('DELETE', `/v1/waitlist_entries/${entry.body.id}`);
    expect(withdrawn.body.status).toBe('withdrawn');
    expect(await remaining(serviceId, slot)).toBe(2);
    expect((await call('GET', `/v1/holds/${entry.body.offer.hold_id}`)).body.status).toBe('released');
    expect((await call('DELETE', `/v1/waitlist_entries/${entry.body.id}`)).status).toBe(200);
  });

  it('pages on past an entry withdrawn since its page was sent, and refuses a cursor naming no entry', async () => {
    const serviceId = await createService(server, 1);
    const slot = futureSlot(47);
    expect((await call('POST', '/v1/bookings', { service_id: serviceId, start_time: slot, customer })).status).toBe(201);
    const ids: string[] = [];
    for (let index = 0; index < 5; index++) {
      const entry = await call('POST', '/v1/waitlist_entries', { service_id: serviceId, start_time: slot, customer });
      expect(entry.body.status).toBe('waiting');
      ids.push(entry.body.id);
    }
    const list = `/v1/waitlist_entries?service_id=${serviceId}&status=waiting&limit=2`;
    const first = await call('GET', list);
    expect(first.body.data.map((entry: { id: string }) => entry.id)).toEqual(ids.slice(0, 2));
    // The page's last entry leaves the list; the next page still starts after it.
    expect((await call('DELETE', `/v1/waitlist_entries/${ids[1]}`)).body.status).toBe('withdrawn');
    const second = await call('GET', `${list}&cursor=${first.body.next_cursor}`);
    expect(second.body).toMatchObject({ has_more: true, data: [{ id: ids[2] }, { id: ids[3] }] });
    const third = await call('GET', `${list}&cursor=${second.body.next_cursor}`);
    expect(third.body).toMatchObject({ has_more: false, data: [{ id: ids[4] }] });

    const madeUp = cursorParamOf('wle_doesnotexist');
    const refused = await call('GET', `${list}&cursor=${madeUp}`);
    expect([refused.status, refused.body.code]).toEqual([400, 'invalid_parameter']);
  });

  it('works the same over GraphQL', async () => {
    const serviceId = await createService(server, 1);
    const slot = futureSlot(47);
    const held = await graphql(
      call,
      `
        mutation ($input: CreateHoldInput!) {
          createHold(input: $input) {
            id
            status
            partySize
            expiresAt
          }
        }
      `,
      {
        input: { serviceId, startTime: slot },
      },
    );
    expect(held.data?.['createHold']).toMatchObject({ status: 'HELD', partySize: 1 });
    const entry = await graphql(
      call,
      `
        mutation ($input: CreateWaitlistEntryInput!) {
          createWaitlistEntry(input: $input) {
            id
            status
            offer {
              holdId
            }
          }
        }
      `,
      {
        input: { serviceId, startTime: slot, customer },
      },
    );
    expect(entry.data?.['createWaitlistEntry']).toMatchObject({ status: 'WAITING', offer: null });
    const released = await graphql(
      call,
      `
        mutation ($id: ID!) {
          releaseHold(id: $id) {
            status
          }
        }
      `,
      { id: held.data?.['createHold'].id },
    );
    expect(released.data?.['releaseHold']).toEqual({ status: 'RELEASED' });
    const listed = await graphql(call, `{ waitlistEntries(serviceId: "${serviceId}") { edges { node { status offer { holdId hold: holdId } } } } }`);
    expect(listed.data?.['waitlistEntries'].edges[0].node.status).toBe('OFFERED');
  });
});

describe('Idempotency-Key on holds and waitlist entries', () => {
  it('answers a hold sent again with its key with the hold the first request placed, as it is now, placing no other', async () => {
    const serviceId = await createService(server, 5);
    const slot = futureSlot(60);
    const body = { service_id: serviceId, start_time: slot, party_size: 2 };
    const headers = { 'idempotency-key': 'hold-order-1' };
    const first = await call('POST', '/v1/holds', body, headers);
    expect(first.status).toBe(201);
    const again = await call('POST', '/v1/holds', body, headers);
    expect({ status: again.status, id: again.body.id }).toEqual({ status: 201, id: first.body.id });
    expect(await remaining(serviceId, slot)).toBe(3);

    expect((await call('DELETE', `/v1/holds/${first.body.id}`)).status).toBe(200);
    const afterRelease = await call('POST', '/v1/holds', body, headers);
    expect(afterRelease.body).toMatchObject({ id: first.body.id, status: 'released' });
    expect(await remaining(serviceId, slot)).toBe(5);
    expect(await server.prisma.hold.count({ where: { serviceId } })).toBe(1);
  });

  it('refuses a key sent again with another body, or to another create, with 422 idempotency_key_reused', async () => {
    const serviceId = await createService(server, 5);
    const slot = futureSlot(61);
    const headers = { 'idempotency-key': 'hold-order-2' };
    expect((await call('POST', '/v1/holds', { service_id: serviceId, start_time: slot, party_size: 2 }, headers)).status).toBe(201);
    const otherParty = await call('POST', '/v1/holds', { service_id: serviceId, start_time: slot, party_size: 3 }, headers);
    expect({ status: otherParty.status, code: otherParty.body.code }).toEqual({ status: 422, code: 'idempotency_key_reused' });
    const otherCreate = await call('POST', '/v1/waitlist_entries', { service_id: serviceId, start_time: slot, party_size: 2, customer }, headers);
    expect({ status: otherCreate.status, code: otherCreate.body.code }).toEqual({ status: 422, code: 'idempotency_key_reused' });
    const booking = await call('POST', '/v1/bookings', { service_id: serviceId, start_time: slot, party_size: 2, customer }, headers);
    expect({ status: booking.status, code: booking.body.code }).toEqual({ status: 422, code: 'idempotency_key_reused' });
    expect(await remaining(serviceId, slot)).toBe(3);
    // Keys are the account's: another account's key of the same name is its own.
    const othersHold = await other('POST', '/v1/holds', { service_id: serviceId, start_time: slot, party_size: 1 }, headers);
    expect(othersHold.status).toBe(201);
    expect(await remaining(serviceId, slot)).toBe(2);
  });

  it('places one hold for eight requests sent at once with one key', async () => {
    const serviceId = await createService(server, 5);
    const slot = futureSlot(62);
    const body = { service_id: serviceId, start_time: slot, party_size: 2 };
    const responses = await Promise.all(Array.from({ length: 8 }, () => call('POST', '/v1/holds', body, { 'idempotency-key': 'hold-storm' })));
    // Each retry waits for the first to commit, then replays it.
    expect(responses.map((response) => response.status)).toEqual(Array.from({ length: 8 }, () => 201));
    expect(new Set(responses.map((response) => response.body.id)).size).toBe(1);
    expect(await server.prisma.hold.count({ where: { serviceId } })).toBe(1);
    expect(await remaining(serviceId, slot)).toBe(3);
  });

  it('answers a waitlist entry sent again with its key with the entry the first request made, joining the line once', async () => {
    const serviceId = await createService(server, 1);
    const slot = futureSlot(63);
    expect((await call('POST', '/v1/bookings', { service_id: serviceId, start_time: slot, customer })).status).toBe(201);
    const body = { service_id: serviceId, start_time: slot, party_size: 1, customer };
    const headers = { 'idempotency-key': 'line-order-1' };
    const first = await call('POST', '/v1/waitlist_entries', body, headers);
    expect(first).toMatchObject({ status: 201, body: { status: 'waiting' } });
    const again = await call('POST', '/v1/waitlist_entries', body, headers);
    expect({ status: again.status, id: again.body.id }).toEqual({ status: 201, id: first.body.id });
    const otherCustomer = await call('POST', '/v1/waitlist_entries', { ...body, customer: { name: 'Grace Hopper', email: 'grace@example.com' } }, headers);
    expect({ status: otherCustomer.status, code: otherCustomer.body.code }).toEqual({ status: 422, code: 'idempotency_key_reused' });
    expect(await server.prisma.waitlistEntry.count({ where: { serviceId } })).toBe(1);
  });

  it("is createHold's idempotencyKey argument over GraphQL", async () => {
    const serviceId = await createService(server, 5);
    const slot = futureSlot(64);
    const mutation = 'mutation ($input: CreateHoldInput!, $key: String) { createHold(input: $input, idempotencyKey: $key) { id status } }';
    const variables = { input: { serviceId, startTime: slot, partySize: 1 }, key: 'graphql-hold-1' };
    const first = await graphql(call, mutation, variables);
    const again = await graphql(call, mutation, variables);
    expect(first.data?.['createHold'].id).toMatch(/^hold_/);
    expect(again.data?.['createHold']).toEqual(first.data?.['createHold']);
    const malformed = await graphql(call, mutation, { ...variables, key: 'not a key' });
    expect(malformed.errors?.[0]?.extensions).toMatchObject({ code: 'validation_failed' });
    expect(await remaining(serviceId, slot)).toBe(4);
  });
});
