import { createHash, createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { signRequest } from '../../src/access/signing.js';
import { startTestServer, type TestServer } from '../support/server.js';

const now = new Date('2026-11-22T12:00:00.000Z');
const nowSeconds = now.getTime() / 1000;
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ clock: () => now });
});
afterAll(() => server.close());

const body = JSON.stringify({ query: '{ __typename }' });

function post(key: string, headers: Record<string, string>, target = '/graphql', payload = body) {
  return fetch(`${server.url}${target}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: payload,
  });
}

async function codeOf(response: Response): Promise<string | undefined> {
  const json = await response.json();
  return json.errors?.[0]?.extensions?.code ?? json.code;
}

function enterpriseKey(requireSignature = false) {
  return server.createKey({ plan: 'enterprise', requireSignature });
}

describe('HMAC request signing', () => {
  it('signs exactly as the README says: HMAC-SHA256 over "<timestamp>.<METHOD>.<path?query>.<hex sha256(body)>"', () => {
    const bodyDigest = createHash('sha256').update(body).digest('hex');
    const expected = createHmac('sha256', 'hs_secret').update(`1700000000.POST./graphql?x=1.${bodyDigest}`).digest('hex');
    const headers = signRequest({ signingSecret: 'hs_secret', method: 'post', url: 'http://host:4000/graphql?x=1', body, timestamp: 1700000000 });
    expect(headers).toEqual({ 'x-signature-timestamp': '1700000000', 'x-signature': `v1=${expected}` });
  });

  it('accepts a correctly signed request, at the edges of the ±300 s window too', async () => {
    const { key, signingSecret } = await enterpriseKey();
    for (const timestamp of [nowSeconds, nowSeconds - 300, nowSeconds + 300]) {
      const response = await post(key, signRequest({ signingSecret: signingSecret!, method: 'POST', url: '/graphql', body, timestamp }));
      expect(response.status, String(timestamp)).toBe(200);
    }
  });

  it('accepts signed GETs with a query string and no body', async () => {
    const { key, signingSecret } = await enterpriseKey(true);
    const target = `/graphql?query=${encodeURIComponent('{ __typename }')}`;
    const response = await fetch(`${server.url}${target}`, {
      headers: { authorization: `Bearer ${key}`, ...signRequest({ signingSecret: signingSecret!, method: 'GET', url: target, timestamp: nowSeconds }) },
    });
    expect(response.status).toBe(200);
  });

  it('refuses a timestamp outside ±300 s with 401 signature_expired', async () => {
    const { key, signingSecret } = await enterpriseKey();
    for (const timestamp of [nowSeconds - 301, nowSeconds + 301]) {
      const response = await post(key, signRequest({ signingSecret: signingSecret!, method: 'POST', url: '/graphql', body, timestamp }));
      expect(response.status).toBe(401);
      expect(await codeOf(response)).toBe('signature_expired');
    }
  });

  it('refuses a wrong signature with 401 invalid_signature: other body, other path, other secret, malformed', async () => {
    const { key, signingSecret } = await enterpriseKey();
    const sign = (overrides: Partial<Parameters<typeof signRequest>[0]>) =>
      signRequest({ signingSecret: signingSecret!, method: 'POST', url: '/graphql', body, timestamp: nowSeconds, ...overrides });
    const attempts = [
      sign({ body: `${body} ` }),
      sign({ url: '/graphql?x=1' }),
      sign({ method: 'PUT' }),
      sign({ signingSecret: 'hs_someone_else' }),
      { 'x-signature-timestamp': String(nowSeconds), 'x-signature': 'sha256=abc' },
      { 'x-signature-timestamp': 'yesterday', 'x-signature': sign({})['x-signature'] },
      { 'x-signature': sign({})['x-signature'] },
    ];
    for (const headers of attempts) {
      const response = await post(key, headers);
      expect(response.status, JSON.stringify(headers)).toBe(401);
      expect(await codeOf(response)).toBe('invalid_signature');
    }
  });

  it('refuses a signature used twice with 401 replayed_request (REST problem+json)', async () => {
    const { key, signingSecret } = await enterpriseKey();
    const target = '/v1/no_such_route';
    const headers = signRequest({ signingSecret: signingSecret!, method: 'POST', url: target, body, timestamp: nowSeconds });
    expect((await post(key, headers, target)).status).toBe(404);
    const replay = await post(key, headers, target);
    expect(replay.status).toBe(401);
    expect(replay.headers.get('content-type')).toBe('application/problem+json');
    expect(await replay.json()).toMatchObject({ code: 'replayed_request' });
  });

  it('makes keys with require_signature refuse unsigned calls, while other keys may call unsigned', async () => {
    const required = await enterpriseKey(true);
    const unsigned = await post(required.key, {});
    expect(unsigned.status).toBe(401);
    expect(await codeOf(unsigned)).toBe('invalid_signature');

    const optional = await enterpriseKey(false);
    expect((await post(optional.key, {})).status).toBe(200);
  });

  it('refuses signature headers from a key that has no signing secret', async () => {
    const { key } = await server.createKey({ plan: 'pro' });
    const response = await post(key, signRequest({ signingSecret: 'hs_guess', method: 'POST', url: '/graphql', body, timestamp: nowSeconds }));
    expect(response.status).toBe(401);
    expect(await codeOf(response)).toBe('invalid_signature');
  });

  it('signs WebSocket connections through connection_init (GET /graphql, empty body)', async () => {
    const { key, signingSecret } = await enterpriseKey(true);
    const connect = (params: Record<string, string>) =>
      new Promise<string>((resolve) => {
        const client = createClient({
          url: `${server.url.replace('http', 'ws')}/graphql`,
          webSocketImpl: WebSocket,
          connectionParams: { authorization: `Bearer ${key}`, ...params },
          retryAttempts: 0,
          lazy: false,
          // The refusals are what this test looks for; the client would also print them.
          onNonLazyError: () => undefined,
          on: {
            connected: () => void Promise.resolve(client.dispose()).then(() => resolve('connected')),
            closed: (event) => resolve(`closed ${(event as { code: number; reason: string }).code} ${(event as { reason: string }).reason}`),
          },
        });
      });
    const signature = signRequest({ signingSecret: signingSecret!, method: 'GET', url: '/graphql', timestamp: nowSeconds });
    expect(await connect(signature)).toBe('connected');
    // Refused as graphql-ws refuses, saying why.
    expect(await connect(signature)).toMatch(/^closed 4403 replayed_request: /);
    expect(await connect({})).toMatch(/^closed 4403 \w+: /);
    // The timestamp as a JSON number stands for the same header.
    const another = signRequest({ signingSecret: signingSecret!, method: 'GET', url: '/graphql', timestamp: nowSeconds + 1 });
    expect(await connect({ ...another, 'x-signature-timestamp': Number(another['x-signature-timestamp']) } as unknown as Record<string, string>)).toBe('connected');
  });
});
