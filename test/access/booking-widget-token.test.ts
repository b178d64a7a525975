import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWidgetToken } from '../../src/access/admin.js';
import { maxHeldHoldsPerWidgetToken } from '../../src/bookings/holds/holds.js';
import { maxOpenWaitlistEntriesPerWidgetToken } from '../../src/bookings/holds/waitlist.js';
import { newId } from '../../src/shared/ids.js';
import { openService } from '../support/bookable.js';
import { futureSlot } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { bearer, postGraphQL } from './requests.js';

/** A widget token an operator allowed to book (bookings:book): what a visitor does, and nothing more. */

const shop = 'https://shop.example';
const customer = { name: 'Ada Lovelace', email: 'ada@example.com' };

let server: TestServer;
let accountId: string;
let bookingToken: string;
let directoryToken: string;
let serviceId: string;

beforeAll(async () => {
  server = await startTestServer({ seed: true });
  accountId = await server.createAccount();
  bookingToken = await newBookingToken();
  directoryToken = (await createWidgetToken(server.prisma, { accountId, allowedOrigins: [shop] })).id;
  serviceId = await openService(server.prisma, { capacity: 4 });
});
afterAll(() => server.close());

function call(token: string, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method,
    headers: bearer(token, { origin: shop, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function json(response: Response, status: number): Promise<Record<string, unknown>> {
  const body = (await response.json()) as Record<string, unknown>;
  expect({ status: response.status, body }).toMatchObject({ status });
  return body;
}

/** A booking widget token of the account, for the shop's origin. */
async function newBookingToken(): Promise<string> {
  return (await createWidgetToken(server.prisma, { accountId, allowedOrigins: [shop], allowBooking: true })).id;
}

/**
 * A new booking token with as many holds held as it may have, all at 19:00 UTC `days` from today:
 * written straight in (the cap counts rows; their places do not matter here).
 */
async function bookingTokenHoldingItsCap(days: number): Promise<string> {
  const token = await newBookingToken();
  const startTime = new Date(futureSlot(days));
  await server.prisma.hold.createMany({
    data: Array.from({ length: maxHeldHoldsPerWidgetToken }, () => ({
      id: newId('hold'),
      accountId,
      createdBy: token,
      serviceId,
      startTime,
      endTime: new Date(startTime.getTime() + 300_000),
      partySize: 1,
      expiresAt: new Date(startTime.getTime() - 60_000),
    })),
  });
  return token;
}

const hold = (token: string, startTime: string, partySize = 1) => call(token, 'POST', '/v1/holds', { service_id: serviceId, start_time: startTime, party_size: partySize });

describe('an operator opts a widget token into booking', () => {
  it('with allow_booking on POST /v1/admin/widget_tokens; tokens do not book unless asked', async () => {
    const { key } = await server.createKey({ scopes: ['admin'] });
    const create = (extra: Record<string, unknown>) =>
      fetch(`${server.url}/v1/admin/widget_tokens`, {
        method: 'POST',
        headers: bearer(key, { 'content-type': 'application/json' }),
        body: JSON.stringify({ account_id: accountId, allowed_origins: [shop], ...extra }),
      });
    const booking = await json(await create({ allow_booking: true }), 201);
    expect(booking).toMatchObject({ allow_booking: true });
    expect(await server.prisma.widgetToken.findUniqueOrThrow({ where: { id: String(booking['token']) } })).toMatchObject({ allowBooking: true });
    expect(await json(await create({}), 201)).toMatchObject({ allow_booking: false });
  });
});

describe('a booking widget token does what a visitor does', () => {
  it("reads the service's availability", async () => {
    const day = futureSlot(3).slice(0, 10);
    const body = await json(await call(bookingToken, 'GET', `/v1/services/${serviceId}/availability?start_date=${day}&end_date=${day}`), 200);
    expect(body).toMatchObject({ service_id: serviceId, timezone: 'UTC' });
    expect(body['data']).toEqual(expect.arrayContaining([{ start_time: futureSlot(3), end_time: expect.any(String), capacity: 4, remaining: 4 }]));
  });

  it('holds, and books the hold for a customer', async () => {
    const held = await json(await hold(bookingToken, futureSlot(3, 18), 2), 201);
    expect(held).toMatchObject({ status: 'held', party_size: 2 });

    const booked = await json(await call(bookingToken, 'POST', '/v1/bookings', { hold_id: held['id'], customer }), 201);
    expect(booked).toMatchObject({ status: 'confirmed', party_size: 2, customer });
    expect(await server.prisma.booking.findUniqueOrThrow({ where: { id: String(booked['id']) } })).toMatchObject({ customerEmail: customer.email, partySize: 2 });
    expect(await server.prisma.hold.findUniqueOrThrow({ where: { id: String(held['id']) } })).toMatchObject({ status: 'converted', bookingId: booked['id'] });
  });

  it('releases a hold by id', async () => {
    const held = await json(await hold(bookingToken, futureSlot(3, 17)), 201);
    expect(await json(await call(bookingToken, 'DELETE', `/v1/holds/${String(held['id'])}`), 200)).toMatchObject({ id: held['id'], status: 'released' });
    expect(await server.prisma.hold.findUniqueOrThrow({ where: { id: String(held['id']) } })).toMatchObject({ status: 'released' });
  });

  it('is told slot_full, and joins the waitlist', async () => {
    const full = futureSlot(3, 16);
    await json(await hold(bookingToken, full, 4), 201);
    expect(await json(await hold(bookingToken, full, 1), 409)).toMatchObject({ code: 'slot_full' });
    const entry = await json(await call(bookingToken, 'POST', '/v1/waitlist_entries', { service_id: serviceId, start_time: full, party_size: 2, customer }), 201);
    expect(entry).toMatchObject({ status: 'waiting', party_size: 2, customer, place_in_line: 1 });
    expect(await server.prisma.waitlistEntry.findUniqueOrThrow({ where: { id: String(entry['id']) } })).toMatchObject({ status: 'waiting', customerEmail: customer.email });
  });
});

describe('a booking widget token never reads or changes what others booked', () => {
  let bookingId: string;
  let entryId: string;

  beforeAll(async () => {
    const slot = futureSlot(4);
    const booking = await server.prisma.booking.create({
      data: {
        id: newId('booking'),
        accountId,
        serviceId,
        startTime: new Date(slot),
        endTime: new Date(Date.parse(slot) + 300_000),
        customerName: 'Grace',
        customerEmail: 'grace@example.com',
      },
    });
    bookingId = booking.id;
    // The slot is full (the row above is written past the places count), so the entry waits.
    await json(await hold(bookingToken, slot, 4), 201);
    const entry = await call(bookingToken, 'POST', '/v1/waitlist_entries', { service_id: serviceId, start_time: slot, party_size: 1, customer });
    entryId = String((await json(entry, 201))['id']);
  });

  it.each([
    ['list bookings', 'GET', '/v1/bookings', undefined],
    ['get a booking', 'GET', () => `/v1/bookings/${bookingId}`, undefined],
    ['change a booking', 'PATCH', () => `/v1/bookings/${bookingId}`, { party_size: 2 }],
    ['cancel a booking', 'DELETE', () => `/v1/bookings/${bookingId}`, undefined],
    ['book a slot without a hold', 'POST', '/v1/bookings', { service_id: 'svc_x', start_time: futureSlot(4, 15), customer }],
    ['list waitlist entries', 'GET', '/v1/waitlist_entries', undefined],
    ['get a waitlist entry', 'GET', () => `/v1/waitlist_entries/${entryId}`, undefined],
    ['withdraw a waitlist entry', 'DELETE', () => `/v1/waitlist_entries/${entryId}`, undefined],
    ['read the booking events log', 'GET', '/v1/booking_events', undefined],
    ['list webhook endpoints', 'GET', '/v1/webhook_endpoints', undefined],
    ['create a webhook endpoint', 'POST', '/v1/webhook_endpoints', { url: 'https://shop.example/hook' }],
  ] as const)('is refused 403 to %s, saying what it may do', async (_what, method, path, body) => {
    const response = await call(bookingToken, method, typeof path === 'function' ? path() : path, body);
    const problem = await json(response, 403);
    expect(problem).toMatchObject({ code: 'insufficient_scope' });
    expect(String(problem['detail'])).toMatch(/booking widget token/);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer error="insufficient_scope"/);
    // A permitted page may read why it was refused.
    expect(response.headers.get('access-control-allow-origin')).toBe(shop);
  });

  it('leaves them as they were', async () => {
    expect(await server.prisma.booking.findUniqueOrThrow({ where: { id: bookingId } })).toMatchObject({ status: 'confirmed', partySize: 1 });
    expect(await server.prisma.waitlistEntry.findUniqueOrThrow({ where: { id: entryId } })).toMatchObject({ status: 'waiting' });
  });

  it('does not read bookings, holds or entries through node, nor list services', async () => {
    const held = String((await json(await hold(bookingToken, futureSlot(4, 14)), 201))['id']);
    const query = `{ node(id: "${bookingId}") { id } nodes(ids: ["${held}", "${entryId}"]) { id } }`;
    const answer = (await (await postGraphQL(server.url, bookingToken, query, { headers: { origin: shop } })).json()) as {
      data: unknown;
      errors: Array<{ extensions: { code: string } }>;
    };
    expect(answer.data).toEqual({ node: null, nodes: [null, null] });
    expect(answer.errors.map((error) => error.extensions.code)).toEqual(['insufficient_scope', 'insufficient_scope', 'insufficient_scope']);
    expect(JSON.stringify(answer)).not.toContain('Grace');
    await json(await call(bookingToken, 'GET', '/v1/services'), 403);
  });
});

describe("a booking widget token's holds are its own", () => {
  it('cannot release or book a hold another credential of its account made: 404, and the hold stays held', async () => {
    const { key } = await server.createKey({ accountId });
    const byKey = await fetch(`${server.url}/v1/holds`, {
      method: 'POST',
      headers: bearer(key, { 'content-type': 'application/json' }),
      body: JSON.stringify({ service_id: serviceId, start_time: futureSlot(7), party_size: 1 }),
    });
    const keyHold = String((await json(byKey, 201))['id']);
    const otherToken = await newBookingToken();
    const tokenHold = String((await json(await hold(otherToken, futureSlot(7, 11)), 201))['id']);

    for (const held of [keyHold, tokenHold]) {
      expect(await json(await call(bookingToken, 'DELETE', `/v1/holds/${held}`), 404)).toMatchObject({ code: 'not_found' });
      expect(await json(await call(bookingToken, 'POST', '/v1/bookings', { hold_id: held, customer }), 404)).toMatchObject({ code: 'not_found' });
      expect(await server.prisma.hold.findUniqueOrThrow({ where: { id: held } })).toMatchObject({ status: 'held', bookingId: null });
    }
    expect(await server.prisma.hold.findUniqueOrThrow({ where: { id: tokenHold } })).toMatchObject({ createdBy: otherToken });
  });

  it("keeps its Idempotency-Keys apart from other credentials': the same key places its own hold, replays only that, and spoils no key of theirs", async () => {
    const { key } = await server.createKey({ accountId });
    const otherToken = await newBookingToken();
    const body = { service_id: serviceId, start_time: futureSlot(8), party_size: 1 };
    const holdWithKey = async (credential: string, idempotencyKey: string, sent = body) =>
      json(
        await fetch(`${server.url}/v1/holds`, {
          method: 'POST',
          headers: bearer(credential, { origin: shop, 'content-type': 'application/json', 'idempotency-key': idempotencyKey }),
          body: JSON.stringify(sent),
        }),
        201,
      );
    const byKey = await holdWithKey(key, 'checkout-1');
    const byToken = await holdWithKey(bookingToken, 'checkout-1');
    const byOtherToken = await holdWithKey(otherToken, 'checkout-1');
    expect(new Set([byKey['id'], byToken['id'], byOtherToken['id']]).size).toBe(3);
    expect(await server.prisma.hold.findUniqueOrThrow({ where: { id: String(byToken['id']) } })).toMatchObject({ createdBy: bookingToken });
    expect((await holdWithKey(bookingToken, 'checkout-1'))['id']).toBe(byToken['id']);
    expect((await holdWithKey(key, 'checkout-1'))['id']).toBe(byKey['id']);
    // A visitor who sends a key first leaves the account's own request with that key unrefused.
    const laterSlot = { ...body, start_time: futureSlot(8, 13) };
    await holdWithKey(bookingToken, 'checkout-2', laterSlot);
    expect((await holdWithKey(key, 'checkout-2', { ...laterSlot, party_size: 2 }))['party_size']).toBe(2);
  });

  it(`holds at most ${maxHeldHoldsPerWidgetToken} at once (422 too_many_holds), so its visitors cannot use up the account's holds`, async () => {
    const token = await bookingTokenHoldingItsCap(6);
    expect(await json(await hold(token, futureSlot(6, 11)), 422)).toMatchObject({ code: 'too_many_holds' });
    const { key } = await server.createKey({ accountId });
    const byKey = await fetch(`${server.url}/v1/holds`, {
      method: 'POST',
      headers: bearer(key, { 'content-type': 'application/json' }),
      body: JSON.stringify({ service_id: serviceId, start_time: futureSlot(6, 11), party_size: 1 }),
    });
    await json(byKey, 201);
    // Once one of them is no longer held, the token holds again.
    await server.prisma.hold.updateMany({ where: { createdBy: token, startTime: new Date(futureSlot(6)) }, data: { status: 'released' } });
    await json(await hold(token, futureSlot(6, 11)), 201);
  });

  const join = (token: string, startTime: string, partySize = 1) =>
    call(token, 'POST', '/v1/waitlist_entries', { service_id: serviceId, start_time: startTime, party_size: partySize, customer, offer_expires_in_seconds: 1800 });

  it('holds the offer a waitlist join gets at once as one of its own: counted in its holds, released or booked by it', async () => {
    const token = await newBookingToken();
    const declined = await json(await join(token, futureSlot(9, 10), 4), 201);
    expect(declined).toMatchObject({ status: 'offered', offer: { hold_id: expect.any(String) } });
    const declinedHold = String((declined['offer'] as Record<string, unknown>)['hold_id']);
    expect(await server.prisma.hold.findUniqueOrThrow({ where: { id: declinedHold } })).toMatchObject({ createdBy: token, status: 'held' });
    // Cancel in the widget: the places go back, the entry with them.
    expect(await json(await call(token, 'DELETE', `/v1/holds/${declinedHold}`), 200)).toMatchObject({ status: 'released' });
    expect(await server.prisma.waitlistEntry.findUniqueOrThrow({ where: { id: String(declined['id']) } })).toMatchObject({ status: 'withdrawn' });

    const taken = await json(await join(token, futureSlot(9, 11), 2), 201);
    const takenHold = (taken['offer'] as Record<string, unknown>)['hold_id'];
    expect(await json(await call(token, 'POST', '/v1/bookings', { hold_id: takenHold, customer }), 201)).toMatchObject({ status: 'confirmed', party_size: 2 });
    expect(await server.prisma.waitlistEntry.findUniqueOrThrow({ where: { id: String(taken['id']) } })).toMatchObject({ status: 'booked' });
  });

  it(`is refused an offer at once past its ${maxHeldHoldsPerWidgetToken} holds (422 too_many_holds), the join with it`, async () => {
    const token = await bookingTokenHoldingItsCap(10);
    expect(await json(await join(token, futureSlot(10, 11)), 422)).toMatchObject({ code: 'too_many_holds' });
    expect(await server.prisma.waitlistEntry.count({ where: { createdBy: token } })).toBe(0);
    const slot = await server.prisma.bookingSlot.findUnique({ where: { serviceId_startTime: { serviceId, startTime: new Date(futureSlot(10, 11)) } } });
    expect(slot?.holds ?? []).toEqual([]);
  });

  it(`has at most ${maxOpenWaitlistEntriesPerWidgetToken} waitlist entries open (422 too_many_waitlist_entries), so its visitors cannot use up the account's`, async () => {
    const token = await newBookingToken();
    const full = futureSlot(11);
    await json(await hold(token, full, 4), 201);
    // The token's entries, written straight in (the cap counts rows; their lines do not matter here).
    await server.prisma.waitlistEntry.createMany({
      data: Array.from({ length: maxOpenWaitlistEntriesPerWidgetToken }, () => ({
        id: newId('waitlistEntry'),
        accountId,
        createdBy: token,
        serviceId,
        startTime: new Date(full),
        partySize: 1,
        customerName: customer.name,
        customerEmail: customer.email,
        offerSeconds: 600,
      })),
    });
    expect(await json(await join(token, full), 422)).toMatchObject({ code: 'too_many_waitlist_entries' });
    const { key } = await server.createKey({ accountId });
    const byKey = await fetch(`${server.url}/v1/waitlist_entries`, {
      method: 'POST',
      headers: bearer(key, { 'content-type': 'application/json' }),
      body: JSON.stringify({ service_id: serviceId, start_time: full, party_size: 1, customer }),
    });
    expect(await json(byKey, 201)).toMatchObject({ status: 'waiting' });
    // Once one of them is no longer open, the token joins again.
    const [first] = await server.prisma.waitlistEntry.findMany({ where: { createdBy: token }, take: 1 });
    await server.prisma.waitlistEntry.update({ where: { id: first!.id }, data: { status: 'withdrawn' } });
    expect(await json(await join(token, full), 201)).toMatchObject({ status: 'waiting' });
  });
});

describe('a widget token that may not book', () => {
  it('is refused 403 on POST /v1/holds, naming bookings:book', async () => {
    const refused = await json(await hold(directoryToken, futureSlot(5)), 403);
    expect(refused).toMatchObject({ code: 'insufficient_scope' });
    expect(String(refused['detail'])).toContain('bookings:book');
    expect(await server.prisma.hold.count({ where: { startTime: new Date(futureSlot(5)) } })).toBe(0);
  });

  it('reads a service and its availability, which are public', async () => {
    const day = futureSlot(5).slice(0, 10);
    const body = await json(await call(directoryToken, 'GET', `/v1/services/${serviceId}/availability?start_date=${day}&end_date=${day}`), 200);
    expect(body).toMatchObject({ service_id: serviceId, timezone: 'UTC' });
    expect(body['data']).toEqual(expect.arrayContaining([{ start_time: futureSlot(5), end_time: expect.any(String), capacity: 4, remaining: 4 }]));
    expect(await json(await call(directoryToken, 'GET', `/v1/services/${serviceId}`), 200)).toMatchObject({ id: serviceId, capacity: 4 });
  });

  it('is refused 403 on bookings, holds, waitlists, the events log and webhooks', async () => {
    for (const path of ['/v1/bookings', '/v1/services', '/v1/waitlist_entries', '/v1/booking_events', '/v1/webhook_endpoints']) {
      expect(await json(await call(directoryToken, 'GET', path), 403)).toMatchObject({ code: 'insufficient_scope' });
    }
  });
});
