import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, futureSlot, type ApiCall } from '../support/http.js';
import type { TestServer } from '../support/server.js';
import { createService, customer, graphql, startBookingServer } from './fixtures.js';

let server: TestServer;
let call: ApiCall;
let accountId: string;
let serviceId: string;

beforeAll(async () => {
  ({ server, call, accountId } = await startBookingServer());
  serviceId = await createService(server, 20);
});
afterAll(() => server?.close());

async function book(days: number, as = call): Promise<{ id: string; created: Record<string, unknown> }> {
  const response = await as('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(days), customer });
  expect(response.status).toBe(201);
  return { id: response.body.id, created: response.body };
}

/** The data of the booking's last event of `type`, as the log (GET /v1/booking_events) answers it. */
async function lastEventData(id: string, type: string) {
  const events = (await call('GET', '/v1/booking_events?limit=100')).body.data as { event: string; data: Record<string, unknown> }[];
  return events.filter((event) => event.event === type && event.data['id'] === id).at(-1)?.data;
}

describe('booking.updated carries previous_attributes', () => {
  it('names only the fields that changed, with their values before, in REST names', async () => {
    const { id, created } = await book(100);
    const patched = await call('PATCH', `/v1/bookings/${id}`, { party_size: 3 });
    expect(patched.status).toBe(200);
    expect((await lastEventData(id, 'booking.updated'))?.['previous_attributes']).toStrictEqual({ party_size: 1, updated_at: created['updated_at'] });

    const renamed = await call('PATCH', `/v1/bookings/${id}`, { customer: { email: 'grace@example.com' } });
    expect((await lastEventData(id, 'booking.updated'))?.['previous_attributes']).toStrictEqual({
      customer: { email: customer.email },
      updated_at: patched.body.updated_at,
    });

    const otherService = await createService(server, 5);
    await call('PATCH', `/v1/bookings/${id}`, { service_id: otherService, start_time: futureSlot(101) });
    expect((await lastEventData(id, 'booking.updated'))?.['previous_attributes']).toStrictEqual({
      start_time: created['start_time'],
      end_time: created['end_time'],
      service_id: serviceId,
      updated_at: renamed.body.updated_at,
    });
  });

  it('is on updates only', async () => {
    const { id } = await book(102);
    await call('DELETE', `/v1/bookings/${id}`);
    expect(await lastEventData(id, 'booking.created')).not.toHaveProperty('previous_attributes');
    expect(await lastEventData(id, 'booking.cancelled')).not.toHaveProperty('previous_attributes');
  });
});

describe('booking.cancelled carries its cancellation', () => {
  it('takes the reason from a JSON body on DELETE, and names the key that cancelled', async () => {
    const { id } = await book(103);
    const response = await call('DELETE', `/v1/bookings/${id}`, { reason: 'Customer is ill.' });
    expect(response.status).toBe(200);
    expect(response.body).not.toHaveProperty('cancellation');
    const keyId = (await server.prisma.apiKey.findFirstOrThrow({ where: { accountId, scopes: { has: 'bookings:write' } } })).id;
    expect((await lastEventData(id, 'booking.cancelled'))?.['cancellation']).toStrictEqual({ by: keyId, reason: 'Customer is ill.' });
  });

  it('has a null reason without a body', async () => {
    const { id } = await book(104);
    expect((await call('DELETE', `/v1/bookings/${id}`)).status).toBe(200);
    expect((await lastEventData(id, 'booking.cancelled'))?.['cancellation']).toMatchObject({ reason: null });
  });

  it('refuses a reason over 500 characters with 422 naming reason, and cancels nothing', async () => {
    const { id } = await book(105);
    const response = await call('DELETE', `/v1/bookings/${id}`, { reason: 'x'.repeat(501) });
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ code: 'validation_failed', errors: [{ field: 'reason' }] });
    expect((await call('GET', `/v1/bookings/${id}`)).body.status).toBe('confirmed');
    expect((await call('DELETE', `/v1/bookings/${id}`, { reason: 'x'.repeat(500) })).status).toBe(200);
  });

  it('takes the reason on GraphQL, and names the operator for an admin key', async () => {
    const { id } = await book(106);
    const cancel = 'mutation ($id: ID!, $reason: String) { cancelBooking(id: $id, input: { reason: $reason }) { status } }';
    const tooLong = await graphql(call, cancel, { id, reason: 'x'.repeat(501) });
    expect(tooLong.errors?.[0]?.extensions).toMatchObject({ code: 'validation_failed', errors: [{ field: 'reason' }] });

    const operator = apiClient(server.url, (await server.createKey({ accountId, scopes: ['admin'] })).key);
    expect((await graphql(operator, cancel, { id, reason: 'Venue closed.' })).data!['cancelBooking'].status).toBe('CANCELLED');
    expect((await lastEventData(id, 'booking.cancelled'))?.['cancellation']).toStrictEqual({ by: 'operator', reason: 'Venue closed.' });
  });
});
