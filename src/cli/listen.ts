import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient } from 'graphql-ws';
import { Webhook } from 'standardwebhooks';
import WebSocket from 'ws';
import { logEventEnumName, type LogEventType } from '../events/kinds.js';
import { newWebhookSecret } from '../events/webhooks/signing.js';
import { CommandFailed, keyRefusal, unreachableReason, type ServerTarget } from './transport.js';

/**
 * `hallowgate listen`: the account's booking events, streamed from the server over graphql-ws (the
 * bookingEvents subscription), each forwarded to a local URL as a Standard Webhooks delivery signed
 * with a secret of the listener's own. Where it stopped is kept in a state file, so a restart and a
 * reconnection both resume after the last event forwarded: nothing missed, nothing twice.
 */

export interface ListenOptions {
  target: ServerTarget;
  forwardTo: URL;
  /** Only these kinds; every event of the log when null. */
  types: LogEventType[] | null;
  /** Start after this msg_… instead of where the state file says. */
  after: string | undefined;
  /** Where the state file goes (`.data` under the working directory). */
  stateDir: string;
  /** Ends the listener (^C). */
  signal: AbortSignal;
  print(line: string): void;
}

/** What a restart picks up: the signing secret (so the receiver keeps its configuration) and the last event forwarded. */
interface ListenState {
  secret: string;
  after: string | null;
}

/** The event exactly as a webhook endpoint receives it (and GET /v1/booking_events lists it). */
interface EventBody {
  id: string;
  event: string;
  created: string;
  data: unknown;
}

const subscription = `subscription Listen($after: ID, $types: [BookingEventType!]) {
  bookingEvents(after: $after, types: $types) { id event created data }
}`;

/** As long as a forwarded request may take, like the server's own webhook deadline. */
const forwardTimeoutMs = 10_000;
const pingEveryMs = 12_000;
const pongWithinMs = 10_000;
const maxBackoffMs = 30_000;

class StreamRefused extends CommandFailed {}

function refusal(code: string | undefined, detail: string): string {
  // The event to resume after is not in this server's log (a reset database, or another account's id).
  const advice = code === 'invalid_parameter' ? ': pass --after <msg_…> of this log, or delete the state file to start at its end' : '';
  return `the server refused the stream (${code ?? 'error'}: ${detail})${advice}`;
}

function readState(path: string): ListenState | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const state = JSON.parse(text) as Partial<ListenState>;
  if (typeof state.secret !== 'string' || !state.secret.startsWith('whsec_')) throw new CommandFailed(`${path} holds no signing secret: delete it to start afresh.`);
  return { secret: state.secret, after: typeof state.after === 'string' ? state.after : null };
}

/** Written whole, then renamed over the old one, so a listener killed mid-write leaves a readable state. */
function writeState(path: string, state: ListenState): void {
  writeFileSync(`${path}.tmp`, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  renameSync(`${path}.tmp`, path);
}

async function graphql(target: ServerTarget, query: string, variables: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  let response: Response;
  let body: { data?: Record<string, unknown>; errors?: { message: string; extensions?: { code?: string } }[] } | null;
  try {
    response = await fetch(new URL('/graphql', target.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${target.key}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query, variables }),
      signal: AbortSignal.timeout(target.timeoutMs),
    });
    body = (await response.json()) as typeof body;
  } catch (error) {
    throw new CommandFailed(unreachableReason(error, target));
  }
  const refusal = keyRefusal(response.status, { code: body?.errors?.[0]?.extensions?.code, detail: body?.errors?.[0]?.message }, target);
  if (refusal) throw new CommandFailed(refusal);
  if (!body?.data || body.errors?.length) throw new CommandFailed(`the server at ${target.url} answered ${response.status}: ${body?.errors?.[0]?.message ?? 'no data'}`);
  return body.data;
}

/** Posts one event to the local URL, signed; the receiver's status, or why none came. */
async function forward(event: EventBody, secret: Webhook, url: URL): Promise<string> {
  const body = JSON.stringify({ id: event.id, event: event.event, created: event.created, data: event.data });
  const now = new Date();
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'hallowgate-listen/1',
        'webhook-id': event.id,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': secret.sign(event.id, now, body),
      },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(forwardTimeoutMs),
    });
    await response.body?.cancel();
    return String(response.status);
  } catch (error) {
    if (error instanceof Error && error.name === 'TimeoutError') return `no answer within ${forwardTimeoutMs / 1000} s`;
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return cause?.code === 'ECONNREFUSED' ? `connection refused: is your app listening at ${url.origin}?` : `failed: ${cause?.message ?? String(error)}`;
  }
}

/** A graphql-ws close code the server refuses with (4400–4499: bad request, forbidden, …): reconnecting cannot help. */
function refusedClose(error: unknown): { code: number; reason: string } | undefined {
  const close = error as { code?: unknown; reason?: unknown } | null;
  return typeof close?.code === 'number' && close.code >= 4400 && close.code < 4500 ? { code: close.code, reason: String(close.reason ?? '') } : undefined;
}

/**
 * One connection's events, as they arrive, over graphql-ws (the server ends sockets cleanly when it
 * shuts down, and pings keep a dead connection from going unnoticed). Ends when the server ends the
 * subscription; throws when the connection fails (then the caller reconnects) or with StreamRefused
 * when the server refuses it.
 */
