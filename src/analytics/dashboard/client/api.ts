/** GraphQL over HTTP for the dashboard, with the rate-limit state every answer carries. */

export interface RateLimitState {
  limit: number | null;
  remaining: number | null;
  /** Unix seconds at which the window ends. */
  reset: number | null;
}

export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

const headerNumber = (headers: Headers, name: string) => {
  const value = headers.get(name);
  return value === null || value === '' ? null : Number(value);
};

export async function graphql<Data>(key: string, query: string, variables: Record<string, unknown> = {}): Promise<{ data: Data; rateLimit: RateLimitState }> {
  let response: Response;
  try {
    response = await fetch('/graphql', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body: JSON.stringify({ query, variables }),
    });
  } catch {
    throw new ApiError('The server cannot be reached.', 'network');
  }
  const rateLimit = {
    limit: headerNumber(response.headers, 'x-ratelimit-limit'),
    remaining: headerNumber(response.headers, 'x-ratelimit-remaining'),
    reset: headerNumber(response.headers, 'x-ratelimit-reset'),
  };
  const body = (await response.json().catch(() => ({}))) as {
    data?: Data;
    errors?: { message: string; extensions?: { code?: string } }[];
    detail?: string;
    code?: string;
  };
  const error = body.errors?.[0];
  if (error) throw new ApiError(error.message, error.extensions?.code ?? 'error');
  // The access gate answers problem+json (401, 403, 429) before GraphQL runs.
  if (!response.ok || !body.data) throw new ApiError(body.detail ?? `The server answered ${response.status}.`, body.code ?? String(response.status));
  return { data: body.data, rateLimit };
}
