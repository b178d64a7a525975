import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, futureSlot, type ApiCall } from '../support/http.js';
import type { TestServer } from '../support/server.js';
import { confirmedCounts, createService, customer, startBookingServer } from './fixtures.js';

let server: TestServer;
let call: ApiCall;
let other: ApiCall;
let accountId: string;

beforeAll(async () => {
  ({ server, call, other, accountId } = await startBookingServer());
});
afterAll(() => server?.close());

const eventCount = () => server.prisma.bookingEvent.count({ where: { accountId } });

async function book(serviceId: string, startTime: string, as = call) {
  const response = await as('POST', '/v1/bookings', { service_id: serviceId, start_time: startTime, customer });
  expect(response.status).toBe(201);
  return response.body.id as string;
}

describe('GET /v1/booking_events', () => {
  it('lists the account’s events oldest first, after an event, in pages with Link', async () => {
    const serviceId = await createService(server, 5);
    const id = await book(serviceId, futureSlot(3));
    await call('PATCH', `/v1/bookings/${id}`, { start_time: futureSlot(4) });
    await call('DELETE', `/v1/bookings/${id}`);
    await book(serviceId, futureSlot(3), other);

    const all = await call('GET', '/v1/booking_events?limit=100');
    expect(all.status).toBe(200);
    expect(all.headers.get('etag')).toMatch(/^"/);
    const mine = all.body.data.filter((event: { data: { id: string } }) => event.data.id === id);
    expect(mine.map((event: { event: string }) => event.event)).toEqual(['booking.created', 'booking.updated', 'booking.cancelled']);
    expect(mine[1]).toMatchObject({ data: { id, status: 'confirmed', start_time: futureSlot(4), service_id: serviceId } });
    expect(mine[2]).toMatchObject({ data: { status: 'cancelled' } });
    for (const event of mine) expect(Object.keys(event).sort()).toEqual(['created', 'data', 'event', 'id']);
    expect(all.body.data).toHaveLength(await eventCount()); // nothing of the other account

    const afterFirst = await call('GET', `/v1/booking_events?after=${mine[0].id}&limit=1`);
    expect(afterFirst.body.data.map((event: { id: string }) => event.id)).toEqual([mine[1].id]);
    expect(afterFirst.body.has_more).toBe(true);
    const link = afterFirst.headers.get('link')!;
    expect(link.startsWith(`<${server.url}/v1/booking_events?`)).toBe(true);
    expect(link).toMatch(/^<[^>]+\?.*after=msg_.*cursor=.*>; rel="next"$/);
    const next = await call('GET', link.slice(1 + server.url.length, link.indexOf('>')));
    expect(next.body.data.map((event: { id: string }) => event.id)).toEqual([mine[2].id]);
    expect(next.body).toMatchObject({ has_more: false, next_cursor: null });
  });

  it('rejects an unknown or foreign after, and a key without bookings:read', async () => {
    const foreign = (await other('GET', '/v1/booking_events')).body.data[0]?.id ?? 'msg_unknown';
    for (const after of ['msg_unknown', foreign]) {
      const response = await call('GET', `/v1/booking_events?after=${after}`);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 'invalid_parameter', errors: [{ field: 'after' }] });
    }
    const writeOnly = apiClient(server.url, (await server.createKey({ accountId, scopes: ['bookings:write'] })).key);
    expect((await writeOnly('GET', '/v1/booking_events')).body.code).toBe('insufficient_scope');
  });
});

describe('changes and their events are atomic', () => {
  it('logs nothing for a change that fails, and leaves the booking and slot counts as they were', async () => {
    const serviceId = await createService(server, 1);
    const [slotA, slotB] = [futureSlot(12), futureSlot(13)];
    const inA = await book(serviceId, slotA);
    await book(serviceId, slotB);
    const before = { events: await eventCount(), counts: await confirmedCounts(server, serviceId), booking: (await call('GET', `/v1/bookings/${inA}`)).body };

    const failures = [
      await call('POST', '/v1/bookings', { service_id: serviceId, start_time: slotA, customer }),
      await call('PATCH', `/v1/bookings/${inA}`, { start_time: slotB }),
      await call('PATCH', `/v1/bookings/${inA}`, { customer: { email: 'not-an-email' } }),
      await call('PATCH', `/v1/bookings/${inA}`, { service_id: 'svc_doesnotexist' }),
      await call('PATCH', `/v1/bookings/${inA}`, {}),
    ];
    expect(failures.map((response) => response.status)).toEqual([409, 409, 422, 422, 422]);
    expect(failures.slice(0, 2).map((response) => response.body.code)).toEqual(['slot_full', 'slot_full']);
    expect(await eventCount()).toBe(before.events);
    expect(await confirmedCounts(server, serviceId)).toEqual(before.counts);
    expect((await call('GET', `/v1/bookings/${inA}`)).body).toEqual(before.booking);
  });

  it('moves a booking between slots: the old place is freed, the new one taken', async () => {
    const serviceId = await createService(server, 1);
    const [slotA, slotB] = [futureSlot(14), futureSlot(15)];
    const id = await book(serviceId, slotA);
    const moved = await call('PATCH', `/v1/bookings/${id}`, { start_time: slotB });
    expect(moved.status).toBe(200);
    expect(moved.body.start_time).toBe(slotB);
    expect(await confirmedCounts(server, serviceId)).toEqual({ [slotA]: 0, [slotB]: 1 });
    await book(serviceId, slotA);
    expect((await call('POST', '/v1/bookings', { service_id: serviceId, start_time: slotB, customer })).body.code).toBe('slot_full');
    const otherService = await createService(server, 1);
    const switched = await call('PATCH', `/v1/bookings/${id}`, { service_id: otherService });
    expect(switched.body.service_id).toBe(otherService);
    expect(await confirmedCounts(server, serviceId)).toEqual({ [slotA]: 1, [slotB]: 0 });
  });
});

