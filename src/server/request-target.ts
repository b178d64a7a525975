/** The path of a request target, in origin form (`/graphql?x`) or absolute form (`http://host/graphql`), as sent: the query, and an absolute target's scheme, host and credentials, left out. */
export function requestPathOf(target: string): string {
  if (target.startsWith('/')) return target.split('?', 1)[0]!;
  try {
    return new URL(target).pathname;
  } catch {
    return target;
  }
}
