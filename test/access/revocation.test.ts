import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriptionsActive } from '../support/metrics.js';
import { createApiKey, newApiKeyCredentials } from '../../src/access/keys.js';
import { newId } from '../../src/shared/ids.js';
import { apiClient, futureSlot } from '../support/http.js';
import { testSecretsKey } from '../support/secrets.js';
import type { App } from '../../src/app.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { requireService } from '../support/services.js';
import { closeOpenConnections, openEventStream, openSocket, type Payload } from './connections.js';
import { postgresUrlOf, runCli } from './processes.js';
import { bearer } from './requests.js';
import { openService } from '../support/bookable.js';

const redisUrl = await requireService('redis');
const postgresUrl = await requireService('postgres');

/** How long a revoked, rotated or expired credential may keep its connections (the README promises 5 s). */
const revocationBoundMs = 5_000;

afterAll(closeOpenConnections);

describe('a credential that stops being valid loses its open connections', () => {
  let server: TestServer;
  let adminKey: string;
  let serviceId: string;
  let day = 30;

  beforeAll(async () => {
    server = await startTestServer({ seed: true });
    adminKey = (await server.createKey({ scopes: ['admin'], plan: 'enterprise' })).key;
    serviceId = await openService(server.prisma);
  });
  afterAll(() => server?.close());

  const admin = (method: string, path: string) => fetch(`${server.url}${path}`, { method, headers: bearer(adminKey) });

  /** A key of a new account to subscribe with, a witness subscribed on the same account, and a way to book there. */
  async function accountWithSubscriber(keyOptions: { expiresAt?: Date } = {}) {
    const subject = await server.createKey({ scopes: ['bookings:read'], ...keyOptions });
    const other = await server.createKey({ accountId: subject.accountId, scopes: ['bookings:read', 'bookings:write'] });
    const witness = await openSocket(server.url, other.key);
    witness.subscribe();
    const book = async () => {
      const booked = await apiClient(server.url, other.key)('POST', '/v1/bookings', {
        service_id: serviceId,
        start_time: futureSlot(day++),
        customer: { name: 'Revenant', email: 'revenant@example.com' },
      });
      expect(booked.status).toBe(201);
    };
    return { subject, witness, book };
  }

  /** Socket and stream of the subject both live: each received the first booking's event. */
  async function liveConnections(subjectKey: string, book: () => Promise<void>, witness: { payloads: Payload[] }) {
    const socket = await openSocket(server.url, subjectKey);
    socket.subscribe();
    const stream = await openEventStream(server.url, subjectKey);
    expect(stream.response.status).toBe(200);
    await book();
    await expect.poll(() => [socket.payloads.length, stream.payloads.length, witness.payloads.length]).toEqual([1, 1, 1]);
    return { socket, stream };
  }

  async function expectCutOffWithinBound(connections: Awaited<ReturnType<typeof liveConnections>>, from: number) {
    await expect.poll(() => connections.socket.closeCode, { timeout: revocationBoundMs + 1_000 }).toBe(4403);
    await expect.poll(() => connections.stream.endedAt, { timeout: revocationBoundMs + 1_000 }).toBeGreaterThan(0);
    expect(connections.socket.closedAt - from).toBeLessThan(revocationBoundMs);
    expect(connections.stream.endedAt - from).toBeLessThan(revocationBoundMs);
    // The stream's last result says why it ends, where the socket's close code does.
    expect(connections.stream.payloads.at(-1)).toMatchObject({ errors: [{ extensions: { code: 'unauthenticated' } }] });
  }

  it('revoking a key over REST closes its graphql-ws socket with 4403 and ends its SSE stream within 5 s; later events reach neither', async () => {
    const { subject, witness, book } = await accountWithSubscriber();
    const connections = await liveConnections(subject.key, book, witness);

    expect((await admin('DELETE', `/v1/admin/api_keys/${subject.keyId}`)).status).toBe(200);
    await expectCutOffWithinBound(connections, Date.now());

    await book();
    await expect.poll(() => witness.payloads.length).toBe(2);
    expect([connections.socket.payloads.length, connections.stream.payloads.length]).toEqual([1, 2]);
  });

  it('rotating a key cuts off what was opened with the old secret the same way', async () => {
    const { subject, witness, book } = await accountWithSubscriber();
    const connections = await liveConnections(subject.key, book, witness);

    const rotated = await admin('POST', `/v1/admin/api_keys/${subject.keyId}/rotate`);
    expect(rotated.status).toBe(200);
    await expectCutOffWithinBound(connections, Date.now());

    await book();
    await expect.poll(() => witness.payloads.length).toBe(2);
    expect([connections.socket.payloads.length, connections.stream.payloads.length]).toEqual([1, 2]);
  });

  it('a key with expiresAt loses its socket and stream when it expires', async () => {
    const expiresAt = new Date(Date.now() + 2_500);
    const { subject, witness, book } = await accountWithSubscriber({ expiresAt });
    const connections = await liveConnections(subject.key, book, witness);
    expect(connections.socket.closeCode).toBeUndefined();

    await expectCutOffWithinBound(connections, expiresAt.getTime());
  });

  it('revoking a widget token closes its graphql-ws socket with 4403', async () => {
    const accountId = await server.createAccount();
    const created = await fetch(`${server.url}/v1/admin/widget_tokens`, {
      method: 'POST',
      headers: bearer(adminKey, { 'content-type': 'application/json' }),
      body: JSON.stringify({ account_id: accountId, allowed_origins: ['https://haunt.example'] }),
    });
    expect(created.status).toBe(201);
    const token: string = (await created.json()).id;
    const socket = await openSocket(server.url, token, 'https://haunt.example');

    expect((await admin('DELETE', `/v1/admin/widget_tokens/${token}`)).status).toBe(200);
    const revokedAt = Date.now();
    await expect.poll(() => socket.closeCode, { timeout: revocationBoundMs + 1_000 }).toBe(4403);
    expect(socket.closedAt - revokedAt).toBeLessThan(revocationBoundMs);
  });

  it('a key revoked or rotated, or a widget token revoked, straight in the database with no announcement at all loses its connections within 5 s', async () => {
    const revoked = await accountWithSubscriber();
    const rotated = await accountWithSubscriber();
    const revokedConnections = await liveConnections(revoked.subject.key, revoked.book, revoked.witness);
    const rotatedConnections = await liveConnections(rotated.subject.key, rotated.book, rotated.witness);
    const { id: token } = await server.prisma.widgetToken.create({
      data: { id: newId('widgetToken'), accountId: revoked.subject.accountId, allowedOrigins: ['https://haunt.example'] },
    });
    const tokenSocket = await openSocket(server.url, token, 'https://haunt.example');

    // What another instance, or the CLI without REDIS_URL, leaves behind: only the rows change.
    await server.prisma.apiKey.update({ where: { id: revoked.subject.keyId }, data: { revokedAt: new Date() } });
    await server.prisma.apiKey.update({ where: { id: rotated.subject.keyId }, data: { secretHash: '0'.repeat(64) } });
    await server.prisma.widgetToken.update({ where: { id: token }, data: { revokedAt: new Date() } });
    const changedAt = Date.now();

    await expectCutOffWithinBound(revokedConnections, changedAt);
    await expectCutOffWithinBound(rotatedConnections, changedAt);
    await expect.poll(() => tokenSocket.closeCode, { timeout: revocationBoundMs + 1_000 }).toBe(4403);
    expect(tokenSocket.closedAt - changedAt).toBeLessThan(revocationBoundMs);
  });
});

