import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, futureSlot, type ApiCall } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** REST refusals speak REST: its parameter names, its lowercase values, the scope a route needs. */

let server: TestServer;
let call: ApiCall;
let directoryOnly: ApiCall;

beforeAll(async () => {
  server = await startTestServer();
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
