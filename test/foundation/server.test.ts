import { once } from 'node:events';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startTestServer();
  ({ key } = await server.createKey({ scopes: ['bookings:read'] }));
});
afterAll(() => server?.close());

describe('a client trickling its request', () => {
  let patient: TestServer;
  beforeAll(async () => {
    patient = await startTestServer({ config: { REQUEST_TIMEOUT_MS: 1000 } });
  });
  afterAll(() => patient?.close());

  it('is answered 408 and cut off once REQUEST_TIMEOUT_MS has passed, before its body is read', { timeout: 15_000 }, async () => {
    const { port } = new URL(patient.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += String(chunk)));
    socket.write('POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{');
    await once(socket, 'close');
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(problemIn(answer)).toMatchObject({ status: 408, code: 'request_timeout' });
  });
});

/** Sends `request` as raw bytes and reads the whole answer, until the server closes the connection. */
async function rawExchange(url: string, request: string): Promise<string> {
  const socket = net.connect(Number(new URL(url).port), '127.0.0.1');
  let answer = '';
  socket.on('data', (chunk) => (answer += String(chunk)));
  socket.write(request);
  await once(socket, 'close');
  return answer;
}

/** The problem document of a raw HTTP answer, checked to be one. */
function problemIn(answer: string): Record<string, unknown> {
  const [head, body] = answer.split('\r\n\r\n') as [string, string];
  expect(head).toMatch(/\r\ncontent-type: application\/problem\+json\r\n/i);
  return JSON.parse(body) as Record<string, unknown>;
}

