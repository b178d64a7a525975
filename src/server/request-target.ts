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
export function isAmbiguousPath(target: string): boolean {
  const path = target.replace(schemeAndAuthority, '').split(/[?#]/, 1)[0]!;
  return /\\|\/\/|(^|\/)(\.|%2e){1,2}(\/|$)/i.test(path);
}

/**
 * The first parameter of a query string that is not percent-encoded UTF-8 (`%FF`, `%C3%28`, a lone
 * `%`): URLSearchParams would read it as U+FFFD and the request would search for that. Its name as
 * sent, decoded where it can be; undefined when every parameter is well-formed.
 */
export function malformedQueryParameter(search: string): string | undefined {
  for (const pair of search.replace(/^\?/, '').split('&')) {
    const name = pair.split('=', 1)[0]!.replace(/\+/g, ' ');
    try {
      decodeURIComponent(pair.replace(/\+/g, ' '));
    } catch {
      try {
        return decodeURIComponent(name);
      } catch {
        return name;
      }
    }
  }
  return undefined;
}
