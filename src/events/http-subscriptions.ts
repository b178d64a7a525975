import { getOperationAST, Kind, OperationTypeNode, type DocumentNode, type ExecutionResult } from 'graphql';
import { isAsyncIterable, processRegularResult, type Plugin } from 'graphql-yoga';
import type { Context } from '../graphql/context.js';
import { maskGraphQLError } from '../graphql/errors.js';
import { problemFor } from '../server/problem.js';
import { AppError } from '../shared/errors.js';
import { serverSentEvents } from './sse-resume.js';

/**
 * Subscriptions over HTTP speak the transport the client's Accept header asks for: server-sent events
 * (`text/event-stream`, also for `*\/*` or no Accept at all, as before), or Apollo's multipart
 * subscription protocol (`multipart/mixed;subscriptionSpec=1.0`, what Apollo Client's HttpLink sends).
 * A subscription that can be sent in neither is refused with 406 `not_acceptable` before it starts.
 */
export type SubscriptionTransport = 'sse' | 'multipart';

interface AcceptedRange {
  type: string;
  parameters: Map<string, string>;
  quality: number;
  order: number;
}

function parseAccept(header: string | null): AcceptedRange[] {
  if (header === null || header.trim() === '') return [{ type: '*/*', parameters: new Map(), quality: 1, order: 0 }];
  return header
    .split(',')
    .map((part, order) => {
      const [type = '', ...rest] = part.split(';').map((piece) => piece.trim());
      const parameters = new Map<string, string>();
      for (const parameter of rest) {
        const equals = parameter.indexOf('=');
        if (equals > 0)
          parameters.set(
            parameter.slice(0, equals).trim().toLowerCase(),
            parameter
              .slice(equals + 1)
              .trim()
              .replace(/^"(.*)"$/, '$1'),
          );
      }
      const quality = Number(parameters.get('q') ?? 1);
      return { type: type.toLowerCase(), parameters, quality: Number.isFinite(quality) ? quality : 0, order };
    })
    .filter((range) => range.type !== '' && range.quality > 0)
    .sort((a, b) => b.quality - a.quality || a.order - b.order);
}

function transportOf(range: AcceptedRange): SubscriptionTransport | null {
  if (range.type === 'text/event-stream' || range.type === 'text/*' || range.type === '*/*') return 'sse';
  // Only Apollo's protocol: plain multipart/mixed would mean incremental delivery, another format.
  if (range.type === 'multipart/mixed' && range.parameters.get('subscriptionspec') === '1.0') return 'multipart';
  return null;
}

/** The transport a subscription over HTTP is sent in for this Accept header: the client's most preferred one we speak. */
export function subscriptionTransportFor(accept: string | null): SubscriptionTransport | null {
  for (const range of parseAccept(accept)) {
    const transport = transportOf(range);
    if (transport) return transport;
  }
  return null;
}

/** Media ranges that take a JSON answer: a route answering JSON or an event stream answers JSON to them. */
const jsonRanges = new Set(['application/json', 'application/*', '*/*']);

/**
 * Whether a request that may be answered as JSON or as an event stream asks for the stream: of the
 * two, its Accept header prefers `text/event-stream`, named as such. No Accept header takes JSON.
 */
export function prefersEventStream(accept: string | undefined): boolean {
  const range = parseAccept(accept ?? null).find((candidate) => candidate.type === 'text/event-stream' || jsonRanges.has(candidate.type));
  return range?.type === 'text/event-stream';
}

export const notAcceptableMessage = 'A subscription over HTTP is sent as text/event-stream or as multipart/mixed;subscriptionSpec=1.0 (Apollo); the Accept header allows neither.';
const resultNotAcceptableMessage = 'A query or mutation is answered as application/graphql-response+json or application/json; the Accept header allows neither.';

/** How often an idle multipart stream sends an empty part, so clients and proxies see it alive. */
const heartbeatIntervalMs = 5_000;
const boundary = 'graphql';

/**
 * Apollo's multipart subscription protocol: each part is JSON; `{"payload": <result>}` for a result,
 * `{}` as a heartbeat, `{"payload": null, "errors": [...]}` for a failure of the transport, which
 * ends the stream; the closing delimiter ends it normally.
 */
export function multipartSubscription(results: AsyncIterable<ExecutionResult>): Response {
  const encoder = new TextEncoder();
  const iterator = results[Symbol.asyncIterator]();
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  // Each part follows a delimiter and is followed by the next one, so a part is whole once the
  // delimiter after it arrives (clients read up to the delimiter).
  const part = (json: string) => encoder.encode(`\r\nContent-Type: application/json; charset=utf-8\r\n\r\n${json}\r\n--${boundary}`);
  const end = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    clearInterval(heartbeat);
    controller.enqueue(encoder.encode('--\r\n'));
    controller.close();
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // A heartbeat first: clients learn the stream is open before the first event.
      controller.enqueue(encoder.encode(`\r\n--${boundary}`));
      controller.enqueue(part('{}'));
      heartbeat = setInterval(() => {
        if ((controller.desiredSize ?? 0) > 0) controller.enqueue(part('{}'));
      }, heartbeatIntervalMs);
    },
    async pull(controller) {
      let next: IteratorResult<ExecutionResult>;
      try {
        next = await iterator.next();
      } catch (error) {
        controller.enqueue(part(JSON.stringify({ payload: null, errors: [maskGraphQLError(error).toJSON()] })));
        end(controller);
        return;
      }
      if (next.done) {
        end(controller);
        return;
      }
      const { extensions, ...result } = next.value;
      // Yoga keeps HTTP status and headers under extensions.http; they are not part of the answer.
      const { http: _http, ...shown } = (extensions ?? {}) as Record<string, unknown>;
      controller.enqueue(part(JSON.stringify({ payload: Object.keys(shown).length ? { ...result, extensions: shown } : result })));
    },
    async cancel() {
      clearInterval(heartbeat);
      await iterator.return?.();
    },
  });
  return new Response(body, {
    headers: { 'content-type': `multipart/mixed;boundary="${boundary}";subscriptionSpec="1.0"`, 'cache-control': 'no-cache', connection: 'keep-alive' },
  });
}

