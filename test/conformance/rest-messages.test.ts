import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createService } from '../bookings/fixtures.js';
import { apiClient, futureSlot, type ApiCall } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** REST refusals speak REST: its parameter names, its lowercase values, the scope a route needs. */

let server: TestServer;
let call: ApiCall;
let directoryOnly: ApiCall;

beforeAll(async () => {
  server = await startTestServer({ seed: true });
  call = apiClient(server.url, (await server.createKey({ scopes: ['bookings:read', 'analytics:read'] })).key);
  directoryOnly = apiClient(server.url, (await server.createKey({ scopes: ['directory:read'] })).key);
});
afterAll(() => server?.close());

const usage = (granularity: string) => `/v1/usage?from=${futureSlot(-1)}&to=${futureSlot(0)}&granularity=${granularity}`;

describe('REST error messages', () => {
  it('name the parameter and list its allowed values for an unknown enum value', async () => {
    const response = await call('GET', usage('week'));
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('invalid_parameter');
    expect(response.body.detail).toBe('granularity must be one of: day, hour, minute.');
    expect(response.body.errors).toEqual([{ field: 'granularity', code: 'invalid', message: 'granularity must be one of: day, hour, minute.' }]);
    expect(response.body.detail).not.toMatch(/WEEK|UsageGranularity|enum/);
  });

  it('name the after parameter, not the GraphQL argument, for an unknown event', async () => {
    const response = await call('GET', '/v1/booking_events?after=msg_nonexistent');
    expect(response.status).toBe(400);
    expect(response.body.detail).toBe('after names no event of this account: "msg_nonexistent".');
    expect(response.body.errors).toEqual([{ field: 'after', code: 'unknown', message: 'Use the id of an event this account received.' }]);
  });

  it('name every field in REST names, the other end of a range too', async () => {
    const reversed = await call('GET', '/v1/bookings?start_date=2027-01-31&end_date=2027-01-01');
    expect(reversed.status).toBe(400);
    expect(reversed.body.detail).toBe('start_date must not be after end_date.');
    expect(reversed.body.errors).toEqual([{ field: 'start_date', code: 'after_end_date', message: 'start_date must not be after end_date.' }]);

    const serviceId = await createService(server, 4);
    const tooLong = await call('GET', `/v1/services/${serviceId}/availability?start_date=2027-01-01&end_date=2027-03-01`);
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.detail).toBe('end_date is at most 30 days after start_date (31 days in all).');
    expect(tooLong.body.errors).toEqual([{ field: 'end_date', code: 'out_of_range', message: 'end_date is at most 30 days after start_date (31 days in all).' }]);
  });

  it.each([
    ['/v1/bookings', 'bookings:read'],
    ['/v1/booking_events', 'bookings:read'],
    [usage('hour'), 'analytics:read'],
  ])('name the scope %s needs, in the detail and in WWW-Authenticate', async (path, scope) => {
    const response = await directoryOnly('GET', path);
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('insufficient_scope');
    expect(response.body.detail).toContain(`the ${scope} scope`);
    expect(response.headers.get('www-authenticate')).toBe(`Bearer error="insufficient_scope", scope="${scope}"`);
  });
});

describe('query parameters a route does not take', () => {
  it('are refused together, each named, with the likely meant name for a typo', async () => {
    const response = await call('GET', '/v1/bookings?limt=5&colour=red&status=confirmed');
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('invalid_parameter');
    expect(response.body.errors).toEqual([
      { field: 'limt', code: 'unknown_parameter', message: 'Unknown parameter; did you mean limit?' },
      { field: 'colour', code: 'unknown_parameter', message: expect.stringContaining('It takes start_date, end_date,') },
    ]);
    expect(response.body.detail).toMatch(/^Unknown query parameters limt, colour\. It takes .*limit, cursor/);
  });

  it('leave the cache-buster _ alone', async () => {
    expect((await call('GET', '/v1/bookings?limit=5&_=1700000000000')).status).toBe(200);
    expect((await directoryOnly('GET', '/api/v1/categories?_=1')).status).toBe(200);
  });
});

describe('filter values', () => {
  it('an unknown category slug is 400 naming category, with the slug likely meant', async () => {
    for (const path of ['/api/v1/events?category=haunted-hose', '/api/v1/attractions?category=haunted-hose']) {
      const response = await directoryOnly('GET', path);
      expect(response.status, path).toBe(400);
      expect(response.body.code).toBe('invalid_parameter');
      expect(response.body.errors).toEqual([{ field: 'category', code: 'unknown', message: 'No category has the slug "haunted-hose"; did you mean haunted-house?' }]);
    }
    const far = await directoryOnly('GET', '/api/v1/events?category=zzzzzzzzzz');
    expect(far.status).toBe(400);
    expect(far.body.detail).toMatch(/^No category has the slug "zzzzzzzzzz"\. The categories are .*haunted-house/);
  });

  it('an unknown category slug is invalid_parameter in GraphQL too', async () => {
    const response = await directoryOnly('POST', '/graphql', { query: '{ attractions(category: "haunted-hose") { edges { node { id } } } }' });
    expect(response.body.errors[0].extensions).toMatchObject({ code: 'invalid_parameter', errors: [{ field: 'category', code: 'unknown' }] });
  });

  it('a known category without matches, and an unknown city, are empty lists', async () => {
    const known = await directoryOnly('GET', '/api/v1/events?category=haunted-house&q=nothing-matches-this');
    expect(known.status).toBe(200);
    expect(known.body.data).toEqual([]);
    const city = await directoryOnly('GET', '/api/v1/events?city=Atlantis');
    expect(city.status).toBe(200);
    expect(city.body.data).toEqual([]);
  });
});
