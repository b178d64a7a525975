import { pathOf, type AdminRequest } from './commands.js';

export interface AdminResponse {
  status: number;
  body: unknown;
}

export interface Transport {
  send(request: AdminRequest): Promise<AdminResponse>;
  close(): Promise<void>;
}

/** Every page of a list request's list, read 100 a page, as one answer; the first refusal as it is. */
export async function sendWholeList(transport: Transport, request: AdminRequest): Promise<AdminResponse> {
  const data: unknown[] = [];
  for (let cursor: string | null = null; ;) {
    const response = await transport.send({ ...request, query: { ...request.query, limit: '100', ...(cursor ? { cursor } : {}) } });
    if (response.status >= 400) return response;
    const page = response.body as { data: unknown[]; has_more: boolean; next_cursor: string | null };
    data.push(...page.data);
    cursor = page.has_more ? page.next_cursor : null;
    if (!cursor) return { status: response.status, body: { data, has_more: false, next_cursor: null } };
  }
}

/** The command could not be carried out, for a reason the message states with what to do (exit 1). */
export class CommandFailed extends Error {
  override name = 'CommandFailed';
}

export interface ServerTarget {
  url: string;
  key: string;
  /** Whose key it is: the operator's (ADMIN_API_KEY, /v1/admin routes) or an account's API key. */
  holder: 'operator' | 'account';
  /** Where the key came from, to name in the advice: `ADMIN_API_KEY`, `--admin-key`, `HALLOWGATE_API_KEY` or `--api-key`. */
  keySource: string;
  /** The whole exchange, connection to last byte, must end within this. */
  timeoutMs: number;
}

/** Why `fetch` failed, in the words of the error under its "fetch failed". */
export function unreachableReason(error: unknown, target: ServerTarget): string {
  if (error instanceof Error && error.name === 'TimeoutError') {
    return `the server at ${target.url} did not answer within ${target.timeoutMs / 1000} s: check that it is not stuck, or raise --timeout`;
  }
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const host = new URL(target.url).host;
  switch (cause?.code) {
    case 'ECONNREFUSED':
      return `nothing listens at ${target.url} (connection refused): start the server (npm start) or fix --server / HALLOWGATE_URL`;
    case 'ENOTFOUND':
      return `the host of ${target.url} is not known (DNS: no address for ${host}): fix --server / HALLOWGATE_URL`;
    case 'EAI_AGAIN':
      return `the host of ${target.url} could not be looked up (DNS did not answer for ${host}): check the network or fix --server / HALLOWGATE_URL`;
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `no connection to ${target.url} within the connect timeout: check the address and any firewall`;
    default: {
      const detail = cause?.message ?? (error instanceof Error ? error.message : String(error));
      return `cannot reach the server at ${target.url} (${cause?.code ? `${cause.code}: ` : ''}${detail})`;
    }
  }
}

/** A refused key, said with what to do about it; undefined for any other answer. */
export function keyRefusal(status: number, body: unknown, target: ServerTarget): string | undefined {
  const problem = body as { code?: string; detail?: string } | null;
  const said = problem?.detail ? ` (${status} ${problem.code ?? ''}: ${problem.detail})` : ` (${status})`;
  if (target.holder === 'account') {
    const create = 'create one with `hallowgate keys create --account <acct_…> --plan free --scopes webhooks:manage,bookings:read`';
    if (status === 401) return `the server at ${target.url} refused the API key in ${target.keySource}${said}: set ${target.keySource} to a key of the account (${create})`;
    if (status === 403 && problem?.code === 'insufficient_scope') return `the key in ${target.keySource} may not do this${said}: use a key with the scopes named (${create})`;
    return undefined;
  }
  const startedWith = `set ${target.keySource} to the key the server was started with (ADMIN_API_KEY=… npm start)`;
  if (status === 401) return `the server at ${target.url} refused the operator key${said}: ${startedWith}`;
  if (status === 403 && problem?.code === 'insufficient_scope') {
    return `the key in ${target.keySource} is not an operator key${said}: ${startedWith}, or use a key with the admin scope`;
  }
  return undefined;
}

/** Through a running server's REST routes, with the operator's key (the /v1/admin routes) or an account's. */
export function serverTransport(target: ServerTarget): Transport {
  return {
    async send(request) {
      let response: Response;
      let text: string;
      try {
        response = await fetch(new URL(pathOf(request), target.url), {
          method: request.method,
          headers: {
            authorization: `Bearer ${target.key}`,
            accept: 'application/json',
            ...(request.body ? { 'content-type': 'application/json' } : {}),
          },
          ...(request.body ? { body: JSON.stringify(request.body) } : {}),
          signal: AbortSignal.timeout(target.timeoutMs),
        });
        text = await response.text();
      } catch (error) {
        throw new CommandFailed(unreachableReason(error, target));
      }
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        const type = response.headers.get('content-type') ?? 'no content type';
        throw new CommandFailed(`the server at ${target.url} answered ${response.status} with ${type}, not JSON: is it a hallowgate server? Check --server / HALLOWGATE_URL`);
      }
      const refusal = keyRefusal(response.status, body, target);
      if (refusal) throw new CommandFailed(refusal);
      return { status: response.status, body };
    },
    async close() {},
  };
}
