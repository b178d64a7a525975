import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWidgetToken } from '../../src/access/admin.js';
import { openService, slotsPerDay } from '../support/bookable.js';
import { apiClient, customer, futureSlot, type ApiCall } from '../support/http.js';
import { openFeed, StreamRefusal, type AvailabilityFeed, type StreamedSlot, type Transport } from '../support/live-availability.js';
import { subscriptionsActive } from '../support/metrics.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** Live availability (availabilityChanged, and REST's event stream) against real bookings, holds and operator changes. */

/** The server's clock: real time plus what a test has moved it on by (a hold's expiry). */
let offsetMs = 0;
const clock = () => new Date(Date.now() + offsetMs);

const shop = 'https://shop.example';

let server: TestServer;
/** The subscribers' key: it reads, and books nothing. */
let readerKey: string;
/** Another account's key, which books. */
let booker: ApiCall;
let operator: ApiCall;
let directoryToken: string;
const feeds: AvailabilityFeed[] = [];

beforeAll(async () => {
  server = await startTestServer({ seed: true, clock, config: { WAITLIST_POLL_MS: 50 } });
  ({ key: readerKey } = await server.createKey({ scopes: ['bookings:read'] }));
  booker = apiClient(server.url, (await server.createKey({ scopes: ['bookings:read', 'bookings:write'] })).key);
  operator = apiClient(server.url, (await server.createKey({ scopes: ['admin'] })).key);
  directoryToken = (await createWidgetToken(server.prisma, { accountId: await server.createAccount(), allowedOrigins: [shop] })).id;
});
afterAll(async () => {
  for (const feed of feeds) feed.close();
  await server?.close();
});

async function open(transport: Transport, serviceId: string, day: string, credential = readerKey, origin?: string): Promise<AvailabilityFeed> {
  const feed = await openFeed(transport, { baseUrl: server.url, credential, serviceId, startDate: day, endDate: day, ...(origin ? { origin } : {}) });
  feeds.push(feed);
  return feed;
}

/** The day's availability as GET answers it, in the stream's form. */
async function availabilityNow(serviceId: string, day: string): Promise<StreamedSlot[]> {
  const answer = await apiClient(server.url, readerKey)('GET', `/v1/services/${serviceId}/availability?start_date=${day}&end_date=${day}`);
  expect(answer.status).toBe(200);
  return (answer.body.data as { start_time: string; end_time: string; capacity: number; remaining: number }[]).map((slot) => ({
    serviceId,
    startTime: slot.start_time,
    endTime: slot.end_time,
    capacity: slot.capacity,
    remaining: slot.remaining,
  }));
}

const at = (slots: StreamedSlot[]) => slots.map((slot) => [slot.startTime, slot.remaining] as const).sort(([a], [b]) => a.localeCompare(b));

async function succeeded(answer: Promise<{ status: number; body: Record<string, unknown> }>, status = 201) {
  const settled = await answer;
  expect(settled.status, JSON.stringify(settled.body)).toBe(status);
  return settled.body;
}