const graphqlErrorMediaTypes: Record<string, string> = {
  'application/graphql-response+json': 'application/graphql-response+json',
  'application/json': 'application/json',
  'application/*': 'application/graphql-response+json',
};

/**
 * The refusal in GraphQL's own error shape when the client takes JSON (what GraphQL clients read),
 * else as an RFC 9457 problem document: never as the event stream the client just refused.
 */
function notAcceptableResponse(accept: string | null, requestId: string, message: string): Response {
  const error = new AppError('not_acceptable', message);
  const mediaType = parseAccept(accept)
    .map((range) => graphqlErrorMediaTypes[range.type])
    .find(Boolean);
  if (mediaType) {
    return new Response(JSON.stringify({ errors: [maskGraphQLError(error).toJSON()] }), { status: 406, headers: { 'content-type': `${mediaType}; charset=utf-8` } });
  }
  return new Response(JSON.stringify(problemFor(error, requestId)), { status: 406, headers: { 'content-type': 'application/problem+json' } });
}

/**
 * Chooses each HTTP subscription's transport from the Accept header (Yoga's own choice would send
 * anything that is not JSON as an event stream, and never Apollo's multipart), and answers 406 with
 * a GraphQL error body whenever no media type the client accepts fits the answer.
 */
export function useHttpSubscriptionTransports(): Plugin<Context> {
  /** Requests refused here: their answer is the refusal, whatever Yoga chose to send it in. */
  const refused = new WeakSet<Request>();
  /** Requests of a subscription (not a query Yoga may send as an event stream too). */
  const subscriptions = new WeakSet<Request>();
  return {
    // Noted once parsed, as a refusal before onSubscribe (a cost, an argument) may leave it uncalled.
    onParse: ({ context }) => {
      const { request, params } = context as { request?: Request; params?: { operationName?: string | null } };
      if (!request) return undefined;
      return ({ result }) => {
        if (result instanceof Error) return;
        const document = result as DocumentNode;
        const operation = getOperationAST(document, params?.operationName);
        // No operation chosen (several, none named): refused before anything runs, and as a subscription's refusal if it may be one.
        const subscribes = operation
          ? operation.operation === OperationTypeNode.SUBSCRIPTION
          : document.definitions.some((definition) => definition.kind === Kind.OPERATION_DEFINITION && definition.operation === OperationTypeNode.SUBSCRIPTION);
        if (subscribes) subscriptions.add(request);
      };
    },
    onSubscribe: ({ args, setResultAndStopExecution }) => {
      // graphql-ws operations have no Fetch request: their transport is the socket.
      const request = (args.contextValue as { request?: Request }).request;
      if (request && !subscriptionTransportFor(request.headers.get('accept'))) {
        refused.add(request);
        setResultAndStopExecution({ errors: [maskGraphQLError(new AppError('not_acceptable', notAcceptableMessage))] });
      }
    },
    onResultProcess: ({ request, result, resultProcessor, setResultProcessor, serverContext }) => {
      const transport = isAsyncIterable(result) ? subscriptionTransportFor(request.headers.get('accept')) : null;
      if (!refused.has(request) && !transport && subscriptions.has(request) && subscriptionTransportFor(request.headers.get('accept'))) {
        // A subscription refused before its stream began (an argument, a record not found, a scope):
        // its errors as a GraphQL response with the status they call for, not a stream of one error
        // (which EventSource would reconnect to for ever) nor a 406 for the Accept.
        setResultProcessor(processRegularResult, 'application/graphql-response+json');
        return;
      }
      // Yoga would send the refusal of an Accept such as text/event-stream;q=0 as an event stream.
      if (refused.has(request) || (!transport && !resultProcessor)) {
        const requestId = (serverContext as { requestId?: string }).requestId ?? '';
        const message = subscriptions.has(request) ? notAcceptableMessage : resultNotAcceptableMessage;
        setResultProcessor(() => notAcceptableResponse(request.headers.get('accept'), requestId, message), 'application/json');
      } else if (transport === 'multipart') setResultProcessor((results) => multipartSubscription(results as AsyncIterable<ExecutionResult>), 'multipart/mixed');
      else if (transport === 'sse') setResultProcessor((results) => serverSentEvents(results as AsyncIterable<ExecutionResult>), 'text/event-stream');
    },
  };
}
