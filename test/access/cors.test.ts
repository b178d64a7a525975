import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWidgetToken, revokeWidgetToken } from '../../src/access/admin.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { postGraphQL } from './requests.js';

const typename = '{ __typename }';
const shop = 'https://shop.example';
const other = 'https://evil.example';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

async function widgetToken(allowedOrigins: string[], rateLimitPerMinute?: number) {
  const accountId = await server.createAccount();
  const token = await createWidgetToken(server.prisma, { accountId, allowedOrigins, ...(rateLimitPerMinute ? { rateLimitPerMinute } : {}) });
  return token.id;
}

describe('CORS preflight', () => {
  it.each(['/graphql', '/v1/bookings', '/api/v1/events'])('answers OPTIONS %s with the methods and headers the API takes', async (path) => {
    const response = await fetch(`${server.url}${path}`, {
      method: 'OPTIONS',
      headers: { origin: shop, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, x-signature, traceparent' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(shop);
    expect(response.headers.get('access-control-allow-methods')).toContain('POST');
    const allowedHeaders = response.headers.get('access-control-allow-headers')!.toLowerCase();
    // Every request header the README documents: conditional updates (If-Match) and resumed event streams (Last-Event-ID) among them.
    for (const name of [
      'authorization',
      'content-type',
      'idempotency-key',
      'if-match',
      'if-none-match',
      'if-modified-since',
      'last-event-id',
      'x-signature',
      'x-signature-timestamp',
      'x-request-id',
      // W3C trace context, sent by a browser's OpenTelemetry (README: Operating it, tracing).
      'traceparent',
      'tracestate',
    ]) {
      expect(allowedHeaders).toContain(name);
    }
    expect(response.headers.get('access-control-max-age')).toBe('600');
    expect(response.headers.get('vary')).toContain('Origin');
  });
});

describe('per-key allowed_origins', () => {
  it('grants a listed origin, exposing the rate-limit headers', async () => {
    const { key } = await server.createKey({ allowedOrigins: [shop] });
    const response = await postGraphQL(server.url, key, typename, { headers: { origin: shop } });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(shop);
    expect(response.headers.get('access-control-expose-headers')).toContain('X-RateLimit-Remaining');
    expect(response.headers.get('vary')).toContain('Origin');
  });

  it('refuses an origin the key does not list with 403 origin_not_allowed and no CORS grant', async () => {
    const { key } = await server.createKey({ allowedOrigins: [shop] });
    const response = await postGraphQL(server.url, key, typename, { headers: { origin: other } });
    expect(response.status).toBe(403);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect((await response.json()).errors[0].extensions.code).toBe('origin_not_allowed');
  });

  it('gives keys without allowed_origins no CORS grant (server-to-server keys), but serves callers that send no Origin', async () => {
    const { key } = await server.createKey();
    const fromPage = await postGraphQL(server.url, key, typename, { headers: { origin: shop } });
    expect(fromPage.headers.get('access-control-allow-origin')).toBeNull();
    const fromServer = await postGraphQL(server.url, key, typename);
    expect(fromServer.status).toBe(200);
  });

  it('treats pages of the API itself (GraphiQL) as same-origin', async () => {
    const { key } = await server.createKey({ allowedOrigins: [shop] });
    const response = await postGraphQL(server.url, key, typename, { headers: { origin: server.url } });
    expect(response.status).toBe(200);
  });

  it('keeps the grant on refusals after admission, so a permitted page can read a 429', async () => {
    const token = await widgetToken([shop], 1);
    expect((await postGraphQL(server.url, token, typename, { headers: { origin: shop } })).status).toBe(200);
    const refused = await postGraphQL(server.url, token, typename, { headers: { origin: shop } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('access-control-allow-origin')).toBe(shop);
    expect(refused.headers.get('retry-after')).not.toBeNull();
  });

  it('keeps the grant on a query string refused for bytes that are not UTF-8, on REST and GraphQL', async () => {
    const token = await widgetToken([shop]);
    for (const path of ['/api/v1/events?q=%E9', `/graphql?query=${encodeURIComponent(typename)}&x=%E9`]) {
      const refused = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}`, origin: shop } });
      expect([path, refused.status, refused.headers.get('access-control-allow-origin')]).toEqual([path, 400, shop]);
    }
  });

  it('lets any page read anonymous answers and 401s, which hold nothing private', async () => {
    const anonymous = await postGraphQL(server.url, null, typename, { headers: { origin: other } });
    expect(anonymous.headers.get('access-control-allow-origin')).toBe(other);
    const unknown = await postGraphQL(server.url, 'key_unknown0000.sk_unknownunknownunknown', typename, { headers: { origin: other } });
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('access-control-allow-origin')).toBe(other);
  });
});

describe('widget tokens', () => {
  it('work from their allowed origins only, and never without an Origin', async () => {
    const token = await widgetToken([shop]);
    const allowed = await postGraphQL(server.url, token, typename, { headers: { origin: shop } });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(shop);

    for (const headers of [{ origin: other }, {}] as Record<string, string>[]) {
      const refused = await postGraphQL(server.url, token, typename, { headers });
      expect(refused.status).toBe(403);
      expect((await refused.json()).errors[0].extensions.code).toBe('origin_not_allowed');
    }
  });

  it('let a page they refuse read why, naming the origins they allow', async () => {
    const token = await widgetToken([shop]);
    const refused = await postGraphQL(server.url, token, typename, { headers: { origin: other } });
    expect(refused.status).toBe(403);
    // Widget tokens are public, and so are the sites they are on: the refusal holds nothing private.
    expect(refused.headers.get('access-control-allow-origin')).toBe(other);
    const [error] = (await refused.json()).errors;
    expect(error.extensions.code).toBe('origin_not_allowed');
    expect(error.message).toBe(`Pages of ${other} are not allowed to use this widget token; it allows ${shop}.`);
  });

  it('repeat at most 64 characters of a refused Origin, and grant none to a text no browser sends as an Origin', async () => {
    const token = await widgetToken([shop]);
    const long = `https://${'a'.repeat(3000)}.example`;
    const refusedLong = await postGraphQL(server.url, token, typename, { headers: { origin: long } });
    expect(refusedLong.status).toBe(403);
    expect((await refusedLong.json()).errors[0].message).toBe(`Pages of ${long.slice(0, 64)}… are not allowed to use this widget token; it allows ${shop}.`);

    for (const origin of ['https://x.example"><script>', 'https://x.example/path']) {
      const refused = await postGraphQL(server.url, token, typename, { headers: { origin } });
      expect(refused.status, origin).toBe(403);
      expect(refused.headers.get('access-control-allow-origin'), origin).toBeNull();
      const anonymous = await fetch(`${server.url}/healthz`, { headers: { origin } });
      expect(anonymous.headers.get('access-control-allow-origin'), origin).toBeNull();
      const preflight = await fetch(`${server.url}/graphql`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' } });
      expect(preflight.headers.get('access-control-allow-origin'), origin).toBeNull();
    }
    // Browsers send `null` from sandboxed frames and file: pages: such a page may read why it is refused.
    const fromSandbox = await postGraphQL(server.url, token, typename, { headers: { origin: 'null' } });
    expect([fromSandbox.status, fromSandbox.headers.get('access-control-allow-origin')]).toEqual([403, 'null']);
  });

  it('have their own per-minute limit', async () => {
    const token = await widgetToken([shop], 3);
    const response = await postGraphQL(server.url, token, typename, { headers: { origin: shop } });
    expect(response.headers.get('x-ratelimit-limit')).toBe('3');
    expect(response.headers.get('x-ratelimit-remaining')).toBe('2');
  });

  it('read only the directory', async () => {
    const token = await widgetToken([shop]);
    const viewer = await postGraphQL(server.url, token, '{ viewer { scopes } }', { headers: { origin: shop } });
    expect((await viewer.json()).errors[0].extensions.code).toBe('insufficient_scope');
    const admin = await fetch(`${server.url}/v1/admin/api_keys`, { headers: { authorization: `Bearer ${token}`, origin: shop } });
    expect(admin.status).toBe(403);
    expect(await admin.json()).toMatchObject({ code: 'insufficient_scope' });
  });

  it('stop working once revoked', async () => {
    const token = await widgetToken([shop]);
    await revokeWidgetToken(server.prisma, token, new Date());
    expect((await postGraphQL(server.url, token, typename, { headers: { origin: shop } })).status).toBe(401);
  });
});
