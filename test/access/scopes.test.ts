import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'graphql-ws';
import { webSocketFrom } from '../support/websocket.js';
import { hasScope, scopes, type Principal, type Scope } from '../../src/access/principal.js';
import { createWidgetToken } from '../../src/access/admin.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** The first error code a subscription ends with, or "started" when its first message arrives without one. */
function subscribe(credential: string, query: string, origin?: string): Promise<string> {
  return new Promise((resolve) => {
    const client = createClient({
      url: `${server.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: webSocketFrom(origin),
      connectionParams: { authorization: `Bearer ${credential}` },
      retryAttempts: 0,
    });
    const finish = (outcome: string) => void Promise.resolve(client.dispose()).then(() => resolve(outcome));
    client.subscribe(
      { query },
      {
        next: (message) => finish((message.errors?.[0]?.extensions?.['code'] as string | undefined) ?? 'started'),
        error: (error) => {
          const errors = error as Array<{ extensions?: { code?: string } }> | { code?: number };
          finish(Array.isArray(errors) ? (errors[0]?.extensions?.code ?? 'error') : `closed ${errors.code}`);
        },
        complete: () => finish('complete'),
      },
    );
  });
}

describe('scopes', () => {
  it('admin implies every other scope; nothing else implies another', () => {
    const principal = (granted: Scope[]): Principal => ({
      kind: 'api_key',
      keyId: 'key_test',
      accountId: 'acct_test',
      scopes: granted,
      plan: 'free',
      promo: false,
      expiresAt: null,
      secretHash: 'not-checked-here',
    });
    for (const scope of scopes) expect(hasScope(principal(['admin']), scope)).toBe(true);
    expect(hasScope(principal(['bookings:write']), 'bookings:read')).toBe(false);
    expect(hasScope(null, 'directory:read')).toBe(false);
  });

  // Without the check at subscribe time the subscription would just wait for events: give up early.
  it('are enforced on subscriptions over WebSocket: no bookings:read, no booking events', { timeout: 10_000 }, async () => {
    const { key } = await server.createKey({ scopes: ['directory:read'] });
    expect(await subscribe(key, 'subscription { bookingEvents { id } }')).toBe('insufficient_scope');
  });

  it('keep widget tokens out of subscriptions', { timeout: 10_000 }, async () => {
    const accountId = await server.createAccount();
    const token = await createWidgetToken(server.prisma, { accountId, allowedOrigins: ['https://blog.example'] });
    expect(await subscribe(token.id, 'subscription { bookingEvents { id } }', 'https://blog.example')).toBe('insufficient_scope');
  });

  it('refuse a WebSocket connection from an origin a widget token does not list', async () => {
    const accountId = await server.createAccount();
    const token = await createWidgetToken(server.prisma, { accountId, allowedOrigins: ['https://blog.example'] });
    expect(await subscribe(token.id, '{ __typename }', 'https://evil.example')).toBe('closed 4403');
  });
});
