import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { paths as DirectoryPaths } from '../../openapi/types/api-v1.js';
import type { components, paths as BookingPaths } from '../../openapi/types/v1.js';
import { openService } from '../support/bookable.js';
import { futureSlot } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** openapi-fetch, typed by the checked-in openapi-typescript types (npm run generate:client), as the README shows. */
let server: TestServer;
let bookings: ReturnType<typeof createClient<BookingPaths>>;
let directory: ReturnType<typeof createClient<DirectoryPaths>>;
let serviceId: string;

beforeAll(async () => {
  server = await startTestServer({ seed: true });
  const { key } = await server.createKey({ scopes: ['bookings:read', 'bookings:write', 'directory:read'] });
  const headers = { authorization: `Bearer ${key}` };
  bookings = createClient<BookingPaths>({ baseUrl: server.url, headers });
  directory = createClient<DirectoryPaths>({ baseUrl: server.url, headers, querySerializer: { array: { style: 'form', explode: false } } });
  serviceId = await openService(server.prisma);
});
afterAll(() => server?.close());

describe('a typed REST client (openapi-fetch over openapi/types)', () => {
  it('creates a booking and reads it back, typed as the document says', async () => {
    const { data, error, response } = await bookings.POST('/v1/bookings', {
      params: { header: { 'Idempotency-Key': 'typed-1' } },
      body: { service_id: serviceId, start_time: futureSlot(60), party_size: 2, customer: { name: 'Typed', email: 'typed@example.com' } },
    });
    expect(error).toBeUndefined();
    expect(response.status).toBe(201);
    expectTypeOf(data!.party_size).toEqualTypeOf<number>();
    expectTypeOf(data!.status).toEqualTypeOf<components['schemas']['BookingStatus']>();
    expect(data).toMatchObject({ service_id: serviceId, party_size: 2, status: 'confirmed' });

    const read = await bookings.GET('/v1/bookings/{id}', { params: { path: { id: data!.id } } });
    expect(read.data).toEqual(data);
  });

  it('lists events with include, fields and sort serialised as the document describes them', async () => {
    const { data, error } = await directory.GET('/api/v1/events', {
      params: { query: { city: 'Salem', include: ['categories', 'images'], fields: ['title', 'starts_at'], sort: ['starts_at'], limit: 3 } },
    });
    expect(error).toBeUndefined();
    expect(data!.data.length).toBeGreaterThan(0);
    for (const event of data!.data) {
      expect(Object.keys(event).sort()).toEqual(['categories', 'id', 'images', 'starts_at', 'title']);
      expectTypeOf(event.categories).toEqualTypeOf<{ id: string; slug: string; name: string }[] | undefined>();
    }
    const starts = data!.data.map((event) => event.starts_at!);
    expect(starts).toEqual([...starts].sort());
  });

  it('gives a refusal as the typed problem document', async () => {
    const { data, error, response } = await bookings.POST('/v1/bookings', {
      body: { service_id: serviceId, start_time: futureSlot(61), customer: { name: 'Typed', email: 'not an email' } },
    });
    expect(data).toBeUndefined();
    expect(response.status).toBe(422);
    expectTypeOf(error!).toMatchTypeOf<components['schemas']['Problem']>();
    expect(error).toMatchObject({ status: 422, code: 'validation_failed' });
    expect(error!.errors).toEqual([expect.objectContaining({ field: 'customer.email', code: 'invalid' })]);
  });
});