describe.each(['graphql-ws', 'graphql-sse', 'rest-sse'] as const)('availabilityChanged over %s', (transport) => {
  const days = { 'graphql-ws': 30, 'graphql-sse': 31, 'rest-sse': 32 }[transport];
  const day = futureSlot(days).slice(0, 10);
  const slot = (hour: number) => futureSlot(days, hour);
  let serviceId: string;
  let feed: AvailabilityFeed;

  beforeAll(async () => {
    serviceId = await openService(server.prisma, { capacity: 4 });
    feed = await open(transport, serviceId, day);
  });

  it('first sends every slot of the range that has not started, as availability lists it', async () => {
    const snapshot = await feed.take(slotsPerDay);
    expect(snapshot).toEqual(await availabilityNow(serviceId, day));
    expect(snapshot.every((entry) => entry.serviceId === serviceId && entry.capacity === 4 && entry.remaining === 4)).toBe(true);
  });

  it("sends exactly the slot another account's booking changed, then its cancel", async () => {
    const booking = await succeeded(booker('POST', '/v1/bookings', { service_id: serviceId, start_time: slot(18), party_size: 3, customer }));
    expect(at([await feed.next()])).toEqual([[slot(18), 1]]);
    await succeeded(booker('DELETE', `/v1/bookings/${String(booking['id'])}`), 200);
    // The very next message is the cancel's: nothing was sent for any other slot in between.
    expect(at([await feed.next()])).toEqual([[slot(18), 4]]);
  });

  it('sends both slots of a reschedule', async () => {
    const booking = await succeeded(booker('POST', '/v1/bookings', { service_id: serviceId, start_time: slot(19), party_size: 2, customer }));
    expect(at([await feed.next()])).toEqual([[slot(19), 2]]);
    await succeeded(booker('PATCH', `/v1/bookings/${String(booking['id'])}`, { start_time: slot(20) }), 200);
    expect(at(await feed.take(2))).toEqual([
      [slot(19), 4],
      [slot(20), 2],
    ]);
  });

  it('sends a hold placed and released, and nothing for a hold booked (its places stay taken)', async () => {
    const hold = await succeeded(booker('POST', '/v1/holds', { service_id: serviceId, start_time: slot(21), party_size: 1 }));
    expect(at([await feed.next()])).toEqual([[slot(21), 3]]);
    await succeeded(booker('DELETE', `/v1/holds/${String(hold['id'])}`), 200);
    expect(at([await feed.next()])).toEqual([[slot(21), 4]]);

    const booked = await succeeded(booker('POST', '/v1/holds', { service_id: serviceId, start_time: slot(22), party_size: 1 }));
    expect(at([await feed.next()])).toEqual([[slot(22), 3]]);
    await succeeded(booker('POST', '/v1/bookings', { hold_id: booked['id'], customer }));
    // The next message is the next change's: converting the hold sent nothing.
    await succeeded(booker('POST', '/v1/bookings', { service_id: serviceId, start_time: slot(23), customer }));
    expect(at([await feed.next()])).toEqual([[slot(23), 3]]);
  });

  it('sends a hold that expired once the offers worker has settled it', async () => {
    const hold = await succeeded(booker('POST', '/v1/holds', { service_id: serviceId, start_time: slot(17), party_size: 2, expires_in_seconds: 60 }));
    expect(at([await feed.next()])).toEqual([[slot(17), 2]]);
    offsetMs += 60_000;
    try {
      expect(at([await feed.next()])).toEqual([[slot(17), 4]]);
      expect(await server.prisma.hold.findUniqueOrThrow({ where: { id: String(hold['id']) } })).toMatchObject({ status: 'expired' });
    } finally {
      offsetMs -= 60_000;
    }
  });

  it("sends every slot when an operator changes the service's capacity", async () => {
    const before = new Map(at(await availabilityNow(serviceId, day)));
    await succeeded(operator('PATCH', `/v1/admin/services/${serviceId}`, { capacity: 6 }), 200);
    const changed = await feed.take(slotsPerDay);
    expect(changed.every((entry) => entry.capacity === 6)).toBe(true);
    expect(at(changed)).toEqual([...before].map(([start, remaining]) => [start, remaining + 2]));
  });

  it('gives a client that reconnects the current state, with what changed while it was away', async () => {
    feed.close();
    await succeeded(booker('POST', '/v1/bookings', { service_id: serviceId, start_time: slot(16), party_size: 5, customer }));
    feed = await open(transport, serviceId, day);
    const snapshot = await feed.take(slotsPerDay);
    expect(snapshot).toEqual(await availabilityNow(serviceId, day));
    expect(at(snapshot)).toContainEqual([slot(16), 1]);
  });

  // Server-sent events only: graphql-ws has no Last-Event-ID.
  const overSse = (name: string, test: () => Promise<void>) => transport !== 'graphql-ws' && it(name, test);
  overSse('resumes with Last-Event-ID: nothing first while the state is the one it names, every slot once it moved on', async () => {
    // The last slot of a read carries the state's id; the first of several an empty one, so that a
    // client cut off among them forgets the id it had, and resumes with none: every slot.
    const ids = feed.receivedIds.slice(-slotsPerDay);
    expect(ids[0]).toBe('');
    expect(ids.slice(1, -1).every((id) => id === undefined)).toBe(true);
    const stateId = feed.lastEventId();
    expect(stateId).toMatch(/^avl_[\w-]{22}$/);
    feed.close();

    // Nothing changed: the resumed stream sends nothing until the next change, which comes alone.
    feed = await openFeed(transport, { baseUrl: server.url, credential: readerKey, serviceId, startDate: day, endDate: day, lastEventId: stateId! });
    feeds.push(feed);
    await succeeded(booker('POST', '/v1/bookings', { service_id: serviceId, start_time: slot(15), party_size: 2, customer }));
    expect(at([await feed.next()])).toEqual([[slot(15), 4]]);
    expect(feed.receivedIds).toEqual([feed.lastEventId()]);
    const afterBooking = feed.lastEventId();
    expect(afterBooking).not.toBe(stateId);
    feed.close();

    // Moved on while away (and an id that names no state of it): every slot again, the current state.
    await succeeded(booker('POST', '/v1/bookings', { service_id: serviceId, start_time: slot(14), customer }));
    for (const lastEventId of [afterBooking!, stateId!, 'msg_notastate']) {
      feed = await openFeed(transport, { baseUrl: server.url, credential: readerKey, serviceId, startDate: day, endDate: day, lastEventId });
      feeds.push(feed);
      const snapshot = await feed.take(slotsPerDay);
      expect(snapshot).toEqual(await availabilityNow(serviceId, day));
      expect(at(snapshot)).toContainEqual([slot(14), 5]);
      feed.close();
    }
  });
});

