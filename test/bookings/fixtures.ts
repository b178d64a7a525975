import { openService } from '../support/bookable.js';
import { apiClient, type ApiCall } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';

export const customer = { name: 'Ada Lovelace', email: 'ada@example.com' };

/**
 * A service of its own, so a test controls its capacity and no other test books its slots. Every
 * 5-minute mark is one of its slots (everyFiveMinutes), so `futureSlot(days, hour)` can be booked.
 */
export function createService(server: TestServer, capacity: number): Promise<string> {
  return openService(server.prisma, { capacity });
}

/** Sends a GraphQL request as the key behind `call` and returns the response body. */
export async function graphql(call: ApiCall, query: string, variables: Record<string, unknown> = {}) {
  const response = await call('POST', '/graphql', { query, variables });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answers of any shape by path
  return response.body as { data?: Record<string, any> | null; errors?: Array<{ message: string; extensions: { code: string; errors?: Array<{ field: string }> } }> };
}

/** Places taken per slot of a service, as the database holds them. */
export async function confirmedCounts(server: TestServer, serviceId: string): Promise<Record<string, number>> {
  const slots = await server.prisma.bookingSlot.findMany({ where: { serviceId } });
  return Object.fromEntries(slots.map((slot) => [slot.startTime.toISOString().replace('.000Z', 'Z'), slot.placesTaken]));
}

export interface BookingTestServer {
  server: TestServer;
  accountId: string;
  /** bookings:read and bookings:write in the account `accountId`. */
  call: ApiCall;
  /** Only bookings:read, in the same account. */
  readOnly: ApiCall;
  /** bookings:read and bookings:write in another account. */
  other: ApiCall;
}

/** A seeded server with an account's read/write and read-only keys, and a key of a second account. */
export async function startBookingServer(onQuery?: (sql: string) => void): Promise<BookingTestServer> {
  const server = await startTestServer({ seed: true, ...(onQuery ? { onQuery } : {}) });
  const owner = await server.createKey({ scopes: ['bookings:read', 'bookings:write'] });
  const readOnly = await server.createKey({ accountId: owner.accountId, scopes: ['bookings:read'] });
  const other = await server.createKey({ scopes: ['bookings:read', 'bookings:write'] });
  return {
    server,
    accountId: owner.accountId,
    call: apiClient(server.url, owner.key),
    readOnly: apiClient(server.url, readOnly.key),
    other: apiClient(server.url, other.key),
  };
}