describe('a request Node cannot read as HTTP', () => {
  it('is answered with a problem document, not a bare status line: headers too large 431, malformed 400', async () => {
    const tooLarge = await rawExchange(server.url, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Padding: ${'p'.repeat(20_000)}\r\n\r\n`);
    expect(tooLarge).toMatch(/^HTTP\/1\.1 431 /);
    expect(problemIn(tooLarge)).toMatchObject({ status: 431, code: 'headers_too_large', request_id: expect.stringMatching(/^req_/) });
    const malformed = await rawExchange(server.url, 'POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n');
    expect(malformed).toMatch(/^HTTP\/1\.1 400 /);
    expect(problemIn(malformed)).toMatchObject({ status: 400, code: 'invalid_request' });
  });

  it('nor a request Node or ws would refuse barely: CONNECT 405, no Host 400, an upgrade to another path 404, a bad handshake 400, a target too long 414', async () => {
    const answers = {
      connect: await rawExchange(server.url, 'CONNECT /v1/bookings HTTP/1.1\r\nHost: x\r\n\r\n'),
      noHost: await rawExchange(server.url, 'GET /healthz HTTP/1.1\r\n\r\n'),
      otherPath: await rawExchange(
        server.url,
        'GET /v1/bookings HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
      ),
      badKey: await rawExchange(
        server.url,
        'GET /graphql HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: x\r\n\r\n',
      ),
      noHostUpgrade: await rawExchange(
        server.url,
        'GET /graphql HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
      ),
      twoHosts: await rawExchange(server.url, 'GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n'),
      // A path URL parsing would rewrite to /graphql, as an HTTP request's is refused.
      dotSegments: await rawExchange(
        server.url,
        'GET http://x/widget/%2e%2e/graphql HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
      ),
      tooLongTarget: await rawExchange(server.url, `GET /api/v1/events?q=${'q'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`),
    };
    const shown = Object.fromEntries(Object.entries(answers).map(([name, answer]) => [name, { line: answer.split('\r\n', 1)[0], code: problemIn(answer)['code'] }]));
    expect(shown).toEqual({
      connect: { line: 'HTTP/1.1 405 Method Not Allowed', code: 'method_not_allowed' },
      noHost: { line: 'HTTP/1.1 400 Bad Request', code: 'invalid_request' },
      otherPath: { line: 'HTTP/1.1 404 Not Found', code: 'not_found' },
      badKey: { line: 'HTTP/1.1 400 Bad Request', code: 'invalid_request' },
      noHostUpgrade: { line: 'HTTP/1.1 400 Bad Request', code: 'invalid_request' },
      twoHosts: { line: 'HTTP/1.1 400 Bad Request', code: 'invalid_request' },
      dotSegments: { line: 'HTTP/1.1 400 Bad Request', code: 'invalid_request' },
      tooLongTarget: { line: 'HTTP/1.1 414 URI Too Long', code: 'uri_too_long' },
    });
    expect(answers.connect).toMatch(/\r\nallow: GET, HEAD, POST, PATCH, DELETE, OPTIONS\r\n/);
  });

  it('offering an upgrade to h2c (curl --http2, Java’s HttpClient) is served as HTTP/1.1 where Node asks which upgrades to take (22+), else refused with a problem document', async () => {
    const h2c = (target: string) =>
      rawExchange(
        server.url,
        `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings, close\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n\r\n`,
      );
    const answers = [await h2c('/healthz'), await h2c('/graphql')];
    if (Number(process.versions.node.split('.')[0]) >= 22) {
      expect(answers[0]).toMatch(/^HTTP\/1\.1 200 OK\r\n[^]*\r\n\r\n\{"status":"ok"\}$/);
      expect(answers[1]).toMatch(/^HTTP\/1\.1 401 /);
    } else {
      for (const answer of answers) expect([answer.split('\r\n', 1)[0], problemIn(answer)['code']]).toEqual(['HTTP/1.1 400 Bad Request', 'invalid_request']);
    }
  });

  it('is answered and its connection closed, though the client keeps its own side open', async () => {
    const connections = () => new Promise<number>((resolve, reject) => server.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
    const socket = net.connect({ port: Number(new URL(server.url).port), host: '127.0.0.1', allowHalfOpen: true });
    let answer = '';
    socket.on('data', (chunk) => (answer += String(chunk)));
    socket.write('POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n');
    await once(socket, 'end');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    // Before, the server only ended its side: the connection stayed open, and so did the server's close.
    while ((await connections()) > 0) await new Promise((resolve) => setImmediate(resolve));
    socket.destroy();
  });

  it('on a connection whose earlier response is still being sent, closes it without writing into that response', async () => {
    const socket = net.connect(Number(new URL(server.url).port), '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += String(chunk)));
    const subscription = JSON.stringify({ query: 'subscription { bookingEvents { id } }' });
    // Pipelined: the stream's response waits for the first, and is being sent when the bad bytes come.
    socket.write(
      'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n' +
        `POST /graphql HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: ${Buffer.byteLength(subscription)}\r\n\r\n${subscription}`,
    );
    while (!received.includes('text/event-stream')) await once(socket, 'data');
    socket.write('NOT HTTP\r\n\r\n');
    await once(socket, 'close');
    expect(received).not.toMatch(/HTTP\/1\.1 400/);
  });
});

describe('a request with an Expect header', () => {
  it('is answered 417 with a problem document when it expects anything but 100-continue', async () => {
    const answer = await rawExchange(
      server.url,
      'POST /graphql HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nX-Request-Id: expecting-1\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 417 /);
    expect(answer).toMatch(/\r\nx-request-id: expecting-1\r\n/i);
    expect(problemIn(answer)).toMatchObject({ status: 417, code: 'expectation_failed', request_id: 'expecting-1' });
  });

  it('is refused 413 before 100 Continue when its declared body is over the limit, and continued otherwise', async () => {
    const tooLarge = await rawExchange(
      server.url,
      `POST /graphql HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: ${server.app.services.config.MAX_BODY_BYTES + 1}\r\n\r\n`,
    );
    expect(tooLarge).toMatch(/^HTTP\/1\.1 413 /);
    // On /graphql, as a GraphQL error, as everything there is answered.
    expect(JSON.parse(tooLarge.split('\r\n\r\n')[1]!).errors[0].extensions).toEqual({ code: 'payload_too_large' });

    const socket = net.connect(Number(new URL(server.url).port), '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += String(chunk)));
    const body = JSON.stringify({ query: '{ viewer { scopes } }' });
    socket.write(
      `POST /graphql HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    await expect.poll(() => answer).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\n$/);
    socket.write(body);
    await once(socket, 'close');
    expect(answer).toMatch(/\r\n\r\nHTTP\/1\.1 200 /);
    expect(answer).toContain('{"data":{"viewer":{"scopes":["bookings:read"]}}}');
  });
});

describe('HTTP foundation', () => {
  it('keeps an idle connection open for KEEP_ALIVE_TIMEOUT_MS, 65 s unless set (past a load balancer’s 60 s), and says so', async () => {
    expect((await fetch(`${server.url}/healthz`)).headers.get('keep-alive')).toBe('timeout=65');
    const brief = await startTestServer({ config: { KEEP_ALIVE_TIMEOUT_MS: 2_000 } });
    try {
      const socket = net.connect(Number(new URL(brief.url).port), '127.0.0.1');
      let answer = '';
      socket.on('data', (chunk) => (answer += String(chunk)));
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      const startedAt = performance.now();
      await once(socket, 'close');
      expect(answer).toMatch(/^HTTP\/1\.1 200 [^]*\r\nKeep-Alive: timeout=2\r\n/i);
      // Closed by the server once idle for its timeout, not before.
      expect(performance.now() - startedAt).toBeGreaterThan(1_500);
    } finally {
      await brief.close();
    }
  });

  it('answers health and readiness, readiness from the database', async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', redis: process.env['TEST_REDIS_URL'] ? 'ok' : 'not_configured' } });
  });

  it("says on a problem's status line what its title says: 422 Unprocessable Content (RFC 9110), 405 Method Not Allowed", async () => {
    const { key } = await server.createKey();
    const unprocessable = await rawExchange(
      server.url,
      `POST /v1/bookings HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
    );
    expect(unprocessable).toMatch(/^HTTP\/1\.1 422 Unprocessable Content\r\n/);
    expect(problemIn(unprocessable)).toMatchObject({ status: 422, title: 'Unprocessable Content' });
    const notAllowed = await rawExchange(server.url, 'POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    expect(notAllowed).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
  });

  it('answers the probes and /metrics to GET and HEAD only: 405 with Allow otherwise', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      expect((await fetch(`${server.url}${path}`, { method: 'HEAD' })).status, path).toBe(200);
      const posted = await fetch(`${server.url}${path}`, { method: 'POST', body: '{}' });
      expect(posted.status, path).toBe(405);
      expect(posted.headers.get('allow')).toBe('GET, HEAD');
      expect(await posted.json()).toMatchObject({ status: 405, code: 'method_not_allowed' });
    }
  });

  it('echoes a client X-Request-Id and makes one otherwise', async () => {
    const echoed = await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': 'trace-123' } });
    expect(echoed.headers.get('x-request-id')).toBe('trace-123');
    const made = await fetch(`${server.url}/healthz`);
    expect(made.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
  });

  it.each([
    ['missing', undefined, 'Bearer realm="hallowgate"'],
    ['malformed', 'Bearer nonsense', 'Bearer realm="hallowgate", error="invalid_token"'],
    ['unknown', 'Bearer key_AAAAAAAAAAAAAAAAAAAAAA.sk_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB', 'Bearer realm="hallowgate", error="invalid_token"'],
    // Another scheme names no error (RFC 6750 §3.1).
    ['not bearer', 'Basic dXNlcjpwYXNz', 'Bearer realm="hallowgate"'],
  ])('refuses a %s key with 401 problem+json and a WWW-Authenticate challenge naming the error (RFC 6750)', async (_label, authorization, challenge) => {
    const response = await fetch(`${server.url}/v1/bookings`, { headers: authorization ? { authorization } : {} });
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(response.headers.get('www-authenticate')).toBe(challenge);
    const problem = await response.json();
    expect(problem).toMatchObject({ status: 401, code: 'unauthenticated', title: 'Unauthorized' });
    expect(problem.request_id).toBe(response.headers.get('x-request-id'));
  });

  it('refuses a revoked key', async () => {
    const revoked = await server.createKey({ scopes: ['bookings:read'] });
    await server.prisma.apiKey.update({ where: { id: revoked.keyId }, data: { revokedAt: new Date() } });
    const response = await fetch(`${server.url}/v1/bookings`, { headers: { authorization: `Bearer ${revoked.key}` } });
    expect(response.status).toBe(401);
  });

  it('answers an unknown route with 404 problem+json', async () => {
    const response = await fetch(`${server.url}/v1/no-such-thing`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: 'not_found', status: 404 });
    expect((await fetch(`${server.url}/nowhere`)).status).toBe(404);
  });

  it('serves both OpenAPI documents without a key', async () => {
    for (const path of ['/v1/openapi.json', '/api/v1/openapi.json']) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status).toBe(200);
      expect((await response.json()).openapi).toBe('3.1.0');
    }
  });

  it('identifies the calling key in GraphQL, and codes an anonymous call unauthenticated', async () => {
    const query = JSON.stringify({ query: '{ viewer { accountId scopes } }' });
    const headers = { 'content-type': 'application/json' };
    const authenticated = await fetch(`${server.url}/graphql`, { method: 'POST', headers: { ...headers, authorization: `Bearer ${key}` }, body: query });
    expect((await authenticated.json()).data.viewer.scopes).toEqual(['bookings:read']);
    const anonymous = await fetch(`${server.url}/graphql`, { method: 'POST', headers, body: query });
    expect((await anonymous.json()).errors[0].extensions.code).toBe('unauthenticated');
  });

  it('answers /graphql methods other than GET and POST 405 in JSON, whatever the Accept header prefers', async () => {
    for (const [method, accept] of [
      ['PUT', 'text/event-stream'],
      ['HEAD', 'text/event-stream'],
      ['DELETE', 'multipart/mixed;subscriptionSpec=1.0'],
      ['PATCH', 'application/json'],
    ] as const) {
      const answer = await fetch(`${server.url}/graphql?query={__typename}`, { method, headers: { authorization: `Bearer ${key}`, accept } });
      expect([answer.status, answer.headers.get('allow'), answer.headers.get('content-type')], `${method} ${accept}`).toEqual([
        405,
        'GET, POST',
        'application/json; charset=utf-8',
      ]);
      if (method !== 'HEAD') expect((await answer.json()).errors[0].extensions.code).toBe('method_not_allowed');
    }
  });

  it('serves GraphiQL to browsers', async () => {
    const response = await fetch(`${server.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('GraphiQL');
  });

  it('exposes Prometheus metrics', async () => {
    const response = await fetch(`${server.url}/metrics`);
    expect(await response.text()).toContain('process_cpu_user_seconds_total');
  });
});

describe('shutting down', () => {
  it('ends open event streams (SSE and multipart) instead of waiting for their clients to leave', { timeout: 30_000 }, async () => {
    const closing = await startTestServer();
    const { key: subscriber } = await closing.createKey({ scopes: ['bookings:read'] });
    const streams = await Promise.all(
      ['text/event-stream', 'multipart/mixed;subscriptionSpec=1.0'].map(async (accept) => {
        const response = await fetch(`${closing.url}/graphql`, {
          method: 'POST',
          headers: { authorization: `Bearer ${subscriber}`, 'content-type': 'application/json', accept },
          body: JSON.stringify({ query: 'subscription { bookingEvents { id } }' }),
        });
        expect(response.status).toBe(200);
        const reader = response.body!.getReader();
        // Wrapped: an async function returning the promise itself would wait for it.
        return {
          ended: (async () => {
            while (!(await reader.read().catch(() => ({ done: true }))).done);
          })(),
        };
      }),
    );
    const startedAt = performance.now();
    await closing.close();
    await Promise.all(streams.map((stream) => stream.ended));
    // Without ending them, close() waits for as long as the clients stay: the test's timeout.
    expect(performance.now() - startedAt).toBeLessThan(3_000);
  });

  it(
    'waits no longer than REQUEST_TIMEOUT_MS for a client still sending its request, nor a second for a WebSocket peer that never answers the close',
    { timeout: 30_000 },
    async () => {
      const closing = await startTestServer({ config: { REQUEST_TIMEOUT_MS: 2_000 } });
      const port = Number(new URL(closing.url).port);
      const unfinished = net.connect(port, '127.0.0.1');
      unfinished.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
      // A WebSocket whose peer reads nothing, so never answers the close frame (nor pings).
      const silent = net.connect(port, '127.0.0.1');
      silent.write(
        'GET /graphql HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: graphql-transport-ws\r\n\r\n',
      );
      await once(silent, 'data');
      silent.pause();
      const startedAt = performance.now();
      await closing.close();
      const tookMs = performance.now() - startedAt;
      unfinished.destroy();
      silent.destroy();
      // Before: as long as the clients stayed (the test's timeout).
      expect(tookMs).toBeGreaterThan(1_500);
      expect(tookMs).toBeLessThan(2_000 + 2_500);
    },
  );
});
