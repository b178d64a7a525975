import type { IncomingMessage } from 'node:http';

/**
 * The origin clients reach the server at, for absolute URLs in answers (`Location`, `Link`, the
 * OpenAPI documents' `servers`): PUBLIC_URL when it is set (behind a proxy or TLS terminator), else
 * the request's own Host, else the address the request arrived on.
 */

/** A DNS name, an IPv4 address or a bracketed IPv6 address, with an optional port: anything else in Host is ignored. */
const hostPattern = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

export function publicOriginOf(request: IncomingMessage, publicUrl: string | undefined): string {
  if (publicUrl) return publicUrl;
  const host = request.headers.host;
  if (host && host.length <= 260 && hostPattern.test(host)) return `http://${host.toLowerCase()}`;
  const { localAddress = '127.0.0.1', localPort } = request.socket;
  const address = localAddress.startsWith('::ffff:') ? localAddress.slice(7) : localAddress;
  return `http://${address.includes(':') ? `[${address}]` : address}:${localPort}`;
}
