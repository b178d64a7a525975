import type { IncomingMessage, Server } from 'node:http';
import { once } from 'node:events';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { getOperationAST, GraphQLError, type ExecutionArgs } from 'graphql';
import { CloseCode, type Context as SocketContext, type SubscribePayload } from 'graphql-ws';
import { isAsyncIterable } from 'graphql-yoga';
import { useServer, type Extra } from 'graphql-ws/use/ws';
import type { Logger } from 'pino';
import pLimit, { type LimitFunction } from 'p-limit';
import { WebSocket, WebSocketServer } from 'ws';
import { refusedPrincipalOf, type AccessGate, type Admission } from '../access/gate.js';
import type { Principal } from '../access/principal.js';
import { unauthenticated } from '../access/keys.js';
import type { OpenConnections } from '../access/revocation.js';
import type { UsageRecorder } from '../analytics/recorder.js';
import { otherGraphQLRoute } from '../analytics/recorder.js';
import { graphqlRouteOf } from '../analytics/tracking.js';
import { maskSocketError } from '../graphql/errors.js';
import { paramsRefusal } from '../graphql/limits.js';
import { AppError, databaseUnavailable, echoed } from '../shared/errors.js';
import { refuseOnSocket } from './client-errors.js';
import { hostRefusal } from './http.js';
import { ambiguousPathRefusal, isAmbiguousPath, requestPathOf } from './request-target.js';
import { quotaSubjectOf, subscriptionLimits, tooManySubscriptions, type SubscriptionQuota } from './subscription-quota.js';
import type { Yoga } from './yoga.js';

type Enveloped = ReturnType<Yoga['getEnveloped']>;

/** Headers a client may send in connection_init's payload: the credential and, for signing keys, the signature of GET /graphql. */
const credentialParams = ['authorization', 'x-signature', 'x-signature-timestamp'];

function credentialHeaders(params: Record<string, unknown>): Record<string, string | undefined> {
  const lowerCased = Object.fromEntries(Object.entries(params).map(([name, value]) => [name.toLowerCase(), value]));
  return Object.fromEntries(
    credentialParams.map((name) => {
      const value = lowerCased[name];
      // JSON lets a client send the timestamp as a number: the header it stands for is its text.
      return [name, typeof value === 'string' ? value : typeof value === 'number' && Number.isFinite(value) ? String(value) : undefined];
    }),
  );
}

/** The longest close reason a WebSocket frame carries, in bytes. */
const closeReasonBytes = 123;

/** Why a connection was refused, as a close reason: the problem's code and as much of its message as fits. */
function closeReasonOf(error: AppError): string {
  let reason = `${error.code}: ${error.message}`;
  while (Buffer.byteLength(reason) > closeReasonBytes) reason = reason.slice(0, -1);
  return reason;
}

type SocketExtra = Extra & {
  admission?: Admission;
  requestId?: string;
  /** The socket's open subscriptions, by operation id, each with what frees its slot. */
  subscriptions?: Map<string, () => Promise<void>>;
  /** Set when the socket has closed: subscribes still being admitted then take no slot. */
  closed?: boolean;
  /** Ids whose operation is under way, from its subscribe message until its result is sent or its stream ends. */
  operations?: Set<string>;
  /** Subscriptions admitted on the socket so far: each takes its quota place under a holder of its own. */
  subscriptionsAdmitted?: number;
  /** The socket's queries and mutations: at most `runningPerSocket` at once, the others wait their turn in order. */
  turns?: LimitFunction;
  /** Queries and mutations admitted and not ended; those of them admitted to wait their turn, and about their bytes (documents and variables). */
  queries?: { admitted: number; waiting: number; waitingBytes: number };
};

/**
 * Queries and mutations one socket runs at once. A socket multiplexes what a browser would send over
 * its six HTTP connections to a host: without a bound, one client starting thousands at once would
 * take every database connection of the instance from everyone else.
 */
export const runningPerSocket = 6;
/**
 * What may wait its turn on one socket: a client that sends more while its turns are taken is
 * refused (rate_limited) rather than kept in memory without bound. Bytes are the documents' and
 * variables' length.
 */
export const waitingPerSocket = { operations: 200, bytes: 4_000_000 };

const tooManyWaiting = () =>
  new AppError(
    'rate_limited',
    `A connection holds at most ${waitingPerSocket.operations} operations (${waitingPerSocket.bytes / 1_000_000} MB) waiting their turn behind the ${runningPerSocket} it runs; send more once they are answered.`,
  );

