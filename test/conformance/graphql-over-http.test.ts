import { serverAudits } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startTestServer();
  ({ key } = await server.createKey({ scopes: ['directory:read'] }));
});
afterAll(() => server?.close());

/** The GraphQL over HTTP spec's own audit suite, run against /graphql with an API key. */
describe('GraphQL over HTTP conformance', () => {
  const audits = serverAudits({
    url: () => `${server.url}/graphql`,
    fetchFn: (input: RequestInfo | URL, init: RequestInit = {}) => {
      const headers = new Headers(init.headers);
      headers.set('authorization', `Bearer ${key}`);
      return fetch(input, { ...init, headers });
    },
  });

  for (const audit of audits) {
    it(`${audit.id} ${audit.name}`, async () => {
      const result = await audit.fn();
      // Every item, SHOULD and MAY ones included: warnings are what clients trip on.
      expect(result.status === 'ok' ? 'ok' : `${result.status}: ${result.reason}`).toBe('ok');
    });
  }
});

describe('refusals before GraphQL runs', () => {
  it.each([
    ['application/graphql-response+json', 'application/graphql-response+json'],
    ['application/json', 'application/json'],
    ['application/graphql-response+json, application/json;q=0.9', 'application/graphql-response+json'],
  ])('answer 401 in the media type a GraphQL answer would take (Accept %s)', async (accept, mediaType) => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { authorization: 'Bearer key_nobody.sk_nothing_here_at_all', 'content-type': 'application/json', accept },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toBe(`${mediaType}; charset=utf-8`);
    expect((await response.json()).errors[0].extensions).toEqual({ code: 'unauthenticated' });
  });
});
