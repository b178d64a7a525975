import { createClient, type Client } from 'graphql-ws';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { apiClient, futureSlot, type ApiCall } from '../support/http.js';
import { startReceiver } from '../support/receiver.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { openService } from '../support/bookable.js';

let server: TestServer;
let key: string;
let call: ApiCall;
let serviceId: string;
let client: Client | undefined;

beforeAll(async () => {
  server = await startTestServer({ seed: true, config: { WEBHOOK_POLL_MS: 25 } });
  ({ key } = await server.createKey({ scopes: ['bookings:read', 'bookings:write', 'webhooks:manage'] }));
  call = apiClient(server.url, key);
  serviceId = await openService(server.prisma);
});
afterAll(async () => {
  await client?.dispose();
  await server?.close();
});

interface LoggedEvent {
  id: string;
  event: string;
  data: Record<string, unknown> & { id: string };
}

/** The account's log after `after` over graphql-ws: the subscription replays it, then would stream live. */
async function subscribedEvents(after: string, count: number): Promise<LoggedEvent[]> {
  client = createClient({
    url: `${server.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${key}` },
    retryAttempts: 0,
  });
  const events: LoggedEvent[] = [];
  let failure: unknown;
  client.subscribe(
    { query: 'subscription($after: ID) { bookingEvents(after: $after) { id event data } }', variables: { after } },
    { next: (value) => void events.push((value.data as { bookingEvents: LoggedEvent }).bookingEvents), error: (error) => (failure = error), complete: () => undefined },
  );
  await expect.poll(() => failure ?? events.length, { timeout: 10_000 }).toBe(count);
  return events;
}

describe('one booking shape', () => {
  it('REST answers a booking exactly as booking.created, .updated and .cancelled carry it in webhooks, the log and the subscription', async () => {
    const receiver = await startReceiver();
    const endpoint = await call('POST', '/v1/webhook_endpoints', { url: receiver.url });
    expect(endpoint.status).toBe(201);
    // An earlier booking of the account, whose event the subscription replays after.
    const earlier = await call('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(70), customer: { name: 'Earlier', email: 'earlier@example.com' } });
    const [earlierEvent] = (await call('GET', '/v1/booking_events')).body.data;
    expect(earlierEvent.data.id).toBe(earlier.body.id);

    const created = await call('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(71), customer: { name: 'Shape', email: 'shape@example.com' } });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const updated = await call('PATCH', `/v1/bookings/${id}`, { start_time: futureSlot(71, 20), customer: { name: 'Shape Renamed' } });
    expect(updated.status).toBe(200);
    const cancelled = await call('DELETE', `/v1/bookings/${id}`, { reason: 'Customer called: plans changed.' });
    expect(cancelled.status).toBe(200);
    const answers = { 'booking.created': created.body, 'booking.updated': updated.body, 'booking.cancelled': cancelled.body };
    expect(Object.values(answers).map((answer) => answer.status)).toEqual(['confirmed', 'confirmed', 'cancelled']);

    const verifier = new Webhook(endpoint.body.secret);
    const delivered = (await receiver.waitFor(4))
      .map((webhook) => verifier.verify(webhook.body, webhook.headers as Record<string, string>) as LoggedEvent)
      .filter((event) => event.data.id === id);
    const logged = ((await call('GET', `/v1/booking_events?after=${earlierEvent.id}`)).body.data as LoggedEvent[]).filter((event) => event.data.id === id);
    const subscribed = (await subscribedEvents(earlierEvent.id, 3)).filter((event) => event.data.id === id);

    // What each event says besides the booking: the old values of what changed, who cancelled and why.
    const details = {
      'booking.created': {},
      'booking.updated': {
        previous_attributes: {
          start_time: created.body.start_time,
          end_time: created.body.end_time,
          customer: { name: 'Shape' },
          updated_at: created.body.updated_at,
        },
      },
      'booking.cancelled': { cancellation: { by: key.split('.')[0], reason: 'Customer called: plans changed.' } },
    };
    const sources = { webhook: delivered, log: logged, subscription: subscribed };
    for (const [source, events] of Object.entries(sources)) {
      expect(
        events.map((event) => event.event),
        source,
      ).toEqual(Object.keys(answers));
      for (const event of events) {
        const type = event.event as keyof typeof answers;
        // The whole object, both ways: a field gained, lost or renamed on either side fails.
        expect({ source, event: type, data: event.data }).toStrictEqual({ source, event: type, data: { ...answers[type], ...details[type] } });
      }
    }
    // The same data, key for key in the same order, everywhere: the webhook's signed bytes are the log's and the subscription's.
    const dataBytes = (events: LoggedEvent[]) => events.map((event) => JSON.stringify(event.data));
    expect(dataBytes(logged)).toEqual(dataBytes(delivered));
    expect(dataBytes(subscribed)).toEqual(dataBytes(delivered));
    // …and in the order REST answers it, as a receiver reading the raw body next to GET /v1/bookings/{id} sees it.
    const [deliveredCreate] = delivered;
    expect(Object.keys(deliveredCreate!.data)).toEqual(Object.keys(created.body));
    expect(JSON.stringify(deliveredCreate!.data)).toBe(JSON.stringify(created.body));
    await call('DELETE', `/v1/webhook_endpoints/${endpoint.body.id}`);
    await receiver.close();
  });
});
