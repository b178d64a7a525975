import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, futureSlot, type ApiCall } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createService, customer, graphql } from './fixtures.js';

/**
 * Holds and waitlists as an attacker and a careful client use them: odd input, other accounts' ids,
 * read-only keys, Idempotency-Key with hold_id, time moving past expiries and slot starts, and the
 * shapes of the events they log. Races are in holds-races-postgres.test.ts.
 */

/** The server's clock: real time plus what a test has moved it on by. */
let offsetMs = 0;
const clock = () => new Date(Date.now() + offsetMs);

let server: TestServer;
/** bookings:read and bookings:write. */
let call: ApiCall;
/** Only bookings:read, in the same account as `call`. */
let readOnly: ApiCall;
/** bookings:read and bookings:write in another account. */
let other: ApiCall;

beforeAll(async () => {
  server = await startTestServer({ seed: true, clock, config: { WAITLIST_POLL_MS: 50 } });
  const owner = await server.createKey({ scopes: ['bookings:read', 'bookings:write'] });
  call = apiClient(server.url, owner.key);
  readOnly = apiClient(server.url, (await server.createKey({ accountId: owner.accountId, scopes: ['bookings:read'] })).key);
  other = apiClient(server.url, (await server.createKey({ scopes: ['bookings:read', 'bookings:write'] })).key);
});
afterAll(() => server?.close());

/** Runs `work` with the server's clock moved on by `byMs`, and puts it back whatever happens. */
async function withClockMoved<T>(byMs: number, work: () => Promise<T>): Promise<T> {
  offsetMs += byMs;
  try {
    return await work();
  } finally {
    offsetMs -= byMs;
  }
}

/** The places availability says are left in `slot` of `serviceId`. */
async function remaining(serviceId: string, slot: string): Promise<number | undefined> {
  const day = slot.slice(0, 10);
  const answer = await call('GET', `/v1/services/${serviceId}/availability?start_date=${day}&end_date=${day}`);
  expect(answer.status).toBe(200);
  return (answer.body.data as { start_time: string; remaining: number }[]).find((entry) => entry.start_time === slot)?.remaining;
}

const join = (as: ApiCall, serviceId: string, slot: string, partySize = 1, name = 'Grace Hopper') =>
  as('POST', '/v1/waitlist_entries', { service_id: serviceId, start_time: slot, party_size: partySize, customer: { name, email: 'grace@example.com' } });

