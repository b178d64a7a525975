/** Calls to the API with the widget token: one fetch helper for every view, which never rejects. */

export type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null;
export const stringOr = (value: unknown, fallback = ''): string => (typeof value === 'string' ? value : fallback);
export const numberOrNull = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/** How a view names itself and what it does, in the messages a visitor reads. */
export interface Wording {
  /** "events widget" */
  widget: string;
  /** "show events": what a refused widget cannot do. */
  task: string;
  /** "read events": what a token without the scope is not allowed to do. */
  allowed: string;
  /** "Events could not be loaded": the start of the network and server error messages. */
  failed: string;
  /** "events service" */
  service: string;
}

export type ApiAnswer = { kind: 'ok'; status: number; body: Json } | { kind: 'problem'; status: number; code: string; detail: string; message: string; retry: boolean };

const timeoutMs = 15_000;

/** What the visitor reads; the site owner gets the technical detail in the console. */
function messageForProblem(status: number, code: string, detail: string, words: Wording): { message: string; retry: boolean } {
  if (status === 401) return { message: `This ${words.widget} has an invalid token, so it cannot ${words.task}.`, retry: false };
  if (code === 'origin_not_allowed') return { message: `This widget token is not allowed on ${location.origin}, so it cannot ${words.task} here.`, retry: false };
  if (status === 403) return { message: `This ${words.widget} is not allowed to ${words.allowed}.`, retry: false };
  // 404: an id in the options (the booking view's service) names nothing.
  if (status === 400 || status === 404) return { message: `This ${words.widget} is set up wrongly${detail ? `: ${detail}` : '.'}`, retry: false };
  if (status === 429) return { message: 'Too many requests right now. Please try again in a minute.', retry: true };
  return { message: `${words.failed} right now.`, retry: true };
}

async function problemOf(response: Response): Promise<{ code: string; detail: string; requestId: string }> {
  const body: unknown = await response.json().catch(() => null);
  const problem = isObject(body) ? body : {};
  return { code: stringOr(problem['code']), detail: stringOr(problem['detail']), requestId: stringOr(problem['request_id']) };
}

export interface ApiRequest {
  method?: 'GET' | 'POST' | 'DELETE';
  url: string;
  token: string;
  body?: Json;
  /** Cancels a superseded call, which then resolves to null. */
  signal?: AbortSignal;
}

/** Sends one request; resolves to the JSON answer or a problem the visitor can read, never rejects. */
export async function callApi(request: ApiRequest, words: Wording, logError: (message: string) => void): Promise<ApiAnswer | null> {
  const { method = 'GET', url, token, body, signal } = request;
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  const onCancel = () => timeout.abort();
  signal?.addEventListener('abort', onCancel);
  const failure = (message: string, status = 0): ApiAnswer => ({ kind: 'problem', status, code: '', detail: '', message, retry: true });
  try {
    const response = await fetch(url, {
      method,
      headers: { Authorization: `Bearer ${token}`, Accept: 'application/json', ...(body ? { 'Content-Type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
      credentials: 'omit',
      signal: timeout.signal,
    });
    if (!response.ok) {
      const problem = await problemOf(response);
      logError(`${method} ${url} answered ${response.status} ${problem.code}: ${problem.detail} (request ${problem.requestId || 'unknown'})`);
      return { kind: 'problem', status: response.status, code: problem.code, detail: problem.detail, ...messageForProblem(response.status, problem.code, problem.detail, words) };
    }
    const answer: unknown = await response.json();
    if (!isObject(answer)) throw new Error('the answer is not a JSON object');
    return { kind: 'ok', status: response.status, body: answer };
  } catch (error) {
    if (signal?.aborted) return null;
    if (timeout.signal.aborted) {
      logError(`${method} ${url} did not answer within ${timeoutMs / 1000} s`);
      return failure(`The ${words.service} is taking too long to answer.`);
    }
    // Browsers hide why a cross-origin fetch failed: it may be the network, or a site the token does not allow.
    logError(`${method} ${url} failed (${String(error)}): check the network, and that this page's origin is in the widget token's allowed origins`);
    return failure(`${words.failed}. Check your connection and try again.`);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onCancel);
  }
}
