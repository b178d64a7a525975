import { ApolloClient, HttpLink, InMemoryCache, gql, type TypedDocumentNode } from '@apollo/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openService } from '../support/bookable.js';
import { apiClient, futureSlot, type ApiCall } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
let key: string;
let call: ApiCall;
let serviceId: string;

beforeAll(async () => {
  server = await startTestServer({ seed: true });
  ({ key } = await server.createKey({ scopes: ['bookings:read', 'bookings:write'] }));
  call = apiClient(server.url, key);
  serviceId = await openService(server.prisma);
});
afterAll(() => server?.close());

interface BookingEvent {
  id: string;
  event: string;
  booking: { id: string; status: string };
}

const bookingEvents: TypedDocumentNode<{ bookingEvents: BookingEvent }, { after?: string }> = gql`
  subscription Dashboard($after: ID) {
    bookingEvents(after: $after) {
      id
      event
      booking {
        id
        status
      }
    }
  }
`;

/** Apollo Client over HttpLink alone: subscriptions go over HTTP, with the Accept header Apollo sends for them. */
function apolloClient(headers: Record<string, string>) {
  const sent: (string | null)[] = [];
  const link = new HttpLink({
    uri: `${server.url}/graphql`,
    headers,
    fetch: async (input, init) => {
      sent.push(new Headers(init?.headers).get('accept'));
      return fetch(input, init);
    },
  });
  return { client: new ApolloClient({ link, cache: new InMemoryCache() }), sent };
}

/** Subscribes and collects what Apollo hands over; `next(n)` waits for n results, `failure()` for an error. */
function collect(client: ApolloClient, variables: { after?: string } = {}) {
  const results: { data?: { bookingEvents: BookingEvent } | undefined; error?: unknown }[] = [];
  let failed: ((error: unknown) => void) | undefined;
  const failure = new Promise<unknown>((resolve) => (failed = resolve));
  const subscription = client.subscribe({ query: bookingEvents, variables }).subscribe({
    next: (result) => void results.push(result as never),
    error: (error) => failed?.(error),
  });
  return {
    subscription,
    failure,
    async next(count: number) {
      const deadline = Date.now() + 10_000;
      while (results.length < count) {
        if (Date.now() > deadline) throw new Error(`got ${results.length} of ${count} results: ${JSON.stringify(results)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return results.slice(0, count);
    },
  };
}

const book = (days: number) => call('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(days), customer: { name: 'Apollo', email: 'apollo@example.com' } });

describe("Apollo Client's HttpLink subscriptions (multipart)", () => {
  it('receive booking events as they happen, then stop when unsubscribed', async () => {
    const first = await book(70);
    const events = (await call('GET', '/v1/booking_events')).body.data as { id: string; data: { id: string } }[];
    const after = events.find((event) => event.data.id === first.body.id)!.id;
    const { client, sent } = apolloClient({ authorization: `Bearer ${key}` });
    const stream = collect(client, { after });
    const second = await book(71);
    await call('DELETE', `/v1/bookings/${second.body.id}`);
    const results = await stream.next(2);
    expect(results.map((result) => result.error)).toEqual([undefined, undefined]);
    expect(results.map((result) => [result.data!.bookingEvents.event, result.data!.bookingEvents.booking.id])).toEqual([
      ['booking.created', second.body.id],
      ['booking.cancelled', second.body.id],
    ]);
    expect(results[1]!.data!.bookingEvents.booking.status).toBe('CANCELLED');
    expect(sent[0]).toMatch(/^multipart\/mixed;.*subscriptionSpec=1\.0/);
    stream.subscription.unsubscribe();
    client.stop();
  });

  it('hear a refusal before the stream starts as an error', async () => {
    const { client } = apolloClient({ authorization: 'Bearer key_nobody.sk_nothing_here_at_all' });
    const stream = collect(client);
    const outcome = await Promise.race([stream.failure, stream.next(1).then(([result]) => result!.error)]);
    // Sent as application/graphql-response+json, which Apollo asks for: read as GraphQL errors, code and all.
    expect(outcome).toMatchObject({ name: 'CombinedGraphQLErrors', errors: [{ extensions: { code: 'unauthenticated' } }] });
  });
});

describe('HTTP subscriptions and the Accept header', () => {
  const subscribe = (accept: string) =>
    fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept },
      body: JSON.stringify({ query: 'subscription { bookingEvents { id } }' }),
    });

  it('answers the multipart protocol to Apollo, events to text/event-stream', async () => {
    const multipart = await subscribe('multipart/mixed;subscriptionSpec="1.0", application/json');
    expect(multipart.headers.get('content-type')).toBe('multipart/mixed;boundary="graphql";subscriptionSpec="1.0"');
    const reader = multipart.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('--graphql');
    await reader.cancel();
    const events = await subscribe('text/event-stream');
    expect(events.headers.get('content-type')).toBe('text/event-stream');
    await events.body!.cancel();
  });

  it('answers a subscription refused before its stream, to an Accept of the multipart protocol alone, with its errors and their status, not a 406', async () => {
    for (const [query, status, code] of [
      ['subscription { bookingEvents(after: "msg_\\u0000") { id } }', 400, 'invalid_parameter'],
      [`subscription { availabilityChanged(serviceId: "svc_nothing", startDate: "2027-03-01", endDate: "2027-03-01") { remaining } }`, 404, 'not_found'],
    ] as const) {
      const response = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'multipart/mixed;subscriptionSpec=1.0' },
        body: JSON.stringify({ query }),
      });
      expect({ query, status: response.status, type: response.headers.get('content-type') }).toEqual({ query, status, type: 'application/graphql-response+json; charset=utf-8' });
      expect((await response.json()).errors[0].extensions.code).toBe(code);
    }
  });

  it('follows the client’s preference between the two', async () => {
    const response = await subscribe('text/event-stream;q=0.5, multipart/mixed;subscriptionSpec=1.0');
    expect(response.headers.get('content-type')).toMatch(/^multipart\/mixed/);
    await response.body!.cancel();
  });

  it.each([
    ['application/json', 'application/json'],
    ['application/graphql-response+json, application/json;q=0.9', 'application/graphql-response+json'],
  ])('answers 406 not_acceptable as a GraphQL error to a client that takes JSON but no stream (%s)', async (accept, mediaType) => {
    const response = await subscribe(accept);
    expect(response.status).toBe(406);
    expect(response.headers.get('content-type')).toBe(`${mediaType}; charset=utf-8`);
    const body = await response.json();
    expect(body.errors[0].extensions.code).toBe('not_acceptable');
    expect(body.errors[0].message).toContain('text/event-stream');
  });

  it.each(['text/event-stream;q=0', 'image/png, text/event-stream;q=0', 'multipart/mixed', 'application/xml'])(
    'answers 406 not_acceptable as a problem document, never as an event stream, to a client that takes neither (%s)',
    async (accept) => {
      const response = await subscribe(accept);
      expect(response.status).toBe(406);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      const body = await response.json();
      expect(body).toMatchObject({ status: 406, code: 'not_acceptable', request_id: response.headers.get('x-request-id') });
      expect(body.detail).toContain('text/event-stream');
    },
  );
});
