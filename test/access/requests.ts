/** Small request helpers shared by the access tests. */

export function bearer(credential: string, headers: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${credential}`, ...headers };
}

/** POST /graphql with a credential; the Response is returned as is so tests can read status and headers. */
export function postGraphQL(
  baseUrl: string,
  credential: string | null,
  query: string,
  options: { variables?: Record<string, unknown>; headers?: Record<string, string> } = {},
): Promise<Response> {
  return fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      ...(credential ? { authorization: `Bearer ${credential}` } : {}),
      ...options.headers,
    },
    body: JSON.stringify({ query, variables: options.variables ?? {} }),
  });
}

/** Sends `count` requests at once and tallies their statuses. */
export async function burst(count: number, send: () => Promise<Response>): Promise<Map<number, number>> {
  const responses = await Promise.all(Array.from({ length: count }, send));
  const statuses = new Map<number, number>();
  for (const response of responses) {
    await response.arrayBuffer();
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
  }
  return statuses;
}
