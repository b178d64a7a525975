import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fastPaths } from '../../src/fast-paths.js';
import { futureSlot, type ApiCall } from '../support/http.js';
import type { TestServer } from '../support/server.js';
import { createService, customer, graphql, startBookingServer } from './fixtures.js';

let server: TestServer;
let call: ApiCall;
let other: ApiCall;
let readOnly: ApiCall;
let serviceId: string;
let statements: string[] = [];

beforeAll(async () => {
  ({ server, call, other, readOnly } = await startBookingServer((sql) => statements.push(sql)));
  serviceId = await createService(server, 2);
});
afterAll(() => server?.close());

const bookingFields = 'id status serviceId startTime customer { name email } createdAt updatedAt cancelledAt service { id capacity }';
const createMutation = `mutation ($input: CreateBookingInput!, $key: String) {
  createBooking(input: $input, idempotencyKey: $key) { replayed booking { ${bookingFields} } }
}`;

async function createBooking(input: Record<string, unknown>, key?: string, as = call) {
  return graphql(as, createMutation, { input, key });
}

describe('GraphQL bookings', () => {
  it('creates a booking, replays it for the same idempotency key, and refuses the key with other input', async () => {
    const input = { serviceId, startTime: futureSlot(5), customer };
    const first = await createBooking(input, 'gql-key-1');
    expect(first.errors).toBeUndefined();
    expect(first.data!['createBooking']).toMatchObject({
      replayed: false,
      booking: { status: 'CONFIRMED', serviceId, startTime: input.startTime, customer, cancelledAt: null, service: { id: serviceId, capacity: 2 } },
    });
    const again = await createBooking(input, 'gql-key-1');
    expect(again.data!['createBooking']).toMatchObject({ replayed: true, booking: { id: first.data!['createBooking'].booking.id } });
    const reused = await createBooking({ ...input, startTime: futureSlot(6) }, 'gql-key-1');
    expect(reused.errors![0]!.extensions.code).toBe('idempotency_key_reused');
  });

  it('replays the first answer, not the booking as updateBooking and cancelBooking left it', async () => {
    const input = { serviceId, startTime: futureSlot(7), customer };
    const first = await createBooking(input, 'gql-key-2');
    expect(first.errors).toBeUndefined();
    const { id } = first.data!['createBooking'].booking;
    const otherService = await createService(server, 3);
    const moved = await graphql(call, `mutation ($id: ID!, $input: UpdateBookingInput!) { updateBooking(id: $id, input: $input) { ${bookingFields} } }`, {
      id,
      input: { serviceId: otherService, startTime: futureSlot(8), customer: { name: 'Ada King' } },
    });
    expect(moved.data!['updateBooking']).toMatchObject({ serviceId: otherService, service: { id: otherService } });
    expect((await graphql(call, 'mutation ($id: ID!) { cancelBooking(id: $id) { status } }', { id })).data!['cancelBooking'].status).toBe('CANCELLED');

    const again = await createBooking(input, 'gql-key-2');
    expect(again.errors).toBeUndefined();
    expect(again.data!['createBooking']).toEqual({ ...first.data!['createBooking'], replayed: true });
    expect(again.data!['createBooking'].booking).toMatchObject({ status: 'CONFIRMED', serviceId, startTime: input.startTime, service: { id: serviceId } });
  });

  it('reports the same field errors as REST, in GraphQL names', async () => {
    // A value the schema's types refuse (a DateTime with an offset) is named before the operation's own rules run.
    const mistyped = { serviceId: 'svc_unknown', startTime: '2027-10-31T19:00:00+01:00', customer: { name: 'Ada', email: 'ada@example.com' } };
    expect((await createBooking(mistyped)).errors![0]!.extensions).toMatchObject({ code: 'validation_failed', errors: [{ field: 'startTime', code: 'invalid' }] });
    const mistypedRest = await call('POST', '/v1/bookings', { service_id: mistyped.serviceId, start_time: mistyped.startTime, customer: mistyped.customer });
    expect(mistypedRest.status).toBe(422);
    expect(mistypedRest.body.errors).toMatchObject([{ field: 'start_time', code: 'invalid' }]);
    expect(mistypedRest.body.errors[0].message).toContain('start_time');

    const input = { serviceId: 'svc_unknown', startTime: futureSlot(4), customer: { name: '', email: 'nope' } };
    const viaGraphql = await createBooking(input);
    expect(viaGraphql.errors![0]!.extensions.code).toBe('validation_failed');
    const graphqlFields = viaGraphql.errors![0]!.extensions.errors!.map((error) => error.field).sort();
    expect(graphqlFields).toEqual(['customer.email', 'customer.name']);

    const viaRest = await call('POST', '/v1/bookings', { service_id: input.serviceId, start_time: input.startTime, customer: input.customer });
    expect(viaRest.status).toBe(422);
    expect(viaRest.body.errors.map((error: { field: string; code: string }) => [error.field, error.code]).sort()).toEqual([
      ['customer.email', 'invalid'],
      ['customer.name', 'too_short'],
    ]);

    const unknownService = await createBooking({ ...input, startTime: futureSlot(5), customer });
    expect(unknownService.errors![0]!.extensions).toMatchObject({ code: 'validation_failed', errors: [{ field: 'serviceId' }] });
    const missing = await createBooking({ serviceId });
    expect(missing.errors![0]!.extensions.errors!.map((error) => error.field).sort()).toEqual(['customer', 'startTime']);
  });

  it('answers slot_full, booking_cancelled and insufficient_scope in extensions.code', async () => {
    const input = { serviceId, startTime: futureSlot(7), customer };
    const first = await createBooking(input);
    await createBooking(input);
    expect((await createBooking(input)).errors![0]!.extensions.code).toBe('slot_full');
    expect((await createBooking({ ...input, startTime: futureSlot(8) }, undefined, readOnly)).errors![0]!.extensions.code).toBe('insufficient_scope');

    const id = first.data!['createBooking'].booking.id;
    const updated = await graphql(call, `mutation ($id: ID!) { updateBooking(id: $id, input: { customer: { email: "ada@lovelace.org" } }) { ${bookingFields} } }`, { id });
    expect(updated.data!['updateBooking'].customer).toEqual({ name: customer.name, email: 'ada@lovelace.org' });
    const cancelled = await graphql(
      call,
      `
        mutation ($id: ID!) {
          cancelBooking(id: $id) {
            status
            cancelledAt
          }
        }
      `,
      { id },
    );
    expect(cancelled.data!['cancelBooking'].status).toBe('CANCELLED');
    const late = await graphql(
      call,
      `
        mutation ($id: ID!) {
          updateBooking(id: $id, input: { customer: { name: "Late" } }) {
            id
          }
        }
      `,
      { id },
    );
    expect(late.errors![0]!.extensions.code).toBe('booking_cancelled');
    // The cancellation freed a place in the slot.
    expect((await createBooking(input)).errors).toBeUndefined();
  });

  it('lists bookings as a connection filtered by UTC days, status and service', async () => {
    const ownService = await createService(server, 5);
    const day = futureSlot(9).slice(0, 10);
    const ids: string[] = [];
    for (const time of ['00:00:00', '12:15:00', '23:55:00']) {
      ids.push((await createBooking({ serviceId: ownService, startTime: `${day}T${time}Z`, customer })).data!['createBooking'].booking.id);
    }
    await graphql(
      call,
      `
        mutation ($id: ID!) {
          cancelBooking(id: $id) {
            id
          }
        }
      `,
      { id: ids[1] },
    );
    const query = `query ($start: Date, $end: Date, $status: BookingStatus, $service: ID, $first: Int, $after: String) {
      bookings(startDate: $start, endDate: $end, status: $status, serviceId: $service, first: $first, after: $after) {
        edges { cursor node { id status startTime } } pageInfo { hasNextPage endCursor }
      }
    }`;
    const all = await graphql(call, query, { start: day, end: day, service: ownService });
    expect(all.data!['bookings'].edges.map((edge: { node: { id: string } }) => edge.node.id)).toEqual(ids);
    const confirmed = await graphql(call, query, { start: day, end: day, service: ownService, status: 'CONFIRMED' });
    expect(confirmed.data!['bookings'].edges.map((edge: { node: { id: string } }) => edge.node.id)).toEqual([ids[0], ids[2]]);
    const firstPage = await graphql(call, query, { start: day, end: day, service: ownService, first: 2 });
    expect(firstPage.data!['bookings'].pageInfo.hasNextPage).toBe(true);
    const secondPage = await graphql(call, query, { start: day, end: day, service: ownService, first: 2, after: firstPage.data!['bookings'].pageInfo.endCursor });
    expect(secondPage.data!['bookings'].edges.map((edge: { node: { id: string } }) => edge.node.id)).toEqual([ids[2]]);
    const nextDay = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    expect((await graphql(call, query, { start: nextDay, end: nextDay, service: ownService })).data!['bookings'].edges).toEqual([]);
    const backwards = await graphql(call, query, { start: nextDay, end: day });
    expect(backwards.errors![0]!.extensions.code).toBe('invalid_parameter');
  });

  it('answers a repeated read from the answer it kept until a booking of the account changes, on GraphQL and REST', async () => {
    const ownService = await createService(server, 5);
    const day = futureSlot(11).slice(0, 10);
    const query = `query ($day: Date, $service: ID) { bookings(startDate: $day, endDate: $day, serviceId: $service) { edges { node { id status customer { name } } } } }`;
    const listed = async () =>
      (await graphql(call, query, { day, service: ownService })).data!['bookings'].edges.map(
        (edge: { node: { id: string; status: string; customer: { name: string } } }) => edge.node,
      );
    const restPath = `/v1/bookings?start_date=${day}&end_date=${day}&service_id=${ownService}`;
    const restListed = async () => (await call('GET', restPath)).body.data.map((booking: { id: string; status: string }) => [booking.id, booking.status]);
    /** Statements on the bookings table while `work` runs: 0 when the answer was kept. */
    const keptRead = fastPaths['response-cache'] ? 0 : 1;
    const bookingReads = async (work: () => Promise<unknown>) => {
      statements = [];
      await work();
      return statements.filter((sql) => /FROM ("public"\.)?"bookings"/.test(sql)).length;
    };

    expect(await listed()).toEqual([]);
    expect(await restListed()).toEqual([]);
    // Both surfaces keep an answer from the second time it is asked for.
    for (const read of [listed, restListed]) {
      expect(await bookingReads(read)).toBe(1);
      expect(await bookingReads(read)).toBe(keptRead);
    }

    const created = await call('POST', '/v1/bookings', { service_id: ownService, start_time: `${day}T20:00:00Z`, customer });
    expect(await bookingReads(listed)).toBe(1);
    expect(await listed()).toEqual([{ id: created.body.id, status: 'CONFIRMED', customer: { name: customer.name } }]);
    expect(await restListed()).toEqual([[created.body.id, 'confirmed']]);

    await call('PATCH', `/v1/bookings/${created.body.id}`, { customer: { name: 'Grace Hopper' } });
    expect((await listed())[0].customer.name).toBe('Grace Hopper');
    await call('DELETE', `/v1/bookings/${created.body.id}`);
    // A query asked for before is kept at its first run under the new data version.
    expect(await bookingReads(async () => expect((await listed())[0].status).toBe('CANCELLED'))).toBe(1);
    expect(await restListed()).toEqual([[created.body.id, 'cancelled']]);
    expect(await bookingReads(listed)).toBe(keptRead);

    // Another account's key never gets this account's cached response.
    expect((await graphql(other, query, { day, service: ownService })).data!['bookings'].edges).toEqual([]);
  });

  it('lists bookings over REST in one statement, Last-Modified read with the list; the data version joins it from the second time', async () => {
    const ownService = await createService(server, 5);
    const day = futureSlot(44).slice(0, 10);
    const created = await call('POST', '/v1/bookings', { service_id: ownService, start_time: `${day}T19:00:00Z`, customer });
    const changed = await call('PATCH', `/v1/bookings/${created.body.id}`, { customer: { name: 'Renamed' } });
    // The newest change of the account dates every list of it, to the second HTTP dates keep.
    const lastModified = new Date(changed.body.updated_at).toUTCString();
    const list = async (path: string) => {
      statements = [];
      const listed = await call('GET', path);
      expect(listed.headers.get('last-modified')).toBe(lastModified);
      return {
        ids: listed.body.data.map((booking: { id: string }) => booking.id),
        statements: statements.filter((sql) => /booking_events|"bookings"|directory_version/.test(sql)).length,
      };
    };
    const path = `/v1/bookings?start_date=${day}&end_date=${day}&service_id=${ownService}`;
    // Without the direct reads (HALLOWGATE_FAST_PATHS), Prisma reads the list and the log position on its own.
    const listed = fastPaths['direct-reads'] ? 1 : 2;
    expect(await list(path)).toEqual({ ids: [created.body.id], statements: listed });
    // Asked again: the data version (which Last-Modified shares), then the list, which is kept; nothing kept without the response cache.
    const keeps = fastPaths['response-cache'];
    expect(await list(path)).toEqual({ ids: [created.body.id], statements: keeps ? 2 : listed });
    expect(await list(path)).toEqual({ ids: [created.body.id], statements: keeps ? 1 : listed });
    // An empty list brings no log position with it: it is read on its own.
    expect(await list(`/v1/bookings?start_date=${day}&end_date=${day}&status=cancelled`)).toEqual({ ids: [], statements: 2 });
  });

  it('serves services, service(id) and node for services and own bookings', async () => {
    const services = await graphql(call, '{ services(first: 2) { edges { node { id name attractionId durationMinutes capacity } } } }');
    const first = services.data!['services'].edges[0].node;
    expect(first.id).toMatch(/^svc_/);
    expect((await graphql(call, 'query ($id: ID!) { service(id: $id) { name } }', { id: first.id })).data!['service'].name).toBe(first.name);
    expect((await graphql(call, '{ service(id: "svc_nothing") { id } }')).errors![0]!.extensions.code).toBe('not_found');
    const booking = (await createBooking({ serviceId, startTime: futureSlot(10), customer })).data!['createBooking'].booking;
    const nodes = await graphql(call, 'query ($a: ID!, $b: ID!) { a: node(id: $a) { __typename id } b: node(id: $b) { __typename id ... on Booking { status } } }', {
      a: first.id,
      b: booking.id,
    });
    expect(nodes.data).toEqual({ a: { __typename: 'Service', id: first.id }, b: { __typename: 'Booking', id: booking.id, status: 'CONFIRMED' } });
  });

  it("keeps another account's bookings out of reach: not_found, null node, absent from lists and events", async () => {
    const booking = (await createBooking({ serviceId, startTime: futureSlot(11), customer })).data!['createBooking'].booking;
    const variables = { id: booking.id };
    const read = await graphql(other, 'query ($id: ID!) { booking(id: $id) { id } }', variables);
    expect(read.errors![0]!.extensions.code).toBe('not_found');
    expect((await graphql(other, 'query ($id: ID!) { node(id: $id) { id } }', variables)).data!['node']).toBeNull();
    const update = await graphql(other, 'mutation ($id: ID!) { updateBooking(id: $id, input: { customer: { name: "Mallory" } }) { id } }', variables);
    expect(update.errors![0]!.extensions.code).toBe('not_found');
    const cancel = await graphql(other, 'mutation ($id: ID!) { cancelBooking(id: $id) { id } }', variables);
    expect(cancel.errors![0]!.extensions.code).toBe('not_found');
    const lists = await graphql(other, '{ bookings(first: 100) { edges { node { id } } } bookingEvents(first: 100) { edges { node { data } } } }');
    expect(lists.data!['bookings'].edges).toEqual([]);
    expect(lists.data!['bookingEvents'].edges).toEqual([]);
    const own = await graphql(call, 'query ($id: ID!) { booking(id: $id) { status customer { name } } }', variables);
    expect(own.data!['booking']).toEqual({ status: 'CONFIRMED', customer: { name: customer.name } });
  });
});
