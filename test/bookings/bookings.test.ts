import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, futureSlot, type ApiCall } from '../support/http.js';
import type { TestServer } from '../support/server.js';
import { createService, customer, startBookingServer } from './fixtures.js';
import { openService } from '../support/bookable.js';

let server: TestServer;
let call: ApiCall;
let other: ApiCall;
let readOnly: ApiCall;
let accountId: string;
let serviceId: string;

beforeAll(async () => {
  ({ server, call, other, readOnly, accountId } = await startBookingServer());
  serviceId = await openService(server.prisma);
});
afterAll(() => server?.close());

describe('POST /v1/bookings', () => {
  it('creates a confirmed booking with 201 and Location, and logs booking.created', async () => {
    const startTime = futureSlot(10);
    const created = await call('POST', '/v1/bookings', { service_id: serviceId, start_time: startTime, customer });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${server.url}/v1/bookings/${created.body.id}`);
    expect(created.body).toMatchObject({ status: 'confirmed', service_id: serviceId, start_time: startTime, customer, cancelled_at: null });
    expect(created.body.id).toMatch(/^bk_/);
    expect(created.body.created_at).toMatch(/Z$/);

    const events = await call('GET', '/v1/booking_events');
    const logged = events.body.data.find((event: { data: { id: string } }) => event.data.id === created.body.id);
    expect(logged).toMatchObject({ event: 'booking.created', data: { id: created.body.id, status: 'confirmed', start_time: startTime } });
    expect(logged.id).toMatch(/^msg_/);
  });

  it.each([
    ['a missing field', { service_id: 'svc_x', customer }, 'start_time'],
    ['an unknown service', { service_id: 'svc_doesnotexist', start_time: futureSlot(3), customer }, 'service_id'],
    ['a malformed email', { service_id: 'svc_x', start_time: futureSlot(3), customer: { name: 'A', email: 'nope' } }, 'customer.email'],
    ['an offset instead of Z', { service_id: 'svc_x', start_time: '2027-10-31T19:00:00+02:00', customer }, 'start_time'],
    ['an impossible date', { service_id: 'svc_x', start_time: '2027-02-30T19:00:00Z', customer }, 'start_time'],
    ['the far past', { service_id: 'svc_x', start_time: '1999-10-31T19:00:00Z', customer }, 'start_time'],
    ['a wrong type', { service_id: 42, start_time: futureSlot(3), customer }, 'service_id'],
  ])('rejects %s with 422 and a field error', async (_label, body, field) => {
    const response = await call('POST', '/v1/bookings', { ...body, service_id: body.service_id === 'svc_x' ? serviceId : body.service_id });
    expect(response.status).toBe(422);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(response.body.code).toBe('validation_failed');
    expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
  });

  it('answers bad bodies with 400, 415 and 413', async () => {
    expect((await call('POST', '/v1/bookings', '{"service_id":')).body.code).toBe('invalid_json');
    const text = await fetch(`${server.url}/v1/bookings`, {
      method: 'POST',
      headers: { authorization: (await server.createKey()).key.replace(/^/, 'Bearer '), 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect(text.status).toBe(415);
    const huge = await call('POST', '/v1/bookings', { service_id: serviceId, customer: { name: 'x'.repeat(2_000_000), email: 'a@b.co' } });
    expect(huge.status).toBe(413);
    expect(huge.body.code).toBe('payload_too_large');
  });

  it('answers a key with bookings:write but not bookings:read the booking it wrote, and nothing else', async () => {
    const writeOnly = apiClient(server.url, (await server.createKey({ accountId, scopes: ['bookings:write'] })).key);
    const created = await writeOnly('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(6), customer });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'confirmed', customer });
    const changed = await writeOnly('PATCH', `/v1/bookings/${created.body.id}`, { customer: { name: 'Renamed' } });
    expect(changed.status).toBe(200);
    expect((await writeOnly('DELETE', `/v1/bookings/${created.body.id}`)).body.status).toBe('cancelled');
    expect((await writeOnly('GET', `/v1/bookings/${created.body.id}`)).status).toBe(403);
  });

  it('refuses a key without bookings:write with 403 insufficient_scope', async () => {
    const response = await readOnly('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(4), customer });
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('insufficient_scope');
  });
});

describe('capacity', () => {
  it('gives 409 slot_full once a slot holds capacity confirmed bookings, and frees a place on cancel', async () => {
    const slot = { service_id: await createService(server, 2), start_time: futureSlot(20), customer };
    const first = await call('POST', '/v1/bookings', slot);
    expect((await call('POST', '/v1/bookings', slot)).status).toBe(201);
    const full = await call('POST', '/v1/bookings', slot);
    expect(full.status).toBe(409);
    expect(full.body.code).toBe('slot_full');
    expect((await call('DELETE', `/v1/bookings/${first.body.id}`)).status).toBe(200);
    expect((await call('POST', '/v1/bookings', slot)).status).toBe(201);
  });
});

describe('Idempotency-Key', () => {
  it('replays the first response for the same body and refuses another body', async () => {
    const body = { service_id: serviceId, start_time: futureSlot(11), customer };
    const headers = { 'idempotency-key': 'order-4711' };
    const first = await call('POST', '/v1/bookings', body, headers);
    const again = await call('POST', '/v1/bookings', body, headers);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const reused = await call('POST', '/v1/bookings', { ...body, start_time: futureSlot(12) }, headers);
    expect(reused.status).toBe(422);
    expect(reused.body.code).toBe('idempotency_key_reused');
    const events = await server.prisma.bookingEvent.count({ where: { bookingId: first.body.id } });
    expect(events).toBe(1);
  });

  it('replays the first answer, not the booking as a PATCH and a cancel left it', async () => {
    const body = { service_id: await createService(server, 5), start_time: futureSlot(15), customer };
    const headers = { 'idempotency-key': 'order-4712' };
    const first = await call('POST', '/v1/bookings', body, headers);
    expect(first.status).toBe(201);
    const moved = await call('PATCH', `/v1/bookings/${first.body.id}`, { start_time: futureSlot(16), customer: { name: 'Ada King' } });
    expect(moved.body.start_time).toBe(futureSlot(16));
    expect((await call('DELETE', `/v1/bookings/${first.body.id}`)).body.status).toBe('cancelled');

    const replay = await call('POST', '/v1/bookings', body, headers);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('location')).toBe(first.headers.get('location'));
    expect(replay.body).toEqual(first.body);
    expect(replay.body).toMatchObject({ status: 'confirmed', start_time: futureSlot(15), customer, cancelled_at: null });
  });

  it('makes one booking from concurrent retries with one key', async () => {
    const body = { service_id: serviceId, start_time: futureSlot(13), customer };
    const responses = await Promise.all(Array.from({ length: 8 }, () => call('POST', '/v1/bookings', body, { 'idempotency-key': 'retry-storm' })));
    const ids = new Set(responses.filter((response) => response.status === 201).map((response) => response.body.id));
    expect(ids.size).toBe(1);
    for (const response of responses) expect([201, 409]).toContain(response.status);
  });
});

describe('reading, changing and cancelling', () => {
  it('gets, patches (logging booking.updated only on change) and cancels (idempotently)', async () => {
    const created = await call('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(14), customer });
    const id = created.body.id;
    const got = await call('GET', `/v1/bookings/${id}`);
    expect(got.status).toBe(200);
    expect(got.headers.get('etag')).toMatch(/^"/);
    const notModified = await call('GET', `/v1/bookings/${id}`, undefined, { 'if-none-match': got.headers.get('etag')! });
    expect(notModified.status).toBe(304);
    expect(notModified.body).toBeUndefined();

    const renamed = await call('PATCH', `/v1/bookings/${id}`, { customer: { name: 'Ada King' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.customer).toEqual({ name: 'Ada King', email: customer.email });
    const unchanged = await call('PATCH', `/v1/bookings/${id}`, { customer: { name: 'Ada King' } });
    expect(unchanged.status).toBe(200);

    const cancelled = await call('DELETE', `/v1/bookings/${id}`);
    expect(cancelled.body).toMatchObject({ id, status: 'cancelled' });
    expect(cancelled.body.cancelled_at).toMatch(/Z$/);
    expect((await call('DELETE', `/v1/bookings/${id}`)).status).toBe(200);
    const patchCancelled = await call('PATCH', `/v1/bookings/${id}`, { customer: { name: 'Late' } });
    expect(patchCancelled.status).toBe(409);
    expect(patchCancelled.body.code).toBe('booking_cancelled');

    const log = await server.prisma.bookingEvent.findMany({ where: { bookingId: id }, orderBy: { seq: 'asc' } });
    expect(log.map((event) => event.type)).toEqual(['booking.created', 'booking.updated', 'booking.cancelled']);
  });

  it('keeps accounts apart: another account sees 404 on every route and null from node', async () => {
    const created = await call('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(15), customer });
    const id = created.body.id;
    for (const [method, body] of [['GET'], ['PATCH', { customer: { name: 'Mallory' } }], ['DELETE']] as const) {
      const response = await other(method, `/v1/bookings/${id}`, body);
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('not_found');
    }
    const listed = await other('GET', '/v1/bookings');
    expect(listed.body.data.map((booking: { id: string }) => booking.id)).not.toContain(id);
    const graphql = await other('POST', '/graphql', { query: `{ node(id: "${id}") { id } booking(id: "${id}") { id } }` });
    expect(graphql.body.data?.node ?? null).toBeNull();
    expect(graphql.body.errors[0].extensions.code).toBe('not_found');
    expect((await call('GET', `/v1/bookings/${id}`)).body.customer.name).toBe('Ada Lovelace');
  });

  it('lists by inclusive UTC days, filters, pages with cursor and Link, and rejects bad parameters', async () => {
    const day = futureSlot(30, 0).slice(0, 10);
    for (const hour of [0, 12, 23]) {
      await call('POST', '/v1/bookings', { service_id: serviceId, start_time: `${day}T${String(hour).padStart(2, '0')}:30:00Z`, customer });
    }
    const page1 = await call('GET', `/v1/bookings?start_date=${day}&end_date=${day}&limit=2`);
    expect(page1.status).toBe(200);
    expect(page1.body.data).toHaveLength(2);
    expect(page1.body.has_more).toBe(true);
    expect(page1.headers.get('link')).toContain('rel="next"');
    const lastModified = page1.headers.get('last-modified')!;
    expect(Date.parse(lastModified)).toBeGreaterThan(Date.now() - 60_000);
    const unchanged = await call('GET', `/v1/bookings?start_date=${day}&end_date=${day}&limit=2`, undefined, { 'if-modified-since': lastModified });
    expect(unchanged.status).toBe(304);
    const page2 = await call('GET', `/v1/bookings?start_date=${day}&end_date=${day}&limit=2&cursor=${encodeURIComponent(page1.body.next_cursor)}`);
    expect(page2.body.data).toHaveLength(1);
    expect(page2.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(page2.body.data[0].start_time).toBe(`${day}T23:30:00Z`);

    for (const query of ['start_date=2027-13-01', 'limit=0', 'limit=101', 'limit=abc', 'status=pending', `start_date=${day}&end_date=2020-01-01`]) {
      const response = await call('GET', `/v1/bookings?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.code).toBe('invalid_parameter');
    }
  });

  it('answers 405 with Allow for a wrong method', async () => {
    const response = await call('PUT', '/v1/bookings');
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toContain('POST');
  });

  it('lists services and one service', async () => {
    const list = await call('GET', '/v1/services?limit=3');
    expect(list.body.data).toHaveLength(3);
    expect(list.body.data[0]).toHaveProperty('duration_minutes');
    expect((await call('GET', `/v1/services/${list.body.data[0].id}`)).body.capacity).toBeGreaterThan(0);
    expect((await call('GET', '/v1/services/svc_nope')).status).toBe(404);
  });
});