/** Calls `action` the first time the function it returns is called, never again. */
function onFirstCall(action: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    action();
  };
}

/** What an operation still waiting its turn answers once its client completed it or its socket closed; nobody reads it. */
const endedBeforeItRan = () => new GraphQLError('The operation ended before it ran.');

/** What onConnect sets on a socket's extra. */
type SocketSetup = { admission: Admission; requestId: string };

/** The root value of an operation a socket runs: how to run it, and what to call once it has ended. */
interface OperationRoot {
  execute: Enveloped['execute'];
  /** Runs a query or mutation in its turn among the socket's. */
  inTurn: LimitFunction;
  /** Called once the operation no longer waits (its turn came, or it never will): frees what its waiting took. */
  waited(): void;
  /** Whether the client still waits for the operation's answer (it has not completed it, its socket is open and its credential valid). */
  wanted(): boolean;
  subscribe: Enveloped['subscribe'];
  ended(): void;
}

/**
 * `stream`, calling `ended` once it ends: run out, failed, or returned by its consumer. A generator
 * (next, return, throw), since graphql-ws ends on complete and on close only the streams that are.
 */
function endedWith<T>(stream: AsyncIterable<T>, ended: () => void): AsyncGenerator<T> {
  const iterator = stream[Symbol.asyncIterator]();
  const generator: AsyncGenerator<T> = {
    async next() {
      try {
        const next = await iterator.next();
        if (next.done) ended();
        return next;
      } catch (error) {
        ended();
        throw error;
      }
    },
    async return(value?: unknown) {
      ended();
      return ((await iterator.return?.(value)) ?? { done: true, value: undefined }) as IteratorResult<T>;
    },
    async throw(error?: unknown) {
      ended();
      if (iterator.throw) return iterator.throw(error);
      throw error;
    },
    [Symbol.asyncIterator]: () => generator,
  };
  return generator;
}

/** What a subscribe still being admitted when its socket closed (or its client completed it) answers; the client is no longer listening. */
const subscriptionGone = () => new GraphQLError('The subscription ended before it started.');

/**
 * A socket that keeps a client's oversized message to itself: ws has already closed it with 1009
 * when it emits the error, and graphql-ws would report any socket error as an internal one.
 */
class ClientWebSocket extends WebSocket {
  override emit(event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'error' && (args[0] as NodeJS.ErrnoException | undefined)?.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') return true;
    return super.emit(event, ...args);
  }
}

export interface WebSocketOptions {
  /** Largest message accepted; a larger one closes the socket with 1009. */
  maxPayloadBytes: number;
  /** Each credential's count of open subscriptions, over every transport and instance. */
  quota: SubscriptionQuota;
  logger: Logger;
}

export interface GraphQLWebSocket {
  /** Queries and mutations of every open socket: running, and waiting their turn. */
  operations(): { running: number; waiting: number };
  /** Closes every socket with 1001 (going away) and stops accepting new ones. */
  close(): Promise<void>;
}

/** How long a closing server waits for each socket's peer to answer its close frame. */
const closeHandshakeGraceMs = 1_000;

/** Whether a request asks to become a WebSocket: the only upgrade served (at /graphql). */
export const isWebSocketUpgrade = (request: IncomingMessage): boolean => request.headers.upgrade?.trim().toLowerCase() === 'websocket';

/**
 * graphql-ws on the same path as HTTP GraphQL. Operations go through Yoga's envelop pipeline,
 * so scopes, limits and error masking are the same as over HTTP.
 */
