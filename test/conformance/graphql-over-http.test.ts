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
      if (result.status === 'error') throw new Error(`${result.reason}: ${JSON.stringify(result.response?.status)}`);
      // SHOULD and MAY items are reported as warnings; only MUST items may fail the build.
      if (audit.name.startsWith('MUST')) expect(result.status).toBe('ok');
    });
  }
});
