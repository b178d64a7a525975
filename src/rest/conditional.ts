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

const day = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const month = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const imfFixdate = new RegExp(`^${day}, \\d{2} ${month} \\d{4} \\d{2}:\\d{2}:\\d{2} GMT$`);
const rfc850Date = new RegExp(`^(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, \\d{2}-${month}-\\d{2} \\d{2}:\\d{2}:\\d{2} GMT$`);
const asctimeDate = new RegExp(`^${day} ${month} [ \\d]\\d \\d{2}:\\d{2}:\\d{2} \\d{4}$`);

/**
 * The instant of an HTTP-date (RFC 9110 §5.6.7: the IMF-fixdate, or the two obsolete forms every
 * recipient must still read); NaN for anything else, which If-Modified-Since then does not count.
 */
function httpDate(value: string): number {
  if (imfFixdate.test(value) || rfc850Date.test(value)) return Date.parse(value);
  // asctime has no zone, and is UTC.
  return asctimeDate.test(value) ? Date.parse(`${value} GMT`) : Number.NaN;
}

/**
 * RFC 9110 §13.2.2: If-None-Match decides when present; otherwise If-Modified-Since, unless it
 * names a time still to come, compared at one-second precision because HTTP dates have no fractions.
 */
export function isNotModified(headers: IncomingHttpHeaders, tag: string, lastModified: Date | null | undefined, now: Date): boolean {
  const ifNoneMatch = headers['if-none-match'];
  if (ifNoneMatch !== undefined) return matchesAnyTag(ifNoneMatch, tag);
  const ifModifiedSince = headers['if-modified-since'];
  if (ifModifiedSince === undefined || !lastModified) return false;
  const since = httpDate(ifModifiedSince);
  // A date later than the server's clock is invalid (RFC 9110 §13.1.3): a client cannot have seen it.
  if (Number.isNaN(since) || since > now.getTime()) return false;
  return Math.floor(lastModified.getTime() / 1000) <= Math.floor(since / 1000);
}