describe('input to the hold and waitlist routes', () => {
  it('refuses odd ids, types, nulls and huge numbers with a 4xx naming the field, never a 5xx', async () => {
    const serviceId = await createService(server, 4);
    const slot = futureSlot(60);
    const refusals: [string, string, unknown, number, string?][] = [
      ['GET', '/v1/holds/hold_%00', undefined, 400, 'id'],
      ['DELETE', '/v1/holds/hold_%00', undefined, 400, 'id'],
      ['GET', '/v1/waitlist_entries/wle_%00', undefined, 400, 'id'],
      ['DELETE', '/v1/waitlist_entries/wle_%00', undefined, 400, 'id'],
      ['GET', `/v1/holds/hold_${'a'.repeat(5000)}`, undefined, 404],
      ['DELETE', `/v1/waitlist_entries/wle_${'a'.repeat(5000)}`, undefined, 404],
      ['GET', '/v1/waitlist_entries?status=bogus', undefined, 400, 'status'],
      ['GET', '/v1/waitlist_entries?cursor=garbage', undefined, 400],
      ['GET', '/v1/waitlist_entries?limit=0', undefined, 400, 'limit'],
      ['GET', '/v1/waitlist_entries?limit=100000', undefined, 400, 'limit'],
      ['POST', '/v1/holds', { service_id: serviceId, start_time: slot, party_size: 1e20 }, 422, 'party_size'],
      ['POST', '/v1/holds', { service_id: serviceId, start_time: slot, party_size: 2_147_483_647 }, 422, 'party_size'],
      ['POST', '/v1/holds', { service_id: serviceId, start_time: slot, party_size: -1 }, 422, 'party_size'],
      ['POST', '/v1/holds', { service_id: serviceId, start_time: slot, party_size: '2' }, 422, 'party_size'],
      ['POST', '/v1/holds', { service_id: serviceId, start_time: slot, expires_in_seconds: 1e300 }, 422, 'expires_in_seconds'],
      ['POST', '/v1/holds', { service_id: serviceId, start_time: slot, expires_in_seconds: 60.5 }, 422, 'expires_in_seconds'],
      ['POST', '/v1/holds', { service_id: null, start_time: slot }, 422, 'service_id'],
      ['POST', '/v1/holds', { service_id: 'svc_doesnotexist', start_time: slot }, 422, 'service_id'],
      ['POST', '/v1/holds', { service_id: serviceId, start_time: '2020-01-01T00:00:00Z' }, 422, 'start_time'],
      ['POST', '/v1/holds', { service_id: serviceId, start_time: '9999-12-31T23:55:00Z' }, 422, 'start_time'],
      ['POST', '/v1/holds', { service_id: serviceId, start_time: slot.replace(':00:00Z', ':02:00Z') }, 422, 'start_time'],
      ['POST', '/v1/holds', [], 422],
      ['POST', '/v1/waitlist_entries', { service_id: serviceId, start_time: slot, party_size: 5, customer }, 422, 'party_size'],
      ['POST', '/v1/waitlist_entries', { service_id: serviceId, start_time: slot, customer: null }, 422, 'customer'],
      ['POST', '/v1/waitlist_entries', { service_id: serviceId, start_time: slot, customer, offer_expires_in_seconds: 1801 }, 422, 'offer_expires_in_seconds'],
      ['POST', '/v1/bookings', { hold_id: 123, customer }, 422, 'hold_id'],
      ['POST', '/v1/bookings', { hold_id: 'bk_notahold', customer }, 422, 'hold_id'],
      ['POST', '/v1/bookings', { hold_id: `hold_${'a'.repeat(64)}`, customer }, 404],
    ];
    for (const [method, path, body, status, field] of refusals) {
      const answer = await call(method, path, body);
      expect({ method, path: path.slice(0, 60), body, status: answer.status }).toEqual({ method, path: path.slice(0, 60), body, status });
      if (field) expect(answer.body.errors?.map((error: { field: string }) => error.field)).toContain(field);
    }
    // None of them took a place.
    expect(await remaining(serviceId, slot)).toBe(4);
  });

  it('takes a null hold_id as no hold, and a null party_size or lifetime as their defaults', async () => {
    const serviceId = await createService(server, 4);
    const slot = futureSlot(61);
    const booked = await call('POST', '/v1/bookings', { hold_id: null, service_id: serviceId, start_time: slot, customer });
    expect(booked.status).toBe(201);
    const held = await call('POST', '/v1/holds', { service_id: serviceId, start_time: slot, party_size: null, expires_in_seconds: null });
    expect(held.status).toBe(201);
    expect(held.body.party_size).toBe(1);
    expect(Date.parse(held.body.expires_at) - Date.parse(held.body.created_at)).toBe(600_000);
  });

  it('lets a bookings:read key read holds and entries but write none of them', async () => {
    const serviceId = await createService(server, 2);
    const slot = futureSlot(62);
    const held = await call('POST', '/v1/holds', { service_id: serviceId, start_time: slot });
    const entry = await join(call, serviceId, slot);
    expect(entry.body.status).toBe('offered');
    expect((await readOnly('GET', `/v1/holds/${held.body.id}`)).status).toBe(200);
    expect((await readOnly('GET', `/v1/waitlist_entries/${entry.body.id}`)).status).toBe(200);
    expect((await readOnly('GET', '/v1/waitlist_entries')).status).toBe(200);

    for (const [method, path, body] of [
      ['POST', '/v1/holds', { service_id: serviceId, start_time: slot }],
      ['DELETE', `/v1/holds/${held.body.id}`, undefined],
      ['POST', '/v1/waitlist_entries', { service_id: serviceId, start_time: slot, customer }],
      ['DELETE', `/v1/waitlist_entries/${entry.body.id}`, undefined],
      ['POST', '/v1/bookings', { hold_id: held.body.id, customer }],
      ['POST', '/v1/bookings', { hold_id: entry.body.offer.hold_id }],
    ] as const) {
      const answer = await readOnly(method, path, body);
      expect({ method, path, status: answer.status, code: answer.body.code }).toEqual({ method, path, status: 403, code: 'insufficient_scope' });
    }
    for (const mutation of [
      `mutation { createHold(input: { serviceId: "${serviceId}", startTime: "${slot}" }) { id } }`,
      `mutation { releaseHold(id: "${held.body.id}") { id } }`,
      `mutation { withdrawWaitlistEntry(id: "${entry.body.id}") { id } }`,
      `mutation { createWaitlistEntry(input: { serviceId: "${serviceId}", startTime: "${slot}", customer: { name: "A", email: "a@example.com" } }) { id } }`,
      `mutation { createBooking(input: { holdId: "${held.body.id}", customer: { name: "A", email: "a@example.com" } }) { booking { id } } }`,
    ]) {
      const answer = await graphql(readOnly, mutation);
      expect(answer.errors?.[0]?.extensions.code).toBe('insufficient_scope');
    }
    expect((await call('GET', `/v1/holds/${held.body.id}`)).body.status).toBe('held');
    expect((await call('GET', `/v1/waitlist_entries/${entry.body.id}`)).body.status).toBe('offered');
    expect(await remaining(serviceId, slot)).toBe(0);
  });

  it("answers another account's hold and entry ids as not found on every route and field, and changes nothing", async () => {
    const serviceId = await createService(server, 3);
    const slot = futureSlot(63);
    const held = await call('POST', '/v1/holds', { service_id: serviceId, start_time: slot });
    const entry = await join(call, serviceId, slot);
    const offerHold: string = entry.body.offer.hold_id;
    for (const [method, path, body] of [
      ['GET', `/v1/holds/${held.body.id}`, undefined],
      ['DELETE', `/v1/holds/${held.body.id}`, undefined],
      ['DELETE', `/v1/holds/${offerHold}`, undefined],
      ['GET', `/v1/waitlist_entries/${entry.body.id}`, undefined],
      ['DELETE', `/v1/waitlist_entries/${entry.body.id}`, undefined],
      ['POST', '/v1/bookings', { hold_id: held.body.id, customer }],
      ['POST', '/v1/bookings', { hold_id: offerHold }],
    ] as const) {
      const answer = await other(method, path, body);
      expect({ method, path, status: answer.status }).toEqual({ method, path, status: 404 });
      expect(JSON.stringify(answer.body)).not.toContain(serviceId);
    }
    expect((await other('GET', `/v1/waitlist_entries?service_id=${serviceId}`)).body.data).toEqual([]);
    const fields = await graphql(
      other,
      `
        query ($hold: ID!, $entry: ID!) {
          node(id: $hold) {
            id
          }
          entryNode: node(id: $entry) {
            id
          }
          nodes(ids: [$hold, $entry]) {
            id
          }
        }
      `,
      { hold: held.body.id, entry: entry.body.id },
    );
    expect(fields.data).toEqual({ node: null, entryNode: null, nodes: [null, null] });
    for (const query of [`{ hold(id: "${held.body.id}") { id } }`, `{ waitlistEntry(id: "${entry.body.id}") { id } }`]) {
      expect((await graphql(other, query)).errors?.[0]?.extensions.code).toBe('not_found');
    }
    expect((await call('GET', `/v1/holds/${held.body.id}`)).body.status).toBe('held');
    expect((await call('GET', `/v1/waitlist_entries/${entry.body.id}`)).body.status).toBe('offered');
    expect(await remaining(serviceId, slot)).toBe(1);
  });

  it('resolves its own holds and waitlist entries through node(id:) and nodes(ids:), as every Node', async () => {
    const serviceId = await createService(server, 3);
    const slot = futureSlot(64);
    const held = await call('POST', '/v1/holds', { service_id: serviceId, start_time: slot });
    const entry = await join(call, serviceId, slot);
    const answer = await graphql(
      call,
      `
        query ($hold: ID!, $entry: ID!) {
          node(id: $hold) {
            __typename
            id
            ... on Hold {
              partySize
            }
          }
          entryNode: node(id: $entry) {
            __typename
            id
            ... on WaitlistEntry {
              partySize
            }
          }
          nodes(ids: [$hold, $entry]) {
            id
          }
        }
      `,
      { hold: held.body.id, entry: entry.body.id },
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({
      node: { __typename: 'Hold', id: held.body.id, partySize: 1 },
      entryNode: { __typename: 'WaitlistEntry', id: entry.body.id, partySize: 1 },
      nodes: [{ id: held.body.id }, { id: entry.body.id }],
    });
  });

  it('pages through waitlist entries with cursors, filtered by status, none twice', async () => {
    const serviceId = await createService(server, 1);
    const slot = futureSlot(65);
    expect((await call('POST', '/v1/bookings', { service_id: serviceId, start_time: slot, customer })).status).toBe(201);
    const ids: string[] = [];
    for (let index = 0; index < 5; index++) ids.push((await join(call, serviceId, slot, 1, `Guest ${index}`)).body.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 10; page++) {
      const answer = await call('GET', `/v1/waitlist_entries?service_id=${serviceId}&status=waiting&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(answer.status).toBe(200);
      seen.push(...answer.body.data.map((entry: { id: string }) => entry.id));
      cursor = answer.body.next_cursor;
      if (!answer.body.has_more) break;
    }
    expect(seen).toEqual(ids);
    for (const [status, expected] of [
      ['offered', []],
      ['booked', []],
      ['expired', []],
      ['withdrawn', []],
    ] as const) {
      expect((await call('GET', `/v1/waitlist_entries?service_id=${serviceId}&status=${status}`)).body.data).toEqual(expected);
    }
  });
});

describe('a hold of a slot that has since started', () => {
  it('cannot be booked once the slot has started: a hold lasts at most until its slot starts', async () => {
    const serviceId = await createService(server, 2);
    const slot = futureSlot(70);
    // Two minutes before the slot starts, a hold for the default ten minutes.
    const beforeStart = Date.parse(slot) - 120_000 - Date.now();
    await withClockMoved(beforeStart, async () => {
      const held = await call('POST', '/v1/holds', { service_id: serviceId, start_time: slot, party_size: 2 });
      expect(held.status).toBe(201);
      expect(held.body.expires_at).toBe(slot);
      await withClockMoved(180_000, async () => {
        const late = await call('POST', '/v1/bookings', { hold_id: held.body.id, customer });
        expect({ status: late.status, code: late.body.code }).toEqual({ status: 409, code: 'hold_expired' });
        expect(await server.prisma.booking.count({ where: { serviceId } })).toBe(0);
      });
    });
  });

  it('cannot be booked from a waitlist offer once the slot has started', async () => {
    const serviceId = await createService(server, 1);
    const slot = futureSlot(71);
    const beforeStart = Date.parse(slot) - 120_000 - Date.now();
    await withClockMoved(beforeStart, async () => {
      const entry = await join(call, serviceId, slot);
      expect(entry.body.status).toBe('offered');
      await withClockMoved(180_000, async () => {
        const late = await call('POST', '/v1/bookings', { hold_id: entry.body.offer.hold_id });
        expect({ status: late.status, code: late.body.code }).toEqual({ status: 409, code: 'hold_expired' });
        expect((await call('GET', `/v1/waitlist_entries/${entry.body.id}`)).body.status).toBe('expired');
        expect(await server.prisma.booking.count({ where: { serviceId } })).toBe(0);
      });
    });
  });
});

describe('Idempotency-Key with hold_id', () => {
  it('replays the first booking, even after the hold is converted, and refuses another body with 422', async () => {
    const serviceId = await createService(server, 3);
    const slot = futureSlot(72);
    const held = await call('POST', '/v1/holds', { service_id: serviceId, start_time: slot, party_size: 2 });
    const headers = { 'idempotency-key': `hold-${held.body.id}` };
    const first = await call('POST', '/v1/bookings', { hold_id: held.body.id, customer }, headers);
    expect(first.status).toBe(201);
    const replay = await call('POST', '/v1/bookings', { hold_id: held.body.id, customer }, headers);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);

    const otherCustomer = await call('POST', '/v1/bookings', { hold_id: held.body.id, customer: { name: 'Someone Else', email: 'else@example.com' } }, headers);
    expect({ status: otherCustomer.status, code: otherCustomer.body.code }).toEqual({ status: 422, code: 'idempotency_key_reused' });
    const slotBody = await call('POST', '/v1/bookings', { service_id: serviceId, start_time: slot, party_size: 2, customer }, headers);
    expect({ status: slotBody.status, code: slotBody.body.code }).toEqual({ status: 422, code: 'idempotency_key_reused' });
    const secondHold = await call('POST', '/v1/holds', { service_id: serviceId, start_time: slot });
    const otherHold = await call('POST', '/v1/bookings', { hold_id: secondHold.body.id, customer }, headers);
    expect({ status: otherHold.status, code: otherHold.body.code }).toEqual({ status: 422, code: 'idempotency_key_reused' });
    // The second hold is untouched by the refused request.
    expect((await call('GET', `/v1/holds/${secondHold.body.id}`)).body.status).toBe('held');
    expect(await server.prisma.booking.count({ where: { serviceId } })).toBe(1);
  });

  it('does not keep the key of a request refused because the hold had expired', async () => {
    const serviceId = await createService(server, 2);
    const slot = futureSlot(73);
    const held = await call('POST', '/v1/holds', { service_id: serviceId, start_time: slot, expires_in_seconds: 60 });
    const headers = { 'idempotency-key': `late-${held.body.id}` };
    await withClockMoved(61_000, async () => {
      const late = await call('POST', '/v1/bookings', { hold_id: held.body.id, customer }, headers);
      expect({ status: late.status, code: late.body.code }).toEqual({ status: 409, code: 'hold_expired' });
      const fresh = await call('POST', '/v1/bookings', { service_id: serviceId, start_time: slot, customer }, headers);
      expect(fresh.status).toBe(201);
    });
  });
});

describe('capacity with holds', () => {
  it('counts unexpired holds beside bookings, and an expired one nowhere: availability, slot_full, new holds', async () => {
    const serviceId = await createService(server, 5);
    const slot = futureSlot(74);
    expect((await call('POST', '/v1/bookings', { service_id: serviceId, start_time: slot, party_size: 1, customer })).status).toBe(201);
    const shortHold = await call('POST', '/v1/holds', { service_id: serviceId, start_time: slot, party_size: 2, expires_in_seconds: 60 });
    const longHold = await other('POST', '/v1/holds', { service_id: serviceId, start_time: slot, party_size: 1, expires_in_seconds: 600 });
    expect([shortHold.status, longHold.status]).toEqual([201, 201]);
    expect(await remaining(serviceId, slot)).toBe(1);
    const full = await call('POST', '/v1/holds', { service_id: serviceId, start_time: slot, party_size: 2 });
    expect({ status: full.status, code: full.body.code }).toEqual({ status: 409, code: 'slot_full' });
    expect(full.body.detail).toContain('Only 1 place is left');

    await withClockMoved(60_000, async () => {
      // The expired hold's two places are free: availability, the slot_full message and a new hold agree.
      expect(await remaining(serviceId, slot)).toBe(3);
      const tooMany = await call('POST', '/v1/bookings', { service_id: serviceId, start_time: slot, party_size: 4, customer });
      expect({ status: tooMany.status, code: tooMany.body.code }).toEqual({ status: 409, code: 'slot_full' });
      expect(tooMany.body.detail).toContain('Only 3 places are left');
      const fits = await call('POST', '/v1/holds', { service_id: serviceId, start_time: slot, party_size: 3 });
      expect(fits.status).toBe(201);
      expect(await remaining(serviceId, slot)).toBe(0);
      // Converting the other account's hold needs no free place: it was counted already.
      const longBooked = await other('POST', '/v1/bookings', { hold_id: longHold.body.id, customer });
      expect(longBooked.status).toBe(201);
      expect(await remaining(serviceId, slot)).toBe(0);
    });
  });

  it('moves the cached availability answer on when a hold is released, expires or is booked', async () => {
    const serviceId = await createService(server, 4);
    const slot = futureSlot(75);
    const query = `query ($id: ID!, $day: Date!) { service(id: $id) { availability(startDate: $day, endDate: $day) { startTime remaining } } }`;
    const remainingOverGraphql = async () => {
      const answer = await graphql(call, query, { id: serviceId, day: slot.slice(0, 10) });
      expect(answer.errors).toBeUndefined();
      return (answer.data!['service'].availability as { startTime: string; remaining: number }[]).find((entry) => entry.startTime === slot)?.remaining;
    };
    expect(await remainingOverGraphql()).toBe(4);
    const released = await call('POST', '/v1/holds', { service_id: serviceId, start_time: slot, party_size: 2 });
    expect(await remainingOverGraphql()).toBe(2);
    expect(await remaining(serviceId, slot)).toBe(2);
    await call('DELETE', `/v1/holds/${released.body.id}`);
    expect(await remainingOverGraphql()).toBe(4);
    expect(await remaining(serviceId, slot)).toBe(4);

    const expiring = await call('POST', '/v1/holds', { service_id: serviceId, start_time: slot, party_size: 3, expires_in_seconds: 60 });
    expect(expiring.status).toBe(201);
    expect(await remainingOverGraphql()).toBe(1);
    expect(await remaining(serviceId, slot)).toBe(1);
    // Within the same minute as the answer above, a second later than the hold's expiry.
    const expiresInMs = Date.parse(expiring.body.expires_at) - clock().getTime();
    await withClockMoved(expiresInMs + 1, async () => {
      expect(await remainingOverGraphql()).toBe(4);
      expect(await remaining(serviceId, slot)).toBe(4);
      // Once the offers worker has recorded the expiry, the answer is still right.
      await expect.poll(async () => (await server.prisma.hold.findUniqueOrThrow({ where: { id: expiring.body.id } })).status, { timeout: 5000 }).toBe('expired');
      expect(await remainingOverGraphql()).toBe(4);
      expect(await remaining(serviceId, slot)).toBe(4);
      const booked = await call('POST', '/v1/holds', { service_id: serviceId, start_time: slot, party_size: 1 });
      expect(await remainingOverGraphql()).toBe(3);
      expect((await call('POST', '/v1/bookings', { hold_id: booked.body.id, customer })).status).toBe(201);
      expect(await remainingOverGraphql()).toBe(3);
      expect(await remaining(serviceId, slot)).toBe(3);
    });
  });
});

/** The log's events of a type for one subject (a waitlist entry or a booking), oldest first. */
async function eventsAbout(as: ApiCall, type: string, id: string): Promise<Record<string, unknown>[]> {
  const events: { event: string; data: Record<string, unknown> }[] = [];
  let cursor: string | null = null;
  do {
    const page = await as('GET', `/v1/booking_events?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(page.status).toBe(200);
    events.push(...page.body.data);
    cursor = page.body.has_more ? page.body.next_cursor : null;
  } while (cursor);
  return events.filter((event) => event.event === type && event.data['id'] === id).map((event) => event.data);
}

describe('event shapes', () => {
  it('logs waitlist.offered with the entry exactly as GET answers it at that moment, whoever freed the places', async () => {
    const serviceId = await createService(server, 2);
    const slot = futureSlot(76);
    // Offered at once, on joining a line with room.
    const atOnce = await join(other, serviceId, slot, 1, 'At Once');
    expect(atOnce.body.status).toBe('offered');
    // Only the answer to joining says where the entry stands in line (nowhere, once offered).
    const { place_in_line: placeInLine, ...entry } = atOnce.body;
    expect(placeInLine).toBeNull();
    expect(await eventsAbout(other, 'waitlist.offered', atOnce.body.id)).toStrictEqual([entry]);
    expect((await other('GET', `/v1/waitlist_entries/${atOnce.body.id}`)).body).toStrictEqual(entry);

    // Offered to another account's entry by this account's cancellation.
    const booking = await call('POST', '/v1/bookings', { service_id: serviceId, start_time: slot, customer });
    expect(booking.status).toBe(201);
    const waiting = await join(other, serviceId, slot, 1, 'After Cancel');
    expect(waiting.body.status).toBe('waiting');
    expect((await call('DELETE', `/v1/bookings/${booking.body.id}`)).status).toBe(200);
    const offered = (await other('GET', `/v1/waitlist_entries/${waiting.body.id}`)).body;
    expect(offered.status).toBe('offered');
    expect(await eventsAbout(other, 'waitlist.offered', waiting.body.id)).toStrictEqual([offered]);
    expect(await eventsAbout(call, 'waitlist.offered', waiting.body.id)).toEqual([]);

    // Offered by the offers worker, when the first offer's hold expires.
    const third = await join(other, serviceId, slot, 1, 'After Expiry');
    expect(third.body.status).toBe('waiting');
    await withClockMoved(601_000, async () => {
      await expect.poll(async () => (await other('GET', `/v1/waitlist_entries/${third.body.id}`)).body.status, { timeout: 5000 }).toBe('offered');
      const now = (await other('GET', `/v1/waitlist_entries/${third.body.id}`)).body;
      expect(await eventsAbout(other, 'waitlist.offered', third.body.id)).toStrictEqual([now]);
    });
  });

  it('logs booking.created for a booking made with a hold exactly as for any booking: the booking as GET answers it', async () => {
    const serviceId = await createService(server, 2);
    const slot = futureSlot(77);
    const plain = await call('POST', '/v1/bookings', { service_id: serviceId, start_time: slot, customer });
    const held = await call('POST', '/v1/holds', { service_id: serviceId, start_time: slot });
    const withHold = await call('POST', '/v1/bookings', { hold_id: held.body.id, customer });
    expect(withHold.status).toBe(201);
    const [plainEvent] = await eventsAbout(call, 'booking.created', plain.body.id);
    const [holdEvent] = await eventsAbout(call, 'booking.created', withHold.body.id);
    expect(holdEvent).toStrictEqual((await call('GET', `/v1/bookings/${withHold.body.id}`)).body);
    expect(Object.keys(holdEvent!)).toEqual(Object.keys(plainEvent!));
  });
});

describe('the offers worker', () => {
  it("offers the places an operator's capacity raise frees to the line, in order, announced as GET answers the entry", async () => {
    const serviceId = await createService(server, 2);
    const slot = futureSlot(81);
    expect((await call('POST', '/v1/bookings', { service_id: serviceId, start_time: slot, party_size: 2, customer })).status).toBe(201);
    const large = await join(other, serviceId, slot, 2, 'Large');
    const small = await join(other, serviceId, slot, 1, 'Small');
    expect([large.body.status, small.body.status]).toEqual(['waiting', 'waiting']);
    // Two more places: the party of two, first in line, gets them; the party of one keeps waiting.
    await server.prisma.service.update({ where: { id: serviceId }, data: { capacity: 4 } });
    await expect.poll(async () => (await other('GET', `/v1/waitlist_entries/${large.body.id}`)).body.status, { timeout: 5000 }).toBe('offered');
    const offered = (await other('GET', `/v1/waitlist_entries/${large.body.id}`)).body;
    expect((await other('GET', `/v1/waitlist_entries/${small.body.id}`)).body.status).toBe('waiting');
    expect(await eventsAbout(other, 'waitlist.offered', large.body.id)).toStrictEqual([offered]);
    expect(await remaining(serviceId, slot)).toBe(0);
  });
});

describe('the response cache of bookingEvents', () => {
  // Each test asks twice before the change: the cache admits a request from its second time on.
  const offersQuery = `{ bookingEvents(types: [WAITLIST_OFFERED], first: 100) { edges { node { data waitlistEntry { id status } } } } }`;
  const entryStatusInLog = async (as: ApiCall, entryId: string) => {
    const answer = await graphql(as, offersQuery);
    expect(answer.errors).toBeUndefined();
    const edges = answer.data!['bookingEvents'].edges as { node: { waitlistEntry: { id: string; status: string } | null } }[];
    return edges.map((edge) => edge.node.waitlistEntry).find((entry) => entry?.id === entryId)?.status;
  };

  it('answers an offered entry as it is now after it is withdrawn, a change that logs no event', async () => {
    const serviceId = await createService(server, 1);
    const slot = futureSlot(78);
    const entry = await join(call, serviceId, slot);
    expect(entry.body.status).toBe('offered');
    for (let ask = 0; ask < 2; ask++) expect(await entryStatusInLog(call, entry.body.id)).toBe('OFFERED');
    expect((await call('DELETE', `/v1/waitlist_entries/${entry.body.id}`)).body.status).toBe('withdrawn');
    expect(await entryStatusInLog(call, entry.body.id)).toBe('WITHDRAWN');
  });

  it("answers an offered entry as it is now after its offer's hold is released", async () => {
    const serviceId = await createService(server, 1);
    const slot = futureSlot(79);
    const entry = await join(call, serviceId, slot);
    for (let ask = 0; ask < 2; ask++) expect(await entryStatusInLog(call, entry.body.id)).toBe('OFFERED');
    expect((await call('DELETE', `/v1/holds/${entry.body.offer.hold_id}`)).body.status).toBe('released');
    expect(await entryStatusInLog(call, entry.body.id)).toBe('WITHDRAWN');
  });

  it("answers an offered entry as expired once its offer's hold expires", async () => {
    const serviceId = await createService(server, 1);
    const slot = futureSlot(80);
    const entry = await call('POST', '/v1/waitlist_entries', { service_id: serviceId, start_time: slot, customer, offer_expires_in_seconds: 60 });
    for (let ask = 0; ask < 2; ask++) expect(await entryStatusInLog(call, entry.body.id)).toBe('OFFERED');
    await withClockMoved(61_000, async () => {
      expect((await call('GET', `/v1/waitlist_entries/${entry.body.id}`)).body.status).toBe('expired');
      expect(await entryStatusInLog(call, entry.body.id)).toBe('EXPIRED');
    });
  });
});
