import { createClient, type Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { openService } from '../support/bookable.js';
import { apiClient, futureSlot, type ApiCall } from '../support/http.js';
import { subscriptionsActive } from '../support/metrics.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
let call: ApiCall;
let serviceId: string;
const clients: Client[] = [];

beforeAll(async () => {
  server = await startTestServer({ seed: true });
  call = apiClient(server.url, (await server.createKey({ scopes: ['bookings:read', 'bookings:write'] })).key);
  serviceId = await openService(server.prisma);
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.dispose()));
  await server?.close();
});

const selection = 'subscription ($after: ID) { bookingEvents(after: $after) { id event data booking { id status service { id } } } }';
type Received = { bookingEvents: { id: string; event: string; data: { id: string }; booking: { id: string; status: string; service: { id: string } } } };

/** `count` graphql-ws subscribers with `key`, each on its own socket, collecting what they receive. */
function subscribe(key: string, count: number, after: string): Received[][] {
  return Array.from({ length: count }, () => {
    const received: Received[] = [];
    const client = createClient({
      url: server.url.replace('http', 'ws') + '/graphql',
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${key}` },
      retryAttempts: 0,
    });
    clients.push(client);
    client.subscribe<Received>({ query: selection, variables: { after } }, { next: ({ data }) => void received.push(data!), error: () => undefined, complete: () => undefined });
    return received;
  });
}

async function everyoneHas(subscribers: Received[][], count: number): Promise<void> {
  await expect.poll(() => subscribers.every((received) => received.length >= count), { timeout: 15_000 }).toBe(true);
}

const book = async (days: number) =>
  (await call('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(days), customer: { name: 'Fan', email: 'fan@example.com' } })).body as {
    id: string;
  };

describe('one booking event to many subscribers', () => {
  // The plugin's own test (test/graphql/subscription-fan-out.test.ts) counts executions; this one runs it in the product.
  it('reaches every graphql-ws subscriber of two keys of one account with the same answer, relations included', async () => {
    const first = await book(40);
    const [{ id: after }] = (await call('GET', `/v1/booking_events?limit=100`)).body.data.filter((event: { data: { id: string } }) => event.data.id === first.id);
    const active = await subscriptionsActive(server.url);
    const { accountId } = await server.prisma.booking.findUniqueOrThrow({ where: { id: first.id } });
    // Two keys of one account: their subscribers may see different things, so each key is a group of its own.
    const groupA = subscribe((await server.createKey({ accountId, scopes: ['bookings:read'] })).key, 12, after);
    const groupB = subscribe((await server.createKey({ accountId, scopes: ['bookings:read'] })).key, 12, after);
    await expect.poll(() => subscriptionsActive(server.url), { timeout: 15_000 }).toBe(active + 24);

    // A first event brings every subscriber to the same place of the log, waiting live.
    await book(41);
    await everyoneHas([...groupA, ...groupB], 1);

    const booked = await book(42);
    await everyoneHas([...groupA, ...groupB], 2);
    const answers = [...groupA, ...groupB].map((received) => received[1]!.bookingEvents);
    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
    expect(answers[0]).toMatchObject({ event: 'booking.created', data: { id: booked.id }, booking: { id: booked.id, status: 'CONFIRMED', service: { id: serviceId } } });
  });
});