export function attachGraphQLWebSocket(
  httpServer: Server,
  yoga: Yoga,
  gate: AccessGate,
  openConnections: OpenConnections,
  options: WebSocketOptions,
  usage?: UsageRecorder,
): GraphQLWebSocket {
  const webSocketServer = new WebSocketServer({ noServer: true, maxPayload: options.maxPayloadBytes, WebSocket: ClientWebSocket });
  // Upgrades are taken here rather than by ws, which refuses another path or a bad handshake with a bare text/html 400.
  httpServer.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node 22 and later serve any other upgrade (h2c, which curl --http2 and Java's HttpClient offer) as a plain request (shouldUpgradeCallback); Node 20 hands every one here.
    if (!isWebSocketUpgrade(request)) {
      return refuseOnSocket(
        socket,
        new AppError('invalid_request', `Upgrade: ${echoed(request.headers.upgrade ?? '')} is not offered here; send the request without it (HTTP/1.1).`),
      );
    }
    const badHost = hostRefusal(request, true);
    if (badHost) return refuseOnSocket(socket, badHost);
    if (isAmbiguousPath(request.url ?? '/')) return refuseOnSocket(socket, ambiguousPathRefusal());
    const path = requestPathOf(request.url ?? '/');
    if (path !== '/graphql') return refuseOnSocket(socket, new AppError('not_found', `No WebSocket endpoint at ${echoed(path)}: GraphQL over WebSocket is served at /graphql.`));
    webSocketServer.handleUpgrade(request, socket, head, (webSocket) => webSocketServer.emit('connection', webSocket, request));
  });
  webSocketServer.on('wsClientError', (error: Error, socket: Duplex) =>
    refuseOnSocket(socket, new AppError('invalid_request', `The WebSocket handshake is not valid: ${error.message}.`)),
  );
  const { quota } = options;
  /** Queries and mutations of every socket, for the gauge: running, and waiting their turn. */
  const operationCounts = { running: 0, waiting: 0 };

  /** Counts a socket's operation start (or its refused connection) in its API key's usage, with the status it would have had over HTTP. */
  function recordUsage(principal: Principal | null | undefined, status: number, route = otherGraphQLRoute) {
    if (usage && principal?.kind === 'api_key') usage.record({ apiKeyId: principal.keyId, route, status, latencyMs: 0, bytes: 0 });
  }

  /** Opens a subscription's slot on its socket and its credential; the refusal when either is full. */
  async function openSubscription(extra: SocketExtra, id: string): Promise<GraphQLError[] | undefined> {
    if (extra.closed) return [subscriptionGone()];
    const open = (extra.subscriptions ??= new Map());
    if (open.size >= subscriptionLimits.perSocket) return [tooManySubscriptions(`A socket carries at most ${subscriptionLimits.perSocket} subscriptions.`)];
    const subject = quotaSubjectOf(extra.admission!);
    extra.subscriptionsAdmitted = (extra.subscriptionsAdmitted ?? 0) + 1;
    const holder = `${extra.requestId}:${extra.subscriptionsAdmitted}`;
    const release = () => quota.release(subject, holder);
    // Held before the wait, so concurrent subscribes on this socket cannot pass the socket's limit together.
    open.set(id, release);
    const taken = await quota.take(subject, holder);
    if (open.get(id) !== release) {
      // Closed or completed during the wait, which released what was held then: so is what was taken since.
      if (taken) void release();
      return [subscriptionGone()];
    }
    if (taken) return undefined;
    open.delete(id);
    return [tooManySubscriptions(subject.refusal)];
  }

  /** A socket closing, or losing its credential: what waits its turn or is being admitted will never run, and its subscriptions end. */
  function endOperations(extra: SocketExtra): void {
    extra.closed = true;
    for (const id of [...(extra.subscriptions?.keys() ?? [])]) closeSubscription(extra, id);
    extra.turns?.clearQueue();
  }

  function closeSubscription(extra: SocketExtra, id: string): void {
    const release = extra.subscriptions?.get(id);
    extra.subscriptions?.delete(id);
    void release?.();
  }
  // The ws server re-emits the HTTP server's errors (EADDRINUSE); listen() already reports those.
  webSocketServer.on('error', () => undefined);

  const disposable = useServer<Record<string, unknown> | undefined, SocketSetup>(
    {
      onConnect: async (ctx) => {
        const extra = ctx.extra as SocketExtra;
        extra.requestId = `req_${randomUUID().replaceAll('-', '')}`;
        try {
          extra.admission = await gate.admit({
            method: 'GET',
            target: '/graphql',
            headers: { ...extra.request.headers, ...credentialHeaders(ctx.connectionParams ?? {}) },
            remoteAddress: extra.request.socket.remoteAddress ?? '',
            body: Buffer.alloc(0),
          });
          const { principal } = extra.admission;
          // Sockets need a credential, like every GraphQL request: refused as graphql-ws refuses (4403).
          if (!principal) return false;
          if (principal && extra.socket.readyState === extra.socket.OPEN) {
            // A credential revoked, rotated or expired loses its socket, closed as graphql-ws closes a refused one.
            const release = openConnections.hold(principal, () => {
              // ws still delivers what arrives during the close handshake: none of it may run any more,
              // nor what waits its turn or is still being admitted (the handshake may take long).
              extra.socket.removeAllListeners('message');
              endOperations(extra);
              extra.socket.close(CloseCode.Forbidden, 'Credential no longer valid');
            });
            extra.socket.once('close', release);
          }
          return true;
        } catch (error) {
          // A verified key refused (its rate, its origin, its address) counts in its usage, as over HTTP.
          if (error instanceof AppError) recordUsage(refusedPrincipalOf(error), error.status);
          // Over its rate, the client may come back later: 1013, which clients back off on and retry,
          // rather than graphql-ws's refusal (4403), after which a client such as the widget gives up.
          if (error instanceof AppError && error.code === 'rate_limited') {
            extra.socket.close(1013, 'Rate limited: try again later');
            return false;
          }
          if (error instanceof AppError) {
            // Refused as graphql-ws refuses (4403), saying why: a bad signature, an origin, an address, a credential.
            extra.socket.close(CloseCode.Forbidden, closeReasonOf(error));
            return false;
          }
          // Our failure, not the client's: logged with the socket's request id, and the client told
          // to come back (1013) or that the server failed (1011), never the error's own text.
          const unavailable = databaseUnavailable(error);
          options.logger.error({ err: error, request_id: extra.requestId }, 'graphql-ws connection failed');
          extra.socket.close(unavailable ? 1013 : 1011, unavailable ? 'Try again later' : 'Internal server error');
          return false;
        }
      },
      onSubscribe: async (ctx, id, payload) => {
        const extra = ctx.extra as SocketExtra;
        const operations = (extra.operations ??= new Set());
        // graphql-ws forgets an id completed while its operation is still starting, so a second
        // subscribe with it would leave the first running, unseen and uncounted: refused as the
        // protocol refuses an id in use.
        if (operations.has(id)) {
          const reason = `Subscriber for ${id.slice(0, 64)} already exists`;
          extra.socket.close(CloseCode.SubscriberAlreadyExists, reason);
          return [new GraphQLError(reason)];
        }
        operations.add(id);
        const admitted = await admitOperation(ctx, id, payload);
        // Refused: nothing runs under the id.
        if (Array.isArray(admitted)) operations.delete(id);
        return admitted;
      },
      onComplete: (ctx, id) => closeSubscription(ctx.extra as SocketExtra, id),
      onClose: (ctx) => endOperations(ctx.extra as SocketExtra),
      execute: async (args) => {
        const root = args.rootValue as OperationRoot;
        let started = false;
        operationCounts.waiting++;
        try {
          return await root.inTurn(async () => {
            started = true;
            operationCounts.waiting--;
            root.waited();
            if (!root.wanted()) return { errors: [endedBeforeItRan()] };
            operationCounts.running++;
            try {
              return await root.execute(args);
            } finally {
              operationCounts.running--;
            }
          });
        } catch (error) {
          if (error instanceof Error && error.name === 'AbortError') return { errors: [endedBeforeItRan()] };
          throw error;
        } finally {
          if (!started) operationCounts.waiting--;
          root.waited();
          root.ended();
        }
      },
      subscribe: async (args) => {
        const root = args.rootValue as OperationRoot;
        try {
          const result = await root.subscribe(args);
          if (isAsyncIterable(result)) return endedWith(result, root.ended);
          root.ended();
          return result;
        } catch (error) {
          root.ended();
          throw error;
        }
      },
    },
    webSocketServer,
  );

  // Rejecting what waits when the socket closes settles its execute, which answers endedBeforeItRan.
  const turnsOf = (extra: SocketExtra) => (extra.turns ??= pLimit({ concurrency: runningPerSocket, rejectOnClear: true }));

  /**
   * Counts a query or mutation about to start on its socket, among those waiting their turn when the
   * socket's turns are taken: what to call once it no longer waits, and once it has ended; undefined
   * when the socket holds as much waiting as it may.
   */
  function admitQuery(extra: SocketExtra, payload: SubscribePayload): { waited(): void; ended(): void } | undefined {
    const queries = (extra.queries ??= { admitted: 0, waiting: 0, waitingBytes: 0 });
    const waits = queries.admitted >= runningPerSocket;
    const bytes = waits ? payload.query.length + (payload.variables ? JSON.stringify(payload.variables).length : 0) : 0;
    if (waits && (queries.waiting >= waitingPerSocket.operations || queries.waitingBytes + bytes > waitingPerSocket.bytes)) return undefined;
    queries.admitted++;
    if (waits) {
      queries.waiting++;
      queries.waitingBytes += bytes;
    }
    return {
      waited: onFirstCall(() => {
        if (!waits) return;
        queries.waiting--;
        queries.waitingBytes -= bytes;
      }),
      ended: onFirstCall(() => queries.admitted--),
    };
  }

  /** Admits one operation of a socket: its execution arguments, or the errors it is refused with. */
  async function admitOperation(ctx: SocketContext<Record<string, unknown> | undefined, Extra & Partial<SocketSetup>>, id: string, payload: SubscribePayload) {
    try {
      const extra = ctx.extra as SocketExtra;
      const { principal } = extra.admission!;
      // Analytics count each operation start once.
      const recordStart = (status: number, route?: string) => recordUsage(principal, status, route);
      if (principal) {
        try {
          await gate.meter(extra.admission!);
          // Revoked, rotated or expired since the socket opened (announced or not): the socket closes with 4403 and nothing runs.
          if (!(await openConnections.stillValid(principal))) throw unauthenticated('The credential is no longer valid.', 'invalid_token');
        } catch (error) {
          if (error instanceof AppError) {
            recordStart(error.status);
            return [maskSocketError(error)];
          }
          throw error;
        }
      }
      const enveloped: Enveloped = yoga.getEnveloped({
        ...ctx,
        req: extra.request,
        socket: extra.socket,
        params: payload,
        admission: extra.admission!,
        requestId: extra.requestId!,
        // Taken in openSubscription below, so a refusal is an `error` message for the operation.
        subscriptionSlotHeld: true,
      });
      const paramsRefused = paramsRefusal(payload);
      if (paramsRefused) {
        recordStart(400);
        return [paramsRefused];
      }
      let document;
      try {
        document = enveloped.parse(payload.query);
      } catch (error) {
        // A syntax error (or a document over the token limit) fails this operation, not the socket.
        if (!(error instanceof GraphQLError)) throw error;
        recordStart(400);
        return [maskSocketError(error)];
      }
      const errors = enveloped.validate(enveloped.schema, document);
      if (errors.length > 0) {
        recordStart(400);
        return errors.map((error: GraphQLError) => maskSocketError(error));
      }
      const operation = getOperationAST(document, payload.operationName);
      if (operation?.operation === 'subscription') {
        const refusal = await openSubscription(extra, id);
        if (refusal) {
          recordStart(429);
          return refusal;
        }
      }
      const contextValue = await enveloped.contextFactory();
      // Counted last, once nothing can fail before its execution, which ends it.
      const query = operation?.operation === 'subscription' ? { waited: () => undefined, ended: () => undefined } : admitQuery(extra, payload);
      if (!query) {
        recordStart(429);
        return [maskSocketError(tooManyWaiting())];
      }
      recordStart(200, graphqlRouteOf(operation?.name?.value));
      const args: ExecutionArgs = {
        schema: enveloped.schema,
        operationName: payload.operationName ?? null,
        document,
        variableValues: payload.variables ?? null,
        contextValue,
        rootValue: {
          execute: enveloped.execute,
          inTurn: turnsOf(extra),
          waited: query.waited,
          // graphql-ws forgets an operation its client completes; an admission may end after its socket.
          wanted: () => !extra.closed && id in ctx.subscriptions,
          subscribe: enveloped.subscribe,
          ended: () => {
            query.ended();
            extra.operations?.delete(id);
          },
        } satisfies OperationRoot,
      };
      return args;
    } catch (error) {
      // Our failure: this operation answers internal_error (or service_unavailable) and the socket goes on.
      const extra = ctx.extra as SocketExtra;
      options.logger.error({ err: error, request_id: extra.requestId }, 'graphql-ws operation failed');
      return [maskSocketError(databaseUnavailable(error) ?? error, extra.requestId)];
    }
  }

  return {
    operations: () => ({ ...operationCounts }),
    async close() {
      const clients = [...webSocketServer.clients];
      const closed = Promise.all(clients.map((client) => (client.readyState === WebSocket.CLOSED ? undefined : once(client, 'close'))));
      for (const client of clients) client.close(1001, 'Server shutting down');
      // A peer that never answers the close would hold shutdown for ws' 30 s: it gets a second, then its connection is cut.
      const cut = setTimeout(() => clients.forEach((client) => client.terminate()), closeHandshakeGraceMs);
      await closed;
      clearTimeout(cut);
      await disposable.dispose();
      await new Promise<void>((resolve) => webSocketServer.close(() => resolve()));
    },
  };
}
