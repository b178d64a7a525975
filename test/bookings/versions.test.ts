import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, futureSlot, type ApiCall } from '../support/http.js';
import type { TestServer } from '../support/server.js';
import { createService, customer, graphql, startBookingServer } from './fixtures.js';

let server: TestServer;
let call: ApiCall;
let serviceId: string;

beforeAll(async () => {
  ({ server, call } = await startBookingServer());
  serviceId = await createService(server, 20);
});
afterAll(() => server?.close());

async function book(days: number): Promise<string> {
  const response = await call('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(days), customer });
  expect(response.status).toBe(201);
  return response.body.id as string;
}

const etagOf = async (id: string) => (await call('GET', `/v1/bookings/${id}`)).headers.get('etag')!;
const eventsOf = (id: string) => server.prisma.bookingEvent.count({ where: { bookingId: id } });

function expectPreconditionFailed(response: Awaited<ReturnType<ApiCall>>) {
  expect(response.status).toBe(412);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(response.body).toMatchObject({ status: 412, code: 'precondition_failed' });
}

describe('If-Match on PATCH and DELETE /v1/bookings/{id}', () => {
  it("takes the ETag a GET answers, and Booking.version is that ETag's opaque value", async () => {
    const id = await book(80);
    const tag = await etagOf(id);
    expect(tag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const answer = await graphql(call, 'query ($id: ID!) { booking(id: $id) { version } }', { id });
    expect(`"${answer.data!['booking'].version}"`).toBe(tag);

    const updated = await call('PATCH', `/v1/bookings/${id}`, { party_size: 2 }, { 'if-match': tag });
    expect(updated.status).toBe(200);
    expect(await etagOf(id)).not.toBe(tag);
  });

  it('answers a PATCH with the ETag a GET then answers, good for the next If-Match', async () => {
    const id = await book(79);
    const updated = await call('PATCH', `/v1/bookings/${id}`, { party_size: 2 });
    expect(updated.status).toBe(200);
    const tag = updated.headers.get('etag');
    expect(tag).toBe(await etagOf(id));
    const again = await call('PATCH', `/v1/bookings/${id}`, { party_size: 3 }, { 'if-match': tag! });
    expect(again.status).toBe(200);
    expect(again.headers.get('etag')).not.toBe(tag);
    expect(again.headers.get('etag')).toBe(await etagOf(id));
  });

  it('refuses a stale ETag with 412 precondition_failed and changes nothing', async () => {
    const id = await book(81);
    const stale = await etagOf(id);
    expect((await call('PATCH', `/v1/bookings/${id}`, { customer: { name: 'Moved On' } })).status).toBe(200);
    const before = { booking: (await call('GET', `/v1/bookings/${id}`)).body, events: await eventsOf(id) };

    expectPreconditionFailed(await call('PATCH', `/v1/bookings/${id}`, { party_size: 3 }, { 'if-match': stale }));
    expectPreconditionFailed(await call('DELETE', `/v1/bookings/${id}`, undefined, { 'if-match': stale }));
    // If-Match compares strongly: a weak tag never matches, even the current one.
    expectPreconditionFailed(await call('PATCH', `/v1/bookings/${id}`, { party_size: 3 }, { 'if-match': `W/${await etagOf(id)}` }));

    expect((await call('GET', `/v1/bookings/${id}`)).body).toEqual(before.booking);
    expect(await eventsOf(id)).toBe(before.events);
  });

  it('matches any existing booking with *, and one of a list of tags', async () => {
    const id = await book(82);
    expect((await call('PATCH', `/v1/bookings/${id}`, { party_size: 2 }, { 'if-match': '*' })).status).toBe(200);
    const current = await etagOf(id);
    expect((await call('PATCH', `/v1/bookings/${id}`, { party_size: 3 }, { 'if-match': `"stale", ${current}` })).status).toBe(200);
    expect((await call('DELETE', `/v1/bookings/${id}`, undefined, { 'if-match': await etagOf(id) })).status).toBe(200);
    expect((await call('PATCH', '/v1/bookings/bk_doesnotexist', { party_size: 2 }, { 'if-match': '*' })).status).toBe(404);
  });

  it('lets exactly one of two concurrent PATCHes with the same ETag through', async () => {
    for (let round = 0; round < 5; round++) {
      const id = await book(83 + round);
      const tag = await etagOf(id);
      const answers = await Promise.all([2, 3].map((partySize) => call('PATCH', `/v1/bookings/${id}`, { party_size: partySize }, { 'if-match': tag })));
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 412]);
      const winner = answers.find((answer) => answer.status === 200)!;
      // The loser changed nothing: the booking is the winner's, with one update logged.
      expect((await call('GET', `/v1/bookings/${id}`)).body).toEqual(winner.body);
      expect(await server.prisma.bookingEvent.count({ where: { bookingId: id, type: 'booking.updated' } })).toBe(1);
    }
  });

  it('lets exactly one of a concurrent PATCH and DELETE with the same ETag through', async () => {
    const id = await book(90);
    const tag = await etagOf(id);
    const [patched, deleted] = await Promise.all([
      call('PATCH', `/v1/bookings/${id}`, { party_size: 2 }, { 'if-match': tag }),
      call('DELETE', `/v1/bookings/${id}`, undefined, { 'if-match': tag }),
    ]);
    expect([patched.status, deleted.status].sort()).toEqual([200, 412]);
  });
});

describe('version on the GraphQL writes', () => {
  const update = 'mutation ($id: ID!, $version: String) { updateBooking(id: $id, input: { partySize: 2 }, version: $version) { partySize version } }';
  const cancel = 'mutation ($id: ID!, $version: String) { cancelBooking(id: $id, version: $version) { status version } }';

  it('changes the booking at that version, and refuses an older one with precondition_failed', async () => {
    const id = await book(91);
    const { version } = (await graphql(call, 'query ($id: ID!) { booking(id: $id) { version } }', { id })).data!['booking'];
    const updated = await graphql(call, update, { id, version });
    expect(updated.errors).toBeUndefined();
    expect(updated.data!['updateBooking'].version).not.toBe(version);

    for (const query of [update, cancel]) {
      const refused = await graphql(call, query, { id, version });
      expect(refused.errors?.[0]?.extensions.code).toBe('precondition_failed');
    }
    expect((await call('GET', `/v1/bookings/${id}`)).body.status).toBe('confirmed');

    const cancelled = await graphql(call, cancel, { id, version: updated.data!['updateBooking'].version });
    expect(cancelled.data!['cancelBooking'].status).toBe('CANCELLED');
  });

  it('applies no condition without version', async () => {
    const id = await book(92);
    expect((await graphql(call, update, { id })).data!['updateBooking'].partySize).toBe(2);
  });
});

describe('a booking changed by a request without If-Match', () => {
  it('still has an ETag that moves with it', async () => {
    const id = await book(93);
    const first = await etagOf(id);
    await call('PATCH', `/v1/bookings/${id}`, { customer: { email: 'new@example.com' } });
    const second = await etagOf(id);
    expect(second).not.toBe(first);
    // Another key of the same account reads the same representation, so the same tag.
    const sameAccount = apiClient(
      server.url,
      (await server.createKey({ accountId: (await server.prisma.booking.findUniqueOrThrow({ where: { id } })).accountId, scopes: ['bookings:read'] })).key,
    );
    expect((await sameAccount('GET', `/v1/bookings/${id}`)).headers.get('etag')).toBe(second);
  });
});