describe('a waitlist offer', () => {
  it('sends the places a release leaves once the offer it makes in the same commit has taken its own', async () => {
    const days = 38;
    const day = futureSlot(days).slice(0, 10);
    const slot = futureSlot(days, 21);
    const serviceId = await openService(server.prisma, { capacity: 4 });
    const feed = await open('graphql-ws', serviceId, day);
    await feed.take(slotsPerDay);
    const hold = await succeeded(booker('POST', '/v1/holds', { service_id: serviceId, start_time: slot, party_size: 4 }));
    expect(at([await feed.next()])).toEqual([[slot, 0]]);
    await succeeded(booker('POST', '/v1/waitlist_entries', { service_id: serviceId, start_time: slot, party_size: 1, customer }));
    await succeeded(booker('DELETE', `/v1/holds/${String(hold['id'])}`), 200);
    // Released 4, offered 1 to the line: 3 left, never 4.
    expect(at([await feed.next()])).toEqual([[slot, 3]]);
    expect(await server.prisma.waitlistEntry.count({ where: { serviceId, status: 'offered' } })).toBe(1);
  });
});

describe('an operator changing the schedule', () => {
  it('sends the slots taken out of it once, with no places left, and those added', async () => {
    const days = 33;
    const day = futureSlot(days).slice(0, 10);
    const serviceId = await openService(server.prisma, { capacity: 2 });
    const feed = await open('graphql-ws', serviceId, day);
    await feed.take(slotsPerDay);
    // Mornings only, and every ten minutes: the afternoon's slots and those at :05 go.
    const mornings = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, opens: '00:00', closes: '12:00' }));
    await succeeded(operator('PATCH', `/v1/admin/services/${serviceId}`, { opening_hours: mornings, slot_minutes: 10 }), 200);
    const gone = await feed.take(slotsPerDay - 72);
    expect(gone.every((entry) => entry.remaining === 0)).toBe(true);
    expect(new Set(gone.map((entry) => entry.startTime)).size).toBe(slotsPerDay - 72);
    expect(gone.some((entry) => entry.startTime === futureSlot(days, 12))).toBe(true);
    // The remaining slots did not change; the next message is the next change's.
    await succeeded(booker('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(days, 10), customer }));
    expect(at([await feed.next()])).toEqual([[futureSlot(days, 10), 1]]);
  });
});

