import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** A strong entity tag over the exact bytes of the representation. */
export function entityTag(body: string | Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
}

function matchesAnyTag(header: string, tag: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === tag);
}

/**
 * RFC 9110 §13.2.2: If-None-Match decides when present; otherwise If-Modified-Since,
 * compared at one-second precision because HTTP dates have no fractions.
 */
export function isNotModified(headers: IncomingHttpHeaders, tag: string, lastModified: Date | null | undefined): boolean {
  const ifNoneMatch = headers['if-none-match'];
  if (ifNoneMatch !== undefined) return matchesAnyTag(ifNoneMatch, tag);
  const ifModifiedSince = headers['if-modified-since'];
  if (ifModifiedSince === undefined || !lastModified) return false;
  const since = Date.parse(ifModifiedSince);
  if (Number.isNaN(since)) return false;
  return Math.floor(lastModified.getTime() / 1000) <= Math.floor(since / 1000);
}
