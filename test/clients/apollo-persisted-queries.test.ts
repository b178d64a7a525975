import { createHash, randomUUID } from 'node:crypto';
import { ApolloClient, ApolloLink, HttpLink, InMemoryCache, gql, type TypedDocumentNode } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireService } from '../support/services.js';
import { startTestServer, type TestServer } from '../support/server.js';

const redisUrl = await requireService('redis');

interface Sent {
  method: string;
  /** Whether the request carried the document itself, not only its hash. */
  withDocument: boolean;
  status: number;
  code: unknown;
}

/** Apollo Client with automatic persisted queries against one server, recording what it sends. */
function apolloClient(url: string, key: string, useGETForHashedQueries: boolean) {
  const sent: Sent[] = [];
  const recordingFetch: typeof fetch = async (input, init) => {
    const target = new URL(String(input));
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    const response = await fetch(input, init);
    const answer = await response.clone().json();
    sent.push({
      method: init?.method ?? 'GET',
      withDocument: Boolean(target.searchParams.get('query') ?? body?.query),
      status: response.status,
      code: answer.errors?.[0]?.extensions?.code,
    });
    return response;
  };
  const link = ApolloLink.from([
    new PersistedQueryLink({ sha256: (text) => createHash('sha256').update(text).digest('hex'), useGETForHashedQueries }),
    new HttpLink({ uri: `${url}/graphql`, headers: { authorization: `Bearer ${key}` }, fetch: recordingFetch }),
  ]);
  const client = new ApolloClient({ link, cache: new InMemoryCache(), defaultOptions: { query: { fetchPolicy: 'no-cache' } } });
  return { client, sent };
}

/** A document no other test registered, so each test starts with an unknown hash. */
function viewerQuery(): TypedDocumentNode<{ viewer: { accountId: string; scopes: string[] } }> {
  return gql(`query Viewer${randomUUID().replaceAll('-', '')} { viewer { accountId scopes } }`);
}

describe('Apollo Client automatic persisted queries, kept in memory', () => {
  let server: TestServer;
  let key: string;
  let accountId: string;

  beforeAll(async () => {
    server = await startTestServer({ config: { REDIS_URL: undefined } });
    ({ key, accountId } = await server.createKey({ scopes: ['bookings:read'] }));
  });
  afterAll(() => server?.close());

  it('over GET: an unknown hash is PERSISTED_QUERY_NOT_FOUND, the client registers the document, and the next client sends only the hash', async () => {
    const query = viewerQuery();
    const first = apolloClient(server.url, key, true);
    const { data } = await first.client.query({ query });
    expect(data).toEqual({ viewer: { __typename: 'Viewer', accountId, scopes: ['bookings:read'] } });
    expect(first.sent).toEqual([
      { method: 'GET', withDocument: false, status: 404, code: 'PERSISTED_QUERY_NOT_FOUND' },
      { method: 'POST', withDocument: true, status: 200, code: undefined },
    ]);

    const second = apolloClient(server.url, key, true);
    expect((await second.client.query({ query })).data).toEqual(data);
    expect(second.sent).toEqual([{ method: 'GET', withDocument: false, status: 200, code: undefined }]);
  });

  it('over POST, likewise', async () => {
    const query = viewerQuery();
    const first = apolloClient(server.url, key, false);
    await first.client.query({ query });
    expect(first.sent).toEqual([
      { method: 'POST', withDocument: false, status: 404, code: 'PERSISTED_QUERY_NOT_FOUND' },
      { method: 'POST', withDocument: true, status: 200, code: undefined },
    ]);
    const second = apolloClient(server.url, key, false);
    const { data } = await second.client.query({ query });
    expect(data?.viewer.accountId).toBe(accountId);
    expect(second.sent).toEqual([{ method: 'POST', withDocument: false, status: 200, code: undefined }]);
  });

  it('refuses a document sent with a hash that is not its own', async () => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }', extensions: { persistedQuery: { version: 1, sha256Hash: '0'.repeat(64) } } }),
    });
    expect(response.status).toBe(400);
    expect((await response.json()).errors[0].extensions.code).toBe('PERSISTED_QUERY_MISMATCH');
  });
});

describe.skipIf(!redisUrl)('Apollo Client automatic persisted queries, shared through Redis', () => {
  let servers: TestServer[];
  let keys: string[];

  beforeAll(async () => {
    // Two instances of one deployment: the same Redis and key prefix.
    const shared = new URL(redisUrl!);
    shared.searchParams.set('keyPrefix', `test-${randomUUID()}:`);
    servers = await Promise.all([0, 1].map(() => startTestServer({ config: { REDIS_URL: shared.toString() } })));
    keys = await Promise.all(servers.map(async (server) => (await server.createKey({ scopes: ['bookings:read'] })).key));
  });
  afterAll(() => Promise.all(servers?.map((server) => server.close()) ?? []));

  it('a document registered on one instance is found by its hash on the other', async () => {
    const query = viewerQuery();
    const first = apolloClient(servers[0]!.url, keys[0]!, true);
    await first.client.query({ query });
    expect(first.sent.map((request) => request.code)).toEqual(['PERSISTED_QUERY_NOT_FOUND', undefined]);

    const second = apolloClient(servers[1]!.url, keys[1]!, true);
    const { data } = await second.client.query({ query });
    expect(data?.viewer.scopes).toEqual(['bookings:read']);
    expect(second.sent).toEqual([{ method: 'GET', withDocument: false, status: 200, code: undefined }]);
  });
});
