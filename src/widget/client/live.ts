/**
 * One GraphQL over WebSocket connection (graphql-ws's graphql-transport-ws protocol) per API and
 * token, shared by every widget of the page: browsers allow few connections per origin, so the
 * operations of all the services shown go over it side by side. It reconnects with backoff when
 * the socket drops; its users start their operations again on each (re)connection (onOpen).
 */
import { isObject, stringOr, type Json } from './api.js';

export interface OperationSink {
  next(data: Json): void;
  /** The server refused or failed the operation (its first error), or it got no answer in time. */
  error(message: string): void;
  /** The operation ended (a query's after its answer); not called when the socket closes. */
  complete?(): void;
}

export interface LiveConnection {
  /** Calls `listener` on every acknowledged connection, at once when one is open; returns how to stop. */
  onOpen(listener: () => void): () => void;
  /** Calls `listener` with a readable reason when the server refuses the token for good (no more reconnects). */
  onRefused(listener: (reason: string) => void): () => void;
  /** Starts an operation on the open connection; returns how to stop it. It ends with the socket, untold. */
  start(query: string, variables: Json, sink: OperationSink, deadlineMs?: number): () => void;
  release(): void;
}

/** How long the server has to acknowledge a connection, and to answer a ping. */
const acknowledgeMs = 10_000;
const pingEveryMs = 25_000;
const firstRetryMs = 1_000;
const longestRetryMs = 30_000;
/** Closes after which reconnecting cannot help: the credential, the origin or the protocol is refused. */
const finalCloseCodes = [4400, 4401, 4403, 4406];

interface Shared {
  connection: LiveConnection;
  users: number;
}

const shared = new Map<string, Shared>();

function webSocketUrl(apiBase: string): string {
  const url = new URL('graphql', apiBase);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.href;
}

/** The page's connection to `apiBase` with `token`, opened now if it has none; release() when done with it. */
export function liveConnection(apiBase: string, token: string, logError: (message: string) => void): LiveConnection {
  const key = `${apiBase} ${token}`;
  const existing = shared.get(key);
  if (existing) {
    existing.users += 1;
    return existing.connection;
  }
  // Only this entry: a connection refused for good is forgotten at once, and a later render() opens another.
  const forget = () => shared.get(key) === entry && shared.delete(key);
  const entry: Shared = { connection: openConnection(webSocketUrl(apiBase), token, logError, forget), users: 1 };
  const { release } = entry.connection;
  entry.connection = {
    ...entry.connection,
    release() {
      entry.users -= 1;
      if (entry.users === 0) release();
    },
  };
  shared.set(key, entry);
  return entry.connection;
}

function openConnection(url: string, token: string, logError: (message: string) => void, forget: () => void): LiveConnection {
  const openListeners = new Set<() => void>();
  const refusedListeners = new Set<(reason: string) => void>();
  const operations = new Map<string, { sink: OperationSink; deadline?: ReturnType<typeof setTimeout> }>();
  let socket: WebSocket | null = null;
  let acknowledged = false;
  let retries = 0;
  let nextId = 0;
  let released = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const send = (message: Json) => socket?.send(JSON.stringify(message));

  /** Closes a socket that stopped answering; its close event then schedules the reconnect. */
  function expectAnswerWithin(ms: number, what: string): void {
    clearTimeout(timer);
    timer = setTimeout(() => {
      logError(`the live connection to ${url} got no ${what} within ${ms / 1000} s; reconnecting`);
      socket?.close(4408, `No ${what}`);
    }, ms);
  }

  function connect(): void {
    const current = new WebSocket(url, 'graphql-transport-ws');
    socket = current;
    // From the start: a handshake that hangs counts against the same deadline.
    expectAnswerWithin(acknowledgeMs, 'acknowledgement');
    current.onopen = () => send({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } });
    current.onmessage = (event) => {
      let message: unknown;
      try {
        message = JSON.parse(String(event.data));
      } catch {
        return;
      }
      if (isObject(message)) receive(message);
    };
    current.onclose = (event) => {
      if (socket !== current) return;
      socket = null;
      acknowledged = false;
      for (const id of [...operations.keys()]) finish(id);
      clearTimeout(timer);
      if (released) return;
      if (finalCloseCodes.includes(event.code)) {
        const reason = event.reason || `closed with ${event.code}`;
        logError(`the live connection to ${url} was refused (${event.code} ${reason}); live places stop updating`);
        forget();
        for (const listener of refusedListeners) listener(reason);
        return;
      }
      // Exponential backoff with jitter, so the widgets of many pages do not all come back at once.
      const delay = Math.min(longestRetryMs, firstRetryMs * 2 ** retries) * (0.5 + Math.random() / 2);
      retries += 1;
      timer = setTimeout(connect, delay);
    };
  }

  function receive(message: Json): void {
    const type = message['type'];
    if (type === 'connection_ack') {
      acknowledged = true;
      retries = 0;
      keepAlive();
      for (const listener of [...openListeners]) listener();
    } else if (type === 'ping') {
      send({ type: 'pong' });
    } else if (type === 'pong') {
      keepAlive();
    } else {
      const id = stringOr(message['id']);
      const sink = operations.get(id)?.sink;
      if (!sink) return;
      if (type === 'next' && isObject(message['payload'])) {
        const { data, errors } = message['payload'];
        if (Array.isArray(errors) && errors.length > 0) fail(id, errors[0]);
        else if (isObject(data)) sink.next(data);
      } else if (type === 'error') {
        fail(id, Array.isArray(message['payload']) ? message['payload'][0] : null);
      } else if (type === 'complete') {
        finish(id);
        sink.complete?.();
      }
    }
  }

  /** Forgets an operation; true when it was still running. */
  function finish(id: string): boolean {
    const operation = operations.get(id);
    clearTimeout(operation?.deadline);
    return operations.delete(id);
  }

  function fail(id: string, error: unknown): void {
    const sink = operations.get(id)?.sink;
    finish(id);
    const detail = isObject(error) ? stringOr(error['message']) : stringOr(error);
    logError(`a live operation on ${url} failed: ${detail || 'no reason given'}`);
    sink?.error(detail);
  }

  /** Pings after a quiet while; a socket whose pong does not come in time is closed and reconnected. */
  function keepAlive(): void {
    clearTimeout(timer);
    timer = setTimeout(() => {
      send({ type: 'ping' });
      expectAnswerWithin(acknowledgeMs, 'pong');
    }, pingEveryMs);
  }

  connect();

  return {
    onOpen(listener) {
      openListeners.add(listener);
      if (acknowledged) listener();
      return () => openListeners.delete(listener);
    },
    onRefused(listener) {
      refusedListeners.add(listener);
      return () => refusedListeners.delete(listener);
    },
    start(query, variables, sink, deadlineMs) {
      const id = String((nextId += 1));
      const stop = () => {
        if (finish(id) && socket?.readyState === WebSocket.OPEN) send({ id, type: 'complete' });
      };
      const deadline =
        deadlineMs === undefined
          ? undefined
          : setTimeout(() => {
              if (socket?.readyState === WebSocket.OPEN) send({ id, type: 'complete' });
              fail(id, `no answer within ${deadlineMs / 1000} s`);
            }, deadlineMs);
      operations.set(id, { sink, ...(deadline === undefined ? {} : { deadline }) });
      send({ id, type: 'subscribe', payload: { query, variables } });
      return stop;
    },
    release() {
      released = true;
      clearTimeout(timer);
      forget();
      socket?.close(1000, 'Done');
    },
  };
}