async function* streamEvents(target: ServerTarget, variables: Record<string, unknown>, signal: AbortSignal): AsyncGenerator<EventBody> {
  const url = new URL('/graphql', target.url);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  let socket: WebSocket | undefined;
  let pongDue: NodeJS.Timeout | undefined;
  const client = createClient({
    url: url.href,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${target.key}` },
    retryAttempts: 0,
    keepAlive: pingEveryMs,
    on: {
      connected: (connected) => (socket = connected as WebSocket),
      // A ping left unanswered means the connection is dead though no close came: close it, and reconnect.
      ping: (received) => {
        if (!received) pongDue = setTimeout(() => socket?.close(4408, 'No pong from the server'), pongWithinMs);
      },
      pong: (received) => {
        if (received) clearTimeout(pongDue);
      },
    },
  });
  const results = client.iterate<{ bookingEvents: EventBody }>({ query: subscription, variables });
  const stop = () => void results.return?.();
  signal.addEventListener('abort', stop, { once: true });
  try {
    for await (const result of results) {
      const [error] = result.errors ?? [];
      if (error) throw new StreamRefused(refusal(error.extensions?.['code'] as string | undefined, error.message));
      if (result.data?.bookingEvents) yield result.data.bookingEvents;
    }
  } catch (error) {
    if (error instanceof StreamRefused) throw error;
    // An operation the server refuses comes as its list of GraphQL errors.
    if (Array.isArray(error)) {
      const [first] = error as { message: string; extensions?: { code?: string } }[];
      throw new StreamRefused(refusal(first?.extensions?.code, first?.message ?? 'refused'));
    }
    const refused = refusedClose(error);
    // 4403 ends a socket whose key is not (or no longer) valid: revoked, expired or rotated away.
    if (refused?.code === 4403) throw new StreamRefused(keyRefusal(401, { code: 'unauthenticated', detail: refused.reason }, target)!);
    if (refused) throw new StreamRefused(`the server closed the connection (${refused.code} ${refused.reason})`);
    const close = error as { code?: unknown; reason?: unknown };
    throw typeof close.code === 'number' ? new Error(`closed ${close.code}${close.reason ? ` ${String(close.reason)}` : ''}`) : error;
  } finally {
    clearTimeout(pongDue);
    signal.removeEventListener('abort', stop);
    await client.dispose();
  }
}

function describe(error: unknown, target: ServerTarget): string {
  // fetch reports a failed connection as a TypeError, its cause saying why.
  if (error instanceof TypeError) return unreachableReason(error, target);
  // graphql-ws rejects with the socket's error event, whose `error` says why it could not connect.
  const socketError = (error as { error?: unknown } | null)?.error;
  if (socketError instanceof Error) return unreachableReason({ cause: socketError }, target);
  return error instanceof Error ? error.message : String(error);
}

/** Runs until `signal` aborts; throws CommandFailed when the server refuses the key or the stream. */
export async function listen(options: ListenOptions): Promise<void> {
  const { target, print } = options;
  const viewer = (await graphql(target, '{ viewer { accountId scopes } }'))['viewer'] as { accountId: string; scopes: string[] };
  if (!viewer.scopes.includes('bookings:read') && !viewer.scopes.includes('admin')) {
    throw new CommandFailed(`the key in ${target.keySource} lacks bookings:read, which booking events need: use a key with it (scopes: ${viewer.scopes.join(', ')})`);
  }
  mkdirSync(options.stateDir, { recursive: true });
  const statePath = join(options.stateDir, `listen-${viewer.accountId}.json`);
  const state: ListenState = readState(statePath) ?? { secret: newWebhookSecret(), after: null };
  if (options.after) state.after = options.after;
  if (!state.after) {
    // A first start resumes after the newest event of the log: a restart before any event was forwarded then misses nothing.
    const newest = (await graphql(target, '{ bookingEvents(last: 1) { edges { node { id } } } }'))['bookingEvents'] as { edges: { node: { id: string } }[] };
    state.after = newest.edges[0]?.node.id ?? null;
  }
  writeState(statePath, state);
  const signer = new Webhook(state.secret);

  print(`Your webhook signing secret is ${state.secret} (^C to quit)`);
  print(
    `Forwarding ${options.types?.join(', ') ?? 'every booking event'} of ${viewer.accountId} to ${options.forwardTo.href}${state.after ? `, after ${state.after}` : ''}; state in ${statePath}`,
  );
  let backoffMs = 1000;
  while (!options.signal.aborted) {
    let lost: string;
    try {
      for await (const event of streamEvents(target, { after: state.after, types: options.types?.map(logEventEnumName) ?? null }, options.signal)) {
        backoffMs = 1000;
        const outcome = await forward(event, signer, options.forwardTo);
        print(`${new Date().toISOString()}  --> ${event.event} [${event.id}]  <-- ${outcome}`);
        state.after = event.id;
        writeState(statePath, state);
      }
      lost = 'the server ended the stream';
    } catch (error) {
      if (error instanceof StreamRefused) throw error;
      lost = describe(error, target);
    }
    if (options.signal.aborted) break;
    print(`Connection lost (${lost}); reconnecting in ${backoffMs / 1000} s, after ${state.after ?? 'the end of the log'}.`);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, backoffMs);
      options.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });
    backoffMs = Math.min(backoffMs * 2, maxBackoffMs);
  }
}
