import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { AppError } from '../shared/errors.js';

/** Serving the built browser scripts and the HTML pages around them. */

type Encoding = 'br' | 'gzip' | 'identity';

interface Representation {
  body: Buffer;
  etag: string;
}

interface LoadedScript {
  modifiedMs: number;
  representations: Record<Encoding, Representation>;
}

export interface ScriptAsset {
  path: string;
  cacheControl: string;
  /** Extra response headers (CORS, CORP) for scripts other sites embed. */
  headers?: Record<string, string>;
  /** The command that builds the file, named in the 503 while it is missing. */
  buildCommand: string;
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

export function requireReadMethod(request: IncomingMessage): void {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    throw new AppError('method_not_allowed', `${request.method} is not allowed here; use GET.`, { headers: { allow: 'GET, HEAD' } });
  }
}

/**
 * A handler for one built script: compressed once per build (re-read when the file changes), each
 * encoding its own representation with its own strong ETag, 304 on a matching If-None-Match.
 */
export function scriptHandler(asset: ScriptAsset): (request: IncomingMessage, response: ServerResponse) => Promise<void> {
  let loaded: LoadedScript | undefined;

  async function load(): Promise<LoadedScript> {
    const info = await stat(asset.path).catch(() => null);
    if (!info) throw new AppError('service_unavailable', `The script is not built yet; run \`${asset.buildCommand}\`.`);
    if (loaded?.modifiedMs === info.mtimeMs) return loaded;
    const body = await readFile(asset.path);
    const hash = createHash('sha256').update(body).digest('base64url').slice(0, 27);
    loaded = {
      modifiedMs: info.mtimeMs,
      representations: {
        identity: { body, etag: `"${hash}"` },
        gzip: { body: gzipSync(body, { level: 9 }), etag: `"${hash}-gzip"` },
        br: { body: brotliCompressSync(body), etag: `"${hash}-br"` },
      },
    };
    return loaded;
  }

  return async (request, response) => {
    requireReadMethod(request);
    const script = await load();
    const encoding = negotiateEncoding(request.headers['accept-encoding']);
    const { body, etag } = script.representations[encoding];
    const headers: Record<string, string> = { etag, 'cache-control': asset.cacheControl, vary: 'Accept-Encoding', ...asset.headers };
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
  };
}

/** An HTML page under a strict Content-Security-Policy whose inline code runs only with `nonce`. */
export function sendPage(request: IncomingMessage, response: ServerResponse, html: string, contentSecurityPolicy: string): void {
  requireReadMethod(request);
  response.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': String(Buffer.byteLength(html)),
    'cache-control': 'no-store',
    'content-security-policy': contentSecurityPolicy,
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  });
  response.end(request.method === 'HEAD' ? undefined : html);
}