describe('the REST event stream', () => {
  it('is counted among the open subscriptions, from its start to its end', async () => {
    const serviceId = await openService(server.prisma, { capacity: 1 });
    const day = futureSlot(34).slice(0, 10);
    const before = await subscriptionsActive(server.url);
    const feed = await open('rest-sse', serviceId, day);
    await feed.next();
    expect(await subscriptionsActive(server.url)).toBe(before + 1);
    feed.close();
    await expect.poll(() => subscriptionsActive(server.url)).toBe(before);
  });

  it('ends at once when its key is revoked', async () => {
    const serviceId = await openService(server.prisma, { capacity: 1 });
    const day = futureSlot(34).slice(0, 10);
    const { key, keyId } = await server.createKey({ scopes: ['bookings:read'] });
    const feed = await openFeed('rest-sse', { baseUrl: server.url, credential: key, serviceId, startDate: day, endDate: day, timeoutMs: 5_000 });
    feeds.push(feed);
    await feed.take(slotsPerDay);
    expect((await operator('DELETE', `/v1/admin/api_keys/${keyId}`)).status).toBe(200);
    // Its last event is the problem saying why it ends.
    await expect(feed.next()).rejects.toThrow(/^unauthenticated: /);
  });

  it('is documented in /v1/openapi.json with the Last-Event-ID it resumes from', async () => {
    const document = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as {
      paths: Record<string, { get: { parameters: { $ref?: string; name?: string }[]; responses: { '200': { content: Record<string, unknown> } } } }>;
      components: { parameters: Record<string, { name: string; in: string }> };
    };
    const route = document.paths['/v1/services/{id}/availability']!.get;
    expect(Object.keys(route.responses['200'].content)).toContain('text/event-stream');
    const parameters = route.parameters.map((parameter) => (parameter.$ref ? document.components.parameters[parameter.$ref.split('/').at(-1)!]! : parameter));
    expect(parameters).toContainEqual(expect.objectContaining({ name: 'Last-Event-ID', in: 'header' }));
  });

  it('leaves plain JSON requests answered as before, and says the answer varies by Accept', async () => {
    const serviceId = await openService(server.prisma, { capacity: 1 });
    const day = futureSlot(34).slice(0, 10);
    for (const accept of ['application/json', '*/*', 'application/json, text/event-stream;q=0.5']) {
      const response = await fetch(`${server.url}/v1/services/${serviceId}/availability?start_date=${day}&end_date=${day}`, {
        headers: { authorization: `Bearer ${readerKey}`, accept },
      });
      expect(response.headers.get('content-type')).toContain('application/json');
      expect(response.headers.get('vary')).toContain('Accept');
      expect(((await response.json()) as { data: unknown[] }).data).toHaveLength(slotsPerDay);
    }
  });
});

