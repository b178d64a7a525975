import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { futureSlot } from '../support/http.js';
import type { TestServer } from '../support/server.js';
import { createService, customer, startBookingServer } from '../bookings/fixtures.js';

// A JSON POST of query, operationName and variables is executed by the HTTP layer through Yoga's
// envelop (src/server/json-post.ts), and answered there when its result has no errors; the same
// request with `extensions` is Yoga's from end to end. Both must answer alike, and nothing may run twice.

let server: TestServer;
let key: string;
let serviceId: string;

beforeAll(async () => {
  let accountId: string;
  ({ server, accountId } = await startBookingServer());
  ({ key } = await server.createKey({ accountId, scopes: ['bookings:read', 'bookings:write', 'directory:read'] }));
  serviceId = await createService(server, 5);
});
afterAll(() => server?.close());

interface Sent {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The request as a JSON POST the HTTP layer takes, or with `extensions` (which only Yoga's own pipeline takes). */
async function post(request: Record<string, unknown>, through: 'plain' | 'yoga', accept?: string): Promise<Sent> {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(accept ? { accept } : {}) },
    body: JSON.stringify(through === 'yoga' ? { ...request, extensions: {} } : request),
  });
  const varying = new Set(['x-request-id', 'date', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'keep-alive', 'connection']);
  const headers = Object.fromEntries([...response.headers].filter(([name]) => !varying.has(name)));
  // A request id in an error differs from request to request.
  return { status: response.status, headers, body: (await response.text()).replace(/req_[0-9a-f]+/g, 'req_…') };
}

describe('a JSON POST executed before Yoga', () => {
  it.each([
    ['a query', { query: 'query ($first: Int) { events(first: $first) { edges { node { id title startsAt categories { slug } } } } }', variables: { first: 3 } }, undefined],
    ['a query, graphql-response+json', { query: '{ categories(first: 2) { edges { node { id slug } } } }' }, 'application/graphql-response+json'],
    ['a query with a not-found error', { query: 'query ($id: ID!) { event(id: $id) { id } }', variables: { id: 'ev_missing' } }, undefined],
    ['the same, graphql-response+json', { query: 'query ($id: ID!) { event(id: $id) { id } }', variables: { id: 'ev_missing' } }, 'application/graphql-response+json'],
    ['a refused field', { query: '{ webhookEndpoints { edges { node { id } } } }' }, undefined],
    ['bad variables', { query: 'query ($first: Int) { events(first: $first) { edges { node { id } } } }', variables: { first: 'many' } }, undefined],
    ['a syntax error', { query: '{ events(first: ) }' }, undefined],
    ['an unknown field', { query: '{ nothing }' }, undefined],
    ['an unknown operation name', { query: 'query A { categories { edges { node { id } } } }', operationName: 'B' }, undefined],
    ['a subscription it cannot stream as JSON', { query: 'subscription { bookingEvents { id } }' }, 'application/json'],
  ])('is answered like Yoga answers it: %s', async (_name, request, accept) => {
    const fromYoga = await post(request, 'yoga', accept);
    const plain = await post(request, 'plain', accept);
    expect(plain).toEqual(fromYoga);
  });

  it('runs a mutation once, also when part of it fails and Yoga answers the result', async () => {
    const startTime = futureSlot(9, 20);
    const mutation = `mutation ($ok: CreateBookingInput!, $bad: CreateBookingInput!) {
      ok: createBooking(input: $ok) { booking { id startTime } }
      bad: createBooking(input: $bad) { booking { id } }
    }`;
    const variables = { ok: { serviceId, startTime, customer }, bad: { serviceId: 'svc_missing', startTime, customer } };
    const answer = await post({ query: mutation, variables }, 'plain');
    // The failed field is not nullable, so the whole answer is null; the first booking was made all the same.
    const body = JSON.parse(answer.body) as { data: null; errors: { path: string[]; extensions: { code: string } }[] };
    expect(body.errors.map((error) => error.path)).toEqual([['bad']]);
    expect(await server.prisma.booking.count({ where: { serviceId, startTime: new Date(startTime) } })).toBe(1);
  });
});