describe('Idempotency-Key lifetime and scope', () => {
  it('forgets a key after 24 h and keeps keys of different accounts apart', async () => {
    const serviceId = await createService(server, 10);
    const body = { service_id: serviceId, start_time: futureSlot(16), customer };
    const headers = { 'idempotency-key': 'shared-key' };
    const first = await call('POST', '/v1/bookings', body, headers);
    const elsewhere = await other('POST', '/v1/bookings', body, headers);
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.headers.get('idempotent-replayed')).toBeNull();
    expect(elsewhere.body.id).not.toBe(first.body.id);

    await server.prisma.idempotencyKey.update({
      where: { accountId_key: { accountId, key: 'shared-key' } },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const afterExpiry = await call('POST', '/v1/bookings', { ...body, start_time: futureSlot(17) }, headers);
    expect(afterExpiry.status).toBe(201);
    expect(afterExpiry.headers.get('idempotent-replayed')).toBeNull();
    expect(afterExpiry.body.start_time).toBe(futureSlot(17));
    const stored = await server.prisma.idempotencyKey.findUniqueOrThrow({ where: { accountId_key: { accountId, key: 'shared-key' } } });
    expect(stored.expiresAt.getTime()).toBeGreaterThan(Date.now() + 23 * 3_600_000);
  });
});

describe('robustness', () => {
  it('never answers arbitrary JSON bodies with a 5xx', async () => {
    const serviceId = await createService(server, 100);
    const id = await book(serviceId, futureSlot(20));
    const value = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
    );
    const body = fc.oneof(
      fc.jsonValue(),
      fc.record(
        {
          service_id: fc.oneof(value, fc.constant(serviceId)),
          start_time: fc.oneof(value, fc.constant(futureSlot(21))),
          customer: fc.oneof(value, fc.record({ name: value, email: value }, { requiredKeys: [] })),
        },
        { requiredKeys: [] },
      ),
    );
    await fc.assert(
      fc.asyncProperty(body, fc.constantFrom('POST', 'PATCH'), async (input, method) => {
        const response = await call(method, method === 'POST' ? '/v1/bookings' : `/v1/bookings/${id}`, JSON.stringify(input));
        expect(response.status, JSON.stringify(input)).toBeLessThan(500);
        if (response.status >= 400) expect(response.headers.get('content-type')).toBe('application/problem+json');
      }),
      { numRuns: 60 },
    );
  });

  it('answers unknown routes and ids with 404 problem+json', async () => {
    for (const path of ['/v1/bookingz', '/v1/bookings/bk_missing', '/v1/bookings/bk_1/extra', '/v1/services/svc_missing']) {
      const response = await call('GET', path);
      expect(response.status, path).toBe(404);
      expect(response.body.code).toBe('not_found');
    }
    const wrong = await call('POST', '/v1/services');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, HEAD');
  });

  // Every route is in the document (test/conformance/openapi-routes.test.ts); this checks what the table adds to the booking routes.
  it('documents what REST adds to the booking routes in /v1/openapi.json', async () => {
    const document = (await call('GET', '/v1/openapi.json')).body;
    expect(document.openapi).toBe('3.1.0');
    const create = document.paths['/v1/bookings'].post;
    expect(create.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header' }));
    expect(Object.keys(create.responses['201'].headers)).toEqual(expect.arrayContaining(['Location', 'Idempotent-Replayed']));
    expect(create.responses['409'].description).toContain('slot_full');
    expect(create.responses['409'].description).toContain('hold_expired');
    expect(create.responses['422'].description).toContain('idempotency_key_reused');
    expect(create.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreateBookingInput' });
    const input = document.components.schemas.CreateBookingInput;
    // A slot (service_id, start_time, customer) or a hold (hold_id): which fields are required depends on which, so none is by itself.
    expect(input.required).toBeUndefined();
    expect(Object.keys(input.properties).sort()).toEqual(['customer', 'hold_id', 'party_size', 'service_id', 'start_time']);
    expect(input.additionalProperties).toBe(false);
    const events = document.paths['/v1/booking_events'].get;
    expect(events.parameters).toContainEqual(expect.objectContaining({ name: 'after', in: 'query' }));
    expect(Object.keys(events.responses['200'].headers)).toEqual(expect.arrayContaining(['ETag', 'Last-Modified', 'Link']));
    expect(document.paths['/v1/bookings/{id}'].patch.responses['409'].description).toContain('booking_cancelled');
  });
});
