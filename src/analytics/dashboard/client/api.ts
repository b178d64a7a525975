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

/** The answer's JSON, or {} for a body that is not JSON (a proxy's error page). */
const parsedOrEmpty = (text: string): unknown => {
  try {
    return JSON.parse(text) ?? {};
  } catch {
    return {};
  }
};

const headerNumber = (headers: Headers, name: string) => {
  const value = headers.get(name);
  return value === null || value === '' ? null : Number(value);
};

/**
 * How long the dashboard waits for an answer, body included: a server that hangs gets an error on
 * the page rather than a spinner, and a browser's few connections to the host are not held by it.
 */
export const answerDeadlineMs = 10_000;

export async function graphql<Data>(key: string, query: string, variables: Record<string, unknown> = {}): Promise<{ data: Data; rateLimit: RateLimitState }> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), answerDeadlineMs);
  let response: Response;
  let text: string;
  try {
    response = await fetch('/graphql', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body: JSON.stringify({ query, variables }),
      signal: deadline.signal,
    });
    text = await response.text();
  } catch {
    if (deadline.signal.aborted) throw new ApiError(`The server did not answer within ${answerDeadlineMs / 1000} s.`, 'timeout');
    throw new ApiError('The server cannot be reached.', 'network');
  } finally {
    clearTimeout(timer);
  }
  const rateLimit = {
    limit: headerNumber(response.headers, 'x-ratelimit-limit'),
    remaining: headerNumber(response.headers, 'x-ratelimit-remaining'),
    reset: headerNumber(response.headers, 'x-ratelimit-reset'),
  };
  const body = parsedOrEmpty(text) as {
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