describe('an operation sent over an open socket after its key was revoked on an instance that announced nothing here', () => {
  let server: TestServer;
  let sibling: App;
  let siblingUrl: string;

  beforeAll(async () => {
    // No Redis: the sibling's announcement stays in its own process, as with a bus that is down.
    server = await startTestServer({ config: { REDIS_URL: undefined } });
    sibling = server.sibling();
    siblingUrl = await sibling.listen(0, '127.0.0.1');
  });
  afterAll(async () => {
    await sibling?.close();
    await server?.close();
  });

  it('is refused: it never runs, and the socket closes with 4403', async () => {
    const adminKey = (await server.createKey({ scopes: ['admin'] })).key;
    const { key, keyId } = await server.createKey({ scopes: ['bookings:read'] });
    const socket = await openSocket(server.url, key);

    expect((await fetch(`${siblingUrl}/v1/admin/api_keys/${keyId}`, { method: 'DELETE', headers: bearer(adminKey) })).status).toBe(200);
    socket.subscribe('{ __typename }');

    await expect.poll(() => socket.closeCode, { timeout: revocationBoundMs + 1_000 }).toBe(4403);
    expect(socket.payloads).toEqual([]);
  });
});

describe('subscriptions that are refused or end', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  it('an SSE subscription without its scope answers 403 insufficient_scope before any stream, not 500', async () => {
    const { key } = await server.createKey({ scopes: ['directory:read'] });
    const stream = await openEventStream(server.url, key);
    expect(stream.response.status).toBe(403);
    await expect.poll(() => stream.endedAt).toBeGreaterThan(0);
    expect(stream.payloads[0]!.errors![0]!.extensions!.code).toBe('insufficient_scope');
  });

  it('an SSE subscription without a key answers 401, not 500', async () => {
    const stream = await openEventStream(server.url, null);
    expect(stream.response.status).toBe(401);
  });

  it('hallowgate_subscriptions_active: refused subscribes leave it as it was; started ones bring it back when they end', async () => {
    const directoryOnly = await server.createKey({ scopes: ['directory:read'] });
    const reader = await server.createKey({ scopes: ['bookings:read'] });
    const badAfter = { query: 'subscription($after: ID) { bookingEvents(after: $after) { id } }', variables: { after: 'msg_nosuchevent000000000000' } };
    const before = await subscriptionsActive(server.url);

    const refusedSocket = await openSocket(server.url, directoryOnly.key);
    refusedSocket.subscribe();
    const readerSocket = await openSocket(server.url, reader.key);
    readerSocket.subscribe(badAfter.query, badAfter.variables);
    // Both refused before their streams begin: graphql-ws sends such errors as the operation's one result.
    await expect.poll(() => [refusedSocket.payloads.length, readerSocket.payloads.length]).toEqual([1, 1]);
    expect(refusedSocket.payloads[0]!.errors![0]!.extensions!.code).toBe('insufficient_scope');
    expect(readerSocket.payloads[0]!.errors![0]!.extensions!.code).toBe('invalid_parameter');
    for (const stream of [await openEventStream(server.url, directoryOnly.key), await openEventStream(server.url, reader.key, badAfter.query, badAfter.variables)]) {
      await expect.poll(() => stream.endedAt).toBeGreaterThan(0);
    }
    expect(await subscriptionsActive(server.url)).toBe(before);

    // Ended by the client, over graphql-ws and over SSE, and by the socket closing under it.
    const complete = readerSocket.subscribe();
    const stream = await openEventStream(server.url, reader.key);
    const closing = await openSocket(server.url, reader.key);
    closing.subscribe();
    await expect.poll(() => subscriptionsActive(server.url)).toBe(before + 3);
    complete();
    stream.close();
    await closing.client.dispose();
    await expect.poll(() => subscriptionsActive(server.url)).toBe(before);
  });
});

