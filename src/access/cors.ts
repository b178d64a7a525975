/**
 * Per-credential CORS. Preflights carry no credential, so they are answered for any origin with the
 * methods and headers the API accepts; the real request, which does carry the key or widget token,
 * is where the origin is checked, and only an origin the credential lists is granted.
 */

type Headers = Record<string, string | string[] | undefined>;

const allowedMethods = 'GET, HEAD, POST, PATCH, DELETE, OPTIONS';
const allowedRequestHeaders = [
  'Authorization',
  'Content-Type',
  'Idempotency-Key',
  'If-Match',
  'If-None-Match',
  'If-Modified-Since',
  'Last-Event-ID',
  // W3C trace context, which a browser's OpenTelemetry sends to continue its trace here.
  'traceparent',
  'tracestate',
  'X-Request-Id',
  'X-Signature',
  'X-Signature-Timestamp',
].join(', ');
const exposedResponseHeaders = [
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'ETag',
  'Last-Modified',
  'Link',
  'Location',
  'Idempotent-Replayed',
  'WWW-Authenticate',
].join(', ');
const preflightMaxAgeSeconds = 600;

function single(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** An origin written as browsers send it (`https://shop.example:8443`); null when the text is not a bare http(s) origin. */
export function normalizeOrigin(text: string): string | null {
  try {
    const url = new URL(text);
    const web = url.protocol === 'http:' || url.protocol === 'https:';
    const bare = url.pathname === '/' && url.search === '' && url.hash === '' && url.username === '' && url.password === '';
    return web && bare ? url.origin : null;
  } catch {
    return null;
  }
}

export interface RequestOrigin {
  /** The Origin header of a cross-origin request; null when absent or same-origin. */
  crossOrigin: string | null;
  /** A page of this API's own host made the call (GraphiQL, the demo pages). */
  sameOrigin: boolean;
}

export function requestOriginOf(headers: Headers): RequestOrigin {
  const origin = single(headers, 'origin');
  if (origin === undefined || origin === '') {
    return { crossOrigin: null, sameOrigin: single(headers, 'sec-fetch-site') === 'same-origin' };
  }
  let originHost: string | null = null;
  try {
    originHost = new URL(origin).host;
  } catch {
    // "null" (sandboxed frames, file: pages) and other opaque origins are cross-origin.
  }
  const sameOrigin = originHost !== null && originHost === single(headers, 'host');
  return { crossOrigin: sameOrigin ? null : origin, sameOrigin };
}

/** Headers that let a browser page at `origin` read the response. */
export function corsGrantHeaders(origin: string): Record<string, string> {
  return {
    'access-control-allow-origin': origin,
    'access-control-expose-headers': exposedResponseHeaders,
    vary: 'Origin',
  };
}

/** Whether a browser could have sent this Origin (`null` too: sandboxed frames, file: pages): only such a text is ever repeated in a grant. */
function isOrigin(text: string): boolean {
  return text === 'null' || normalizeOrigin(text) === text;
}

/** A grant for a page whose credential is not checked (anonymous answers, refusals it may read); none for a text no browser sends. */
export function grantIfOrigin(text: string): Record<string, string> {
  return isOrigin(text) ? corsGrantHeaders(text) : {};
}

/** The answer to a CORS preflight, or null when the request is not one. */
export function preflightHeaders(headers: Headers): Record<string, string> | null {
  const origin = single(headers, 'origin');
  const requestedMethod = single(headers, 'access-control-request-method');
  if (!origin || !requestedMethod) return null;
  return {
    ...(isOrigin(origin) ? { 'access-control-allow-origin': origin } : {}),
    'access-control-allow-methods': allowedMethods,
    'access-control-allow-headers': allowedRequestHeaders,
    'access-control-max-age': String(preflightMaxAgeSeconds),
    vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
  };
}
