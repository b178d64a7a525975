import { AppError } from '../shared/errors.js';

/** The path of a request target, in origin form (`/graphql?x`) or absolute form (`http://host/graphql`), as sent: the query, and an absolute target's scheme, host and credentials, left out. */
export function requestPathOf(target: string): string {
  if (target.startsWith('/')) return target.split('?', 1)[0]!;
  try {
    return new URL(target).pathname;
  } catch {
    return target;
  }
}

/** An absolute-form target's scheme and authority, which come before its path. */
const schemeAndAuthority = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;

/**
 * Whether a target's path is one a proxy in front and this server could read as two different
 * paths: URL parsing takes a leading `//` for a host, a backslash for a slash, and removes `.` and
 * `..` segments, percent-encoded or not, so `/widget/%2e%2e/v1/bookings` would reach /v1/bookings.
 */
export const ambiguousPathRefusal = () =>
  new AppError('invalid_request', 'The request path has an empty, "." or ".." segment, or a backslash; send the path itself, as the API documents it.');

export function isAmbiguousPath(target: string): boolean {
  const path = target.replace(schemeAndAuthority, '').split(/[?#]/, 1)[0]!;
  return /\\|\/\/|(^|\/)(\.|%2e){1,2}(\/|$)/i.test(path);
}

/** A run of percent-encoded bytes: what percent-decoding turns into characters (a `%` not before two hex digits stays a `%`). */
const percentEncodedRun = /(?:%[0-9a-f]{2})+/gi;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The first parameter of a query string whose percent-encoded bytes are not UTF-8 (`%FF`, `%C3%28`,
 * an encoded surrogate): URLSearchParams would read them as U+FFFD and the request would search for
 * that. Its name as sent, decoded where it can be; undefined when every parameter is well-formed.
 */
export function malformedQueryParameter(search: string): string | undefined {
  for (const pair of search.replace(/^\?/, '').split('&')) {
    const runs = pair.match(percentEncodedRun) ?? [];
    if (runs.every(isUtf8Run)) continue;
    const name = pair.split('=', 1)[0]!.replace(/\+/g, ' ');
    return name.replace(percentEncodedRun, (run) => (isUtf8Run(run) ? decodeURIComponent(run) : run));
  }
  return undefined;
}

function isUtf8Run(run: string): boolean {
  try {
    utf8.decode(Uint8Array.from(run.slice(1).split('%'), (hex) => Number.parseInt(hex, 16)));
    return true;
  } catch {
    return false;
  }
}
