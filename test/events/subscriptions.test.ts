import { createClient, type Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { apiClient, cursorParamOf, futureSlot, type ApiCall } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { openService } from '../support/bookable.js';

let server: TestServer;
let key: string;
let call: ApiCall;
let serviceId: string;
const clients: Client[] = [];

beforeAll(async () => {
  server = await startTestServer({ seed: true });
  ({ key } = await server.createKey({ scopes: ['bookings:read', 'bookings:write'] }));
  call = apiClient(server.url, key);
  serviceId = await openService(server.prisma);
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.dispose()));
  await server?.close();
});

function connect(authorization: string): Client {
  const client = createClient({
    url: server.url.replace('http', 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    connectionParams: { authorization },
    retryAttempts: 0,
  });
  clients.push(client);
  return client;
}

type EventPayload = { id: string; event: string; created: string; data: { id: string; status: string }; booking: { id: string; status: string } };

/** Collects subscription payloads; `next(n)` resolves with the first n. */
function collect(client: Client, query: string, variables: Record<string, unknown> = {}) {
  const payloads: { data?: Record<string, EventPayload>; errors?: { extensions?: { code?: string } }[] }[] = [];
  let failure: unknown;
  client.subscribe({ query, variables }, { next: (value) => void payloads.push(value as never), error: (error) => (failure = error), complete: () => undefined });
  return {
    payloads,
    async next(count: number) {
      const deadline = Date.now() + 10_000;
      while (payloads.length < count) {
        if (failure) throw failure instanceof Error ? failure : new Error(JSON.stringify(failure));
        if (Date.now() > deadline) throw new Error(`got ${payloads.length} of ${count} payloads`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return payloads.slice(0, count);
    },
  };
}

const book = (days: number) => call('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(days), customer: { name: 'Sub', email: 'sub@example.com' } });

describe('GET /v1/booking_events', () => {
  it("pages on in log order, and refuses a cursor naming no event of the account's with 400 on cursor", async () => {
    const created = [await book(61), await book(62), await book(63)].map((booking) => booking.body.id);
    const all = (await call('GET', '/v1/booking_events?limit=100')).body.data.filter((event: EventPayload) => created.includes(event.data.id));
    const [afterEvent] = all;
    const first = await call('GET', `/v1/booking_events?after=${afterEvent.id}&limit=1`);
    const second = await call('GET', `/v1/booking_events?after=${afterEvent.id}&limit=1&cursor=${first.body.next_cursor}`);
    expect([first.body.data[0].id, second.body.data[0].id]).toEqual([all[1].id, all[2].id]);

    const other = await server.createKey({ scopes: ['bookings:read', 'bookings:write'] });
    const otherCall = apiClient(server.url, other.key);
    const theirs = await otherCall('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(64), customer: { name: 'Other', email: 'other@example.com' } });
    const [theirEvent] = (await otherCall('GET', '/v1/booking_events')).body.data.filter((event: EventPayload) => event.data.id === theirs.body.id);
    for (const id of [theirEvent.id, 'msg_0000000000doesnotexist']) {
      const refused = await call('GET', `/v1/booking_events?cursor=${cursorParamOf(id)}`);
      expect([refused.status, refused.body.code, refused.body.errors?.[0]?.field]).toEqual([400, 'invalid_parameter', 'cursor']);
    }
  });
});

describe('bookingEvents over graphql-ws', () => {
  it('replays the log after `after`, then streams live, with no gap or duplicate at the seam', async () => {
    const first = await book(60);
    const second = await book(61);
    const [afterEvent] = (await call('GET', '/v1/booking_events')).body.data.filter((event: EventPayload) => event.data.id === first.body.id);
    const stream = collect(connect(`Bearer ${key}`), 'subscription($after: ID) { bookingEvents(after: $after) { id event created data booking { id status } } }', {
      after: afterEvent.id,
    });
    const [replayed] = await stream.next(1);
    expect(replayed!.data!['bookingEvents']!.data.id).toBe(second.body.id);
    await call('DELETE', `/v1/bookings/${second.body.id}`);
    const third = await book(62);
    const payloads = (await stream.next(3)).map((payload) => payload.data!['bookingEvents']!);
    expect(payloads.map((payload) => [payload.event, payload.data.id])).toEqual([
      ['booking.created', second.body.id],
      ['booking.cancelled', second.body.id],
      ['booking.created', third.body.id],
    ]);
    expect(payloads[1]!.booking).toEqual({ id: second.body.id, status: 'CANCELLED' });
    const log = (await call('GET', `/v1/booking_events?after=${afterEvent.id}`)).body.data;
    expect(payloads.map(({ booking: _booking, ...rest }) => rest)).toEqual(log);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(stream.payloads).toHaveLength(3);
  });

  it('streams one kind with bookingCancelled, and only the account’s own events', async () => {
    const other = await server.createKey({ scopes: ['bookings:read', 'bookings:write'] });
    const mine = collect(connect(`Bearer ${key}`), 'subscription { bookingCancelled { event data } }');
    const theirs = collect(connect(`Bearer ${other.key}`), 'subscription { bookingEvents { event data } }');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const booking = await book(63);
    await call('DELETE', `/v1/bookings/${booking.body.id}`);
    const [cancelled] = await mine.next(1);
    const event = cancelled!.data!['bookingCancelled']!;
    expect([event.event, event.data.id, event.data.status]).toEqual(['booking.cancelled', booking.body.id, 'cancelled']);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(theirs.payloads).toHaveLength(0);
    expect(mine.payloads).toHaveLength(1);
  });

  it('refuses a key without bookings:read and a connection without a valid key', async () => {
    const directoryOnly = await server.createKey({ scopes: ['directory:read'] });
    const refused = collect(connect(`Bearer ${directoryOnly.key}`), 'subscription { bookingEvents { id } }');
    const [payload] = await refused.next(1);
    expect(payload!.errors![0]!.extensions!.code).toBe('insufficient_scope');
    const anonymous = connect('Bearer key_nonexistent0000000000.sk_nonexistent00000000000000000');
    await expect(
      new Promise((resolve, reject) => anonymous.subscribe({ query: 'subscription { bookingEvents { id } }' }, { next: resolve, error: reject, complete: () => resolve(null) })),
    ).rejects.toBeDefined();
  });
});

/** An SSE subscription read event by event, as an EventSource or fetch-event-source client reads it. */
async function openEventStream(query: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    signal: controller.signal,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: JSON.stringify({ query }),
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  return {
    response,
    /** The next `event: next` message, with its id and parsed data. */
    async next(): Promise<{ id: string | undefined; data: { data?: Record<string, EventPayload>; errors?: { extensions?: { code?: string } }[] } }> {
      for (;;) {
        const end = buffered.indexOf('\n\n');
        if (end >= 0) {
          const block = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const fields = Object.fromEntries(
            block
              .split('\n')
              .filter((line) => !line.startsWith(':') && line.includes(':'))
              .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
          );
          if (fields['event'] === 'next') return { id: fields['id'], data: JSON.parse(fields['data']!) };
          continue;
        }
        const chunk = await reader.read();
        if (chunk.done) throw new Error(`the stream ended; unread: ${buffered}`);
        buffered += decoder.decode(chunk.value, { stream: true });
      }
    },
    close: () => controller.abort(),
  };
}

describe('bookingEvents over SSE', () => {
  it('streams events as text/event-stream, each with its msg_ id', async () => {
    const stream = await openEventStream('subscription { bookingCreated { event data } }');
    expect(stream.response.headers.get('content-type')).toContain('text/event-stream');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const booking = await book(64);
    const message = await stream.next();
    stream.close();
    const event = message.data.data!['bookingCreated']!;
    expect([event.event, event.data.id]).toEqual(['booking.created', booking.body.id]);
    const [logged] = (await call('GET', '/v1/booking_events')).body.data.filter((entry: EventPayload) => entry.data.id === booking.body.id);
    expect(message.id).toBe(logged.id);
  });

  it('resumes after Last-Event-ID: what happened while disconnected comes first, once, in order', async () => {
    const first = await openEventStream('subscription { bookingEvents { id event data } }');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const seen = await book(65);
    const beforeDrop = await first.next();
    expect(beforeDrop.data.data!['bookingEvents']!.data.id).toBe(seen.body.id);
    first.close();

    const missedCreate = await book(66);
    await call('DELETE', `/v1/bookings/${missedCreate.body.id}`);
    const resumed = await openEventStream('subscription { bookingEvents { id event data } }', { 'last-event-id': beforeDrop.id! });
    const replayed = [await resumed.next(), await resumed.next()];
    expect(replayed.map((message) => [message.data.data!['bookingEvents']!.event, message.data.data!['bookingEvents']!.data.id])).toEqual([
      ['booking.created', missedCreate.body.id],
      ['booking.cancelled', missedCreate.body.id],
    ]);
    expect(replayed.map((message) => message.id)).toEqual(replayed.map((message) => message.data.data!['bookingEvents']!.id));
    const live = await book(67);
    expect((await resumed.next()).data.data!['bookingEvents']!.data.id).toBe(live.body.id);
    resumed.close();
  });

  it('resumes after the later of after and Last-Event-ID, so a stream started after an event does not repeat what it had on each reconnect', async () => {
    const start = await book(68);
    const [startEvent] = (await call('GET', '/v1/booking_events')).body.data.filter((entry: EventPayload) => entry.data.id === start.body.id);
    const query = `subscription { bookingEvents(after: "${startEvent.id}") { id data } }`;
    const first = await openEventStream(query);
    const had = await book(69);
    const beforeDrop = await first.next();
    expect(beforeDrop.data.data!['bookingEvents']!.data.id).toBe(had.body.id);
    first.close();

    const missed = await book(70);
    // The same query, as EventSource sends it again, with the id of the last event it got.
    const resumed = await openEventStream(query, { 'last-event-id': beforeDrop.id! });
    expect((await resumed.next()).data.data!['bookingEvents']!.data.id).toBe(missed.body.id);
    resumed.close();
    // And the other way round: an `after` later than the Last-Event-ID sent.
    const later = await openEventStream(`subscription { bookingEvents(after: "${beforeDrop.id!}") { id data } }`, { 'last-event-id': startEvent.id });
    expect((await later.next()).data.data!['bookingEvents']!.data.id).toBe(missed.body.id);
    later.close();
  });

  it('refuses a Last-Event-ID that names no event of the account with 400 invalid_parameter before the stream begins, as it refuses such an after', async () => {
    for (const headers of [{ 'last-event-id': 'msg_nosuchevent000000000000' }, { 'last-event-id': 'msg_' }, {}] as Record<string, string>[]) {
      const query = 'last-event-id' in headers ? 'subscription { bookingCreated { id } }' : 'subscription { bookingEvents(after: "msg_nosuchevent000000000000") { id } }';
      const response = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
        body: JSON.stringify({ query }),
      });
      const body = await response.json();
      expect({ headers, status: response.status, code: body.errors?.[0]?.extensions?.code }).toEqual({ headers, status: 400, code: 'invalid_parameter' });
    }
  });

  it('refuses a document of a subscription and a query that names neither as a request, in JSON, not as an event stream', async () => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription A { bookingCreated { id } } query B { __typename }' }),
    });
    expect([response.status, response.headers.get('content-type')]).toEqual([400, 'application/graphql-response+json; charset=utf-8']);
    expect((await response.json()).errors[0].extensions.code).toBe('invalid_request');
  });
});
