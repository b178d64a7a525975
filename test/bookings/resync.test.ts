import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { futureSlot, type ApiCall } from '../support/http.js';
import type { TestServer } from '../support/server.js';
import { createService, customer, graphql, startBookingServer } from './fixtures.js';

let server: TestServer;
let call: ApiCall;
let serviceId: string;

beforeAll(async () => {
  ({ server, call } = await startBookingServer());
  serviceId = await createService(server, 50);
});
afterAll(() => server?.close());

async function book(days: number, hour = 19): Promise<{ id: string; updated_at: string; created_at: string }> {
  const response = await call('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(days, hour), customer });
  expect(response.status).toBe(201);
  return response.body;
}

/** Every id of a list, following next_cursor from `path`. */
async function allPages(path: string): Promise<string[]> {
  const ids: string[] = [];
  let next: string | null = path;
  while (next) {
    const response = await call('GET', next);
    expect(response.status).toBe(200);
    ids.push(...response.body.data.map((booking: { id: string }) => booking.id));
    next = response.body.next_cursor ? `${path}&cursor=${encodeURIComponent(response.body.next_cursor)}` : null;
  }
  return ids;
}

describe('GET /v1/bookings?updated_since=', () => {
  it('lists the bookings changed since, by updated_at then id, across pages', async () => {
    // Booked later in the year first, so start_time order and update order differ.
    const [late, early, middle] = [await book(120), await book(110), await book(115)];
    const since = late.updated_at;
    await call('PATCH', `/v1/bookings/${late.id}`, { party_size: 2 });
    const ids = await allPages(`/v1/bookings?updated_since=${since}&service_id=${serviceId}&limit=1`);
    expect(ids).toEqual([early.id, middle.id, late.id]);

    const listed = (await call('GET', `/v1/bookings?updated_since=${since}&service_id=${serviceId}&limit=100`)).body.data as { id: string; updated_at: string }[];
    const keys = listed.map((booking) => `${booking.updated_at}|${booking.id}`);
    expect(keys).toEqual([...keys].sort());
    expect((await call('GET', `/v1/bookings?updated_since=${futureSlot(1)}&service_id=${serviceId}`)).body.data).toEqual([]);
  });

  it('keeps its place when the row a cursor names changes between pages', async () => {
    const service = await createService(server, 5);
    const booked = [];
    for (const days of [130, 131, 132]) {
      const response = await call('POST', '/v1/bookings', { service_id: service, start_time: futureSlot(days), customer });
      booked.push(response.body.id as string);
    }
    const path = `/v1/bookings?updated_since=2000-01-01T00:00:00Z&service_id=${service}&limit=1`;
    const first = await call('GET', path);
    expect(first.body.data[0].id).toBe(booked[0]);
    // The first row moves to the end of the update order; the rows after the cursor are still all listed.
    await call('PATCH', `/v1/bookings/${booked[0]}`, { party_size: 2 });
    const rest = await call('GET', `${path.replace('limit=1', 'limit=10')}&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(rest.body.data.map((booking: { id: string }) => booking.id)).toEqual([booked[1], booked[2], booked[0]]);
  });

  it('refuses a cursor made in the other order with 400 invalid_parameter naming cursor', async () => {
    await book(140);
    await book(141);
    const byStart = await call('GET', `/v1/bookings?service_id=${serviceId}&limit=1`);
    const byUpdate = await call('GET', `/v1/bookings?service_id=${serviceId}&updated_since=2000-01-01T00:00:00Z&limit=1`);
    for (const [path, cursor] of [
      [`/v1/bookings?service_id=${serviceId}&updated_since=2000-01-01T00:00:00Z`, byStart.body.next_cursor],
      [`/v1/bookings?service_id=${serviceId}`, byUpdate.body.next_cursor],
    ]) {
      const response = await call('GET', `${path}&cursor=${encodeURIComponent(cursor)}`);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 'invalid_parameter', errors: [{ field: 'cursor' }] });
      expect(response.body.detail).toMatch(/updated_since/);
    }
  });
});

describe('GET /v1/bookings?created_since=', () => {
  it('lists the bookings created since, by start time unless updated_since is given', async () => {
    const service = await createService(server, 5);
    const bookIn = async (days: number) => (await call('POST', '/v1/bookings', { service_id: service, start_time: futureSlot(days), customer })).body;
    const old = await bookIn(150);
    const later = await bookIn(152);
    const earlier = await bookIn(151);
    const response = await call('GET', `/v1/bookings?service_id=${service}&created_since=${later.created_at}`);
    expect(response.body.data.map((booking: { id: string }) => booking.id)).toEqual([earlier.id, later.id]);
    expect(response.body.data.map((booking: { id: string }) => booking.id)).not.toContain(old.id);
  });

  it('refuses a malformed timestamp with 400 invalid_parameter naming it', async () => {
    for (const parameter of ['updated_since', 'created_since']) {
      for (const value of ['yesterday', '2026-13-01T00:00:00Z', '2026-10-01']) {
        const response = await call('GET', `/v1/bookings?${parameter}=${value}`);
        expect({ parameter, value, status: response.status }).toEqual({ parameter, value, status: 400 });
        expect(response.body).toMatchObject({ code: 'invalid_parameter', errors: [{ field: parameter }] });
      }
    }
  });
});

describe('GraphQL bookings(updatedSince:, createdSince:)', () => {
  const query = `query ($since: DateTime, $created: DateTime, $service: ID, $after: String) {
    bookings(updatedSince: $since, createdSince: $created, serviceId: $service, first: 1, after: $after) {
      edges { node { id updatedAt } } pageInfo { hasNextPage endCursor }
    }
  }`;

  it('pages by updatedAt, and refuses a cursor of the other order with invalid_parameter on after', async () => {
    const service = await createService(server, 5);
    const ids: string[] = [];
    for (const days of [162, 160, 161]) ids.push((await call('POST', '/v1/bookings', { service_id: service, start_time: futureSlot(days), customer })).body.id);
    const seen: string[] = [];
    let after: string | null = null;
    do {
      const answer = await graphql(call, query, { since: '2000-01-01T00:00:00Z', service, after });
      expect(answer.errors).toBeUndefined();
      const page = answer.data!['bookings'];
      seen.push(...page.edges.map((edge: { node: { id: string } }) => edge.node.id));
      after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
    } while (after);
    expect(seen).toEqual(ids);

    const created = await graphql(call, query.replace('first: 1', 'first: 10'), { created: '2000-01-01T00:00:00Z', service });
    expect(created.data!['bookings'].edges.map((edge: { node: { id: string } }) => edge.node.id)).toEqual([ids[1], ids[2], ids[0]]);

    const byStart = (await graphql(call, query, { service })).data!['bookings'].pageInfo.endCursor;
    const refused = await graphql(call, query, { since: '2000-01-01T00:00:00Z', service, after: byStart });
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_parameter', errors: [{ field: 'after' }] });
  });

  it('takes after and before together: only the bookings between the two cursors', async () => {
    const service = await createService(server, 5);
    const ids: string[] = [];
    for (const days of [170, 171, 172, 173]) ids.push((await call('POST', '/v1/bookings', { service_id: service, start_time: futureSlot(days), customer })).body.id);
    const between = `query ($service: ID, $after: String, $before: String) {
      bookings(serviceId: $service, first: 10, after: $after, before: $before) { edges { cursor node { id } } }
    }`;
    const edges = (await graphql(call, between, { service })).data!['bookings'].edges as { cursor: string; node: { id: string } }[];
    expect(edges.map((edge) => edge.node.id)).toEqual(ids);
    const answer = await graphql(call, between, { service, after: edges[0]!.cursor, before: edges[3]!.cursor });
    expect(answer.errors).toBeUndefined();
    expect(answer.data!['bookings'].edges.map((edge: { node: { id: string } }) => edge.node.id)).toEqual([ids[1], ids[2]]);
  });
});

describe('forged keyset cursors', () => {
  it('answer 200 or 400, never 5xx, whatever time they name', async () => {
    const id = (await book(175)).id;
    for (const milliseconds of ['999999999999999', '-999999999999999', '-62198755200001', '-62135596800000', '253402300799999', '253402300800000', '0']) {
      for (const order of ['start_time', 'updated_at']) {
        const cursor = encodeURIComponent(`HGK:${order}:${milliseconds}:${id}`);
        const since = order === 'updated_at' ? '&updated_since=2000-01-01T00:00:00Z' : '';
        const response = await call('GET', `/v1/bookings?cursor=${cursor}${since}`);
        expect({ milliseconds, order, status: response.status }).toEqual({ milliseconds, order, status: response.status < 500 ? response.status : 'a 4xx' });
      }
    }
  });
});