describe.skipIf(!redisUrl)('on instances sharing Redis', () => {
  let first: TestServer;
  let second: TestServer;

  beforeAll(async () => {
    [first, second] = await Promise.all([startTestServer({ config: { REDIS_URL: redisUrl! } }), startTestServer({ config: { REDIS_URL: redisUrl! } })]);
  });
  afterAll(() => Promise.all([first?.close(), second?.close()]));

  it('a key revoked on one instance loses its socket on the other within 5 s', async () => {
    // Each test server has its own database: the same account and key go into both.
    const accountId = newId('account');
    const credentials = newApiKeyCredentials();
    for (const server of [first, second]) {
      await server.prisma.account.create({ data: { id: accountId, name: 'Two instances' } });
      await createApiKey(server.prisma, server.app.services.secrets, { accountId, plan: 'business', scopes: ['bookings:read'] }, credentials);
    }
    const adminKey = (await first.createKey({ scopes: ['admin'] })).key;
    const socket = await openSocket(second.url, credentials.key);

    const revoked = await fetch(`${first.url}/v1/admin/api_keys/${credentials.keyId}`, { method: 'DELETE', headers: bearer(adminKey) });
    expect(revoked.status).toBe(200);
    const revokedAt = Date.now();
    await expect.poll(() => socket.closeCode, { timeout: revocationBoundMs + 1_000 }).toBe(4403);
    expect(socket.closedAt - revokedAt).toBeLessThan(revocationBoundMs);
  });
});

describe.skipIf(!redisUrl || !postgresUrl)('the CLI revoking straight against PostgreSQL, with REDIS_URL', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ postgresUrl: postgresUrl!, config: { REDIS_URL: redisUrl! } });
  });
  afterAll(() => server?.close());

  it('closes the socket the key has open on a server', async () => {
    const { key, keyId } = await server.createKey({ scopes: ['bookings:read'] });
    const socket = await openSocket(server.url, key);

    const revoked = await runCli(['keys', 'revoke', keyId], { DATABASE_URL: postgresUrlOf(server.database), REDIS_URL: redisUrl!, SECRETS_KEY: testSecretsKey });
    expect(revoked.code, revoked.stderr).toBe(0);
    const revokedAt = Date.now();
    await expect.poll(() => socket.closeCode, { timeout: revocationBoundMs + 1_000 }).toBe(4403);
    expect(socket.closedAt - revokedAt).toBeLessThan(revocationBoundMs);
  });
});