describe('refusals', () => {
  const day = futureSlot(35).slice(0, 10);
  let serviceId: string;
  beforeAll(async () => {
    serviceId = await openService(server.prisma, { capacity: 1 });
  });

  const refusalOf = async (transport: Transport, request: { serviceId?: string; startDate?: string; endDate?: string }) => {
    const feed = await openFeed(transport, { baseUrl: server.url, credential: readerKey, serviceId, startDate: day, endDate: day, ...request });
    feeds.push(feed);
    const refusal = await feed.next().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(StreamRefusal);
    return refusal as StreamRefusal;
  };

  it.each(['graphql-ws', 'graphql-sse', 'rest-sse'] as const)('over %s: a range ending before it starts or longer than 31 days, and an unknown service', async (transport) => {
    const backwards = await refusalOf(transport, { startDate: futureSlot(36).slice(0, 10) });
    expect(backwards.code).toBe('invalid_parameter');
    const tooLong = await refusalOf(transport, { endDate: futureSlot(35 + 31).slice(0, 10) });
    expect(tooLong.code).toBe('invalid_parameter');
    const unknown = await refusalOf(transport, { serviceId: 'svc_nosuchservice000000000' });
    expect(unknown.code).toBe('not_found');
    // Every slot of it has started: nothing could ever be sent.
    const threeDaysAgo = new Date(clock().getTime() - 3 * 86_400_000).toISOString().slice(0, 10);
    const past = await refusalOf(transport, { startDate: threeDaysAgo, endDate: threeDaysAgo });
    expect(past.code).toBe('invalid_parameter');
    if (transport !== 'graphql-ws') expect([backwards.status, tooLong.status, unknown.status, past.status]).toEqual([400, 400, 404, 400]);
  });

  it.each(['graphql-ws', 'rest-sse'] as const)('over %s: a key that reads no bookings', async (transport) => {
    const { key } = await server.createKey({ scopes: ['directory:read', 'webhooks:manage'] });
    const feed = await openFeed(transport, { baseUrl: server.url, credential: key, serviceId, startDate: day, endDate: day });
    feeds.push(feed);
    const refusal = await feed.next().catch((error: unknown) => error);
    expect(refusal).toMatchObject({ code: 'insufficient_scope', status: transport === 'rest-sse' ? 403 : undefined });
  });

  it('weighs the subscription by the slots its range can hold, as Service.availability', async () => {
    const selection = Array.from({ length: 8 }, (_, index) => `r${index}: remaining`).join(' ');
    const subscribe = (endDate: string) =>
      fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${readerKey}`, 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ query: `subscription { availabilityChanged(serviceId: "${serviceId}", startDate: "${day}", endDate: "${endDate}") { ${selection} } }` }),
      });
    const month = await subscribe(futureSlot(35 + 30).slice(0, 10));
    expect(month.status).toBe(400);
    expect(await month.text()).toContain('query_too_complex');
    const oneDay = await subscribe(day);
    expect(oneDay.status).toBe(200);
    await oneDay.body!.cancel();
  });

  it('names the REST parameters in a refused range', async () => {
    const response = await fetch(`${server.url}/v1/services/${serviceId}/availability?start_date=${futureSlot(36).slice(0, 10)}&end_date=${day}`, {
      headers: { authorization: `Bearer ${readerKey}`, accept: 'text/event-stream' },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'invalid_parameter', errors: [{ field: 'start_date', code: 'after_end_date' }] });
    const past = new Date(clock().getTime() - 3 * 86_400_000).toISOString().slice(0, 10);
    const ended = await fetch(`${server.url}/v1/services/${serviceId}/availability?start_date=${past}&end_date=${past}`, {
      headers: { authorization: `Bearer ${readerKey}`, accept: 'text/event-stream' },
    });
    expect([ended.status, await ended.json()]).toMatchObject([400, { errors: [{ field: 'end_date', code: 'in_past' }] }]);
    // A range that ended yesterday may still hold slots past midnight: it is streamed.
    const yesterday = new Date(clock().getTime() - 86_400_000).toISOString().slice(0, 10);
    const recent = await fetch(`${server.url}/v1/services/${serviceId}/availability?start_date=${yesterday}&end_date=${yesterday}`, {
      headers: { authorization: `Bearer ${readerKey}`, accept: 'text/event-stream' },
    });
    expect(recent.status).toBe(200);
    await recent.body!.cancel();
  });
});

describe('a widget token that may not book', () => {
  const day = futureSlot(37).slice(0, 10);
  let serviceId: string;
  beforeAll(async () => {
    serviceId = await openService(server.prisma, { capacity: 3 });
  });

  it.each(['graphql-ws', 'rest-sse'] as const)('subscribes to availability over %s and sees bookings change it', async (transport) => {
    const feed = await open(transport, serviceId, day, directoryToken, shop);
    expect(await feed.take(slotsPerDay)).toEqual(await availabilityNow(serviceId, day));
    const start = futureSlot(37, transport === 'rest-sse' ? 10 : 11);
    await succeeded(booker('POST', '/v1/bookings', { service_id: serviceId, start_time: start, customer }));
    expect(at([await feed.next()])).toEqual([[start, 2]]);
  });

  it("reads a service's public fields and availability", async () => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${directoryToken}`, origin: shop, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        query: `{ service(id: "${serviceId}") { name capacity durationMinutes timezone slotMinutes seasonStart seasonEnd openingHours { weekday } availability(startDate: "${day}", endDate: "${day}") { startTime remaining } } }`,
      }),
    });
    const answer = (await response.json()) as { data: { service: { capacity: number; availability: unknown[] } }; errors?: unknown };
    expect(answer.errors).toBeUndefined();
    expect(answer.data.service.capacity).toBe(3);
    expect(answer.data.service.availability).toHaveLength(slotsPerDay);
  });

  it.each([
    ['GET', '/v1/bookings'],
    ['GET', '/v1/services'],
    ['GET', '/v1/waitlist_entries'],
    ['GET', '/v1/booking_events'],
    ['GET', '/v1/webhook_endpoints'],
    ['POST', '/v1/holds'],
  ])('is refused %s %s with 403', async (method, path) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${directoryToken}`, origin: shop, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
      ...(method === 'POST' ? { body: JSON.stringify({ service_id: serviceId, start_time: futureSlot(37, 12) }) } : {}),
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ code: 'insufficient_scope' });
  });

  it('is refused the booking events subscription', async () => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${directoryToken}`, origin: shop, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { bookingEvents { id } }' }),
    });
    expect(response.status).toBe(403);
  });
});
