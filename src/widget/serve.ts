import { createHash, randomBytes } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { AppError } from '../shared/errors.js';
import { demoPage } from './demo.js';
import { widgetBundlePath } from './paths.js';

/**
 * Serves /widget.v1.js and /widget/demo. The script is cached by browsers and CDNs for a day and
 * then revalidated by ETag: its name carries the major version, so fixes within v1 reach every
 * page by the next day without anyone editing their snippet.
 */

const scriptCacheControl = 'public, max-age=86400, stale-while-revalidate=604800';
type Encoding = 'br' | 'gzip' | 'identity';

interface Representation {
  body: Buffer;
  etag: string;
}

interface ScriptFile {
  modifiedMs: number;
  representations: Record<Encoding, Representation>;
}

let cachedScript: ScriptFile | undefined;

async function loadScript(): Promise<ScriptFile> {
  const info = await stat(widgetBundlePath).catch(() => null);
  if (!info) throw new AppError('service_unavailable', 'The widget script is not built yet; run `npm run build:widget`.');
  if (cachedScript?.modifiedMs === info.mtimeMs) return cachedScript;
  const body = await readFile(widgetBundlePath);
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 27);
  // Each encoding is its own representation, so each gets its own strong tag.
  cachedScript = {
    modifiedMs: info.mtimeMs,
    representations: {
      identity: { body, etag: `"${hash}"` },
      gzip: { body: gzipSync(body, { level: 9 }), etag: `"${hash}-gzip"` },
      br: { body: brotliCompressSync(body), etag: `"${hash}-br"` },
    },
  };
  return cachedScript;
}

/** The best coding the client accepts (q > 0), br before gzip. */
function negotiateEncoding(acceptEncoding: string | undefined): Encoding {
  const accepted = new Set(
    (acceptEncoding ?? '')
      .split(',')
      .map((entry) => entry.trim().toLowerCase().split(';'))
      .filter(([, quality]) => !quality || Number(quality.trim().replace(/^q=/, '')) > 0)
      .map(([name]) => name),
  );
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip')) return 'gzip';
  return 'identity';
}

/** If-None-Match uses the weak comparison: a proxy's W/ prefix still matches. */
function matchesTag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const candidate = tag.trim();
    return candidate === '*' || candidate.replace(/^W\//, '') === etag;
  });
}

function requireReadMethod(request: IncomingMessage): void {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    throw new AppError('method_not_allowed', `${request.method} is not allowed here; use GET.`, { headers: { allow: 'GET, HEAD' } });
  }
}

async function serveScript(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const script = await loadScript();
  const encoding = negotiateEncoding(request.headers['accept-encoding']);
  const { body, etag } = script.representations[encoding];
  const headers: Record<string, string> = {
    etag,
    'cache-control': scriptCacheControl,
    vary: 'Accept-Encoding',
    // Any site may embed the script, also pages that isolate themselves with COEP.
    'access-control-allow-origin': '*',
    'cross-origin-resource-policy': 'cross-origin',
  };
  if (matchesTag(request.headers['if-none-match'], etag)) {
    response.writeHead(304, headers);
    response.end();
    return;
  }
  response.writeHead(200, {
    ...headers,
    'content-type': 'application/javascript; charset=utf-8',
    'content-length': String(body.length),
    'x-content-type-options': 'nosniff',
    ...(encoding === 'identity' ? {} : { 'content-encoding': encoding }),
  });
  response.end(request.method === 'HEAD' ? undefined : body);
}

function serveDemo(request: IncomingMessage, response: ServerResponse, url: URL): void {
  const nonce = randomBytes(16).toString('base64');
  const html = demoPage(request, url.searchParams, nonce);
  response.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': String(Buffer.byteLength(html)),
    'cache-control': 'no-store',
    // Strict on purpose: the widget must work on pages that allow no inline styles.
    'content-security-policy': `default-src 'none'; script-src 'self' 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self' https: data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  });
  response.end(request.method === 'HEAD' ? undefined : html);
}

/** For the HTTP server's serveAsset hook: true when the path was one of the widget's. */
export async function serveWidgetAsset(request: IncomingMessage, response: ServerResponse, url: URL): Promise<boolean> {
  if (url.pathname === '/widget.v1.js') {
    requireReadMethod(request);
    await serveScript(request, response);
    return true;
  }
  if (url.pathname === '/widget/demo') {
    requireReadMethod(request);
    serveDemo(request, response, url);
    return true;
  }
  return false;
}
