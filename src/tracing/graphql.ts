import { getOperationAST, type DocumentNode } from 'graphql';
import type { IncomingHttpHeaders } from 'node:http';
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context as TraceContext, type Span, type Tracer } from '@opentelemetry/api';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { boundedOperationName } from '../analytics/tracking.js';
import type { Context } from '../graphql/context.js';
import { isServerError, maskGraphQLError } from '../graphql/errors.js';
import type { LookupOutcome } from '../response-cache/response-cache.js';
import { endableStream } from '../shared/streams.js';
import { contextFromHeaders, linksTo } from './tracing.js';

/** What the plugin reads of an operation's context: its params, and the HTTP request that opened a graphql-ws socket. */
type TracedContext = Context & { params?: { operationName?: string | null }; req?: { headers: IncomingHttpHeaders } };

/**
 * The trace an operation's work belongs to: the request's span over HTTP (SSE included), or the trace
 * of a request run outside the context (unsampled); over graphql-ws, which has neither, the W3C trace
 * context the socket's upgrade request carried, so a client's trace continues there too. Undefined
 * when there is none.
 */
function traceOf(operation: TracedContext): TraceContext | undefined {
  const active = context.active();
  if (trace.getSpan(active)) return active;
  if (operation.requestTrace) return operation.requestTrace;
  const upgrade = operation.req ? contextFromHeaders(operation.req.headers) : undefined;
  return upgrade && trace.getSpan(upgrade) ? upgrade : undefined;
}

/** Whether work in `traceContext` makes spans: not under a local span the sampler dropped (nothing under it would be kept). */
function spansWithin(traceContext: TraceContext): boolean {
  const span = trace.getSpan(traceContext);
  return span === undefined || span.isRecording() || span.spanContext().isRemote === true;
}

/** Notes the operation's name and type on the span the caller runs in (parse, validate, execute, subscription) when it is recorded. */
function noteOperation(document: DocumentNode, operationName: string | null | undefined): void {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return;
  const operation = getOperationAST(document, operationName);
  if (!operation) return;
  span.setAttribute('graphql.operation.type', operation.operation);
  if (operation.name) span.setAttribute('graphql.operation.name', operation.name.value);
}

/**
 * Ends a GraphQL span, marked failed only by a failure of the server's: a syntax error, a refused
 * scope or an unknown id is the client's mistake, as a 4xx is on the HTTP span.
 */
function endGraphQLSpan(span: Span, errors: readonly unknown[] = []): void {
  const failure = errors.find(isServerError);
  // The failure's code (internal_error, service_unavailable), never its message, which may quote input.
  if (failure !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: String(maskGraphQLError(failure).extensions['code']) });
  span.end();
}

/**
 * Runs a phase in a span of its own under `parent`; `wrapped` may answer a promise (execute). With
 * no parent, or under a request's span that is not recorded (unsampled), the phase runs as it is.
 */
function inPhaseSpan(tracer: Tracer, name: string, parent: TraceContext | undefined, wrapped: () => unknown): unknown {
  if (!parent || !spansWithin(parent)) return wrapped();
  const span = tracer.startSpan(name, {}, parent);
  const finish = (error?: unknown) => endGraphQLSpan(span, error === undefined ? [] : [error]);
  let outcome: unknown;
  try {
    outcome = context.with(trace.setSpan(parent, span), wrapped);
  } catch (error) {
    finish(error);
    throw error;
  }
  if (outcome instanceof Promise)
    return outcome.then(
      () => finish(),
      (error: unknown) => (finish(error), Promise.reject(error)),
    );
  finish();
  return outcome;
}

/** `stream` with each value read (and so each event executed) within `traceContext`. */
function runningWithin<T>(stream: AsyncIterableIterator<T>, traceContext: TraceContext): AsyncIterableIterator<T> {
  const within: AsyncIterableIterator<T> = {
    [Symbol.asyncIterator]: () => within,
    next: () => context.with(traceContext, () => stream.next()),
    return: () => stream.return!(),
    throw: (error: unknown) => stream.throw!(error),
  };
  return within;
}

/**
 * Spans for GraphQL's phases, through envelop's instrumentation (the ecosystem's way of wrapping
 * each phase): graphql.parse, graphql.validate and graphql.execute under the request's span, each
 * with the operation's name and type. A subscription is a SERVER span of its own, from its start to
 * its end, over graphql-ws and SSE alike; each event it sends is a graphql.subscription.event span
 * under it, linked to the span that appended the event to the booking log. Plugged in first, so
 * every other plugin's work runs inside these spans.
 */
export function useTracing(tracer: Tracer): Plugin<TracedContext> {
  /** The subscription span of each subscription under way, by its context. */
  const subscriptions = new WeakMap<object, Span>();
  return {
    instrumentation: {
      // Outside any trace (a graphql-ws operation whose client sent none), parse and validate run as
      // they are rather than each start a trace; execute starts one, so a query or mutation over a
      // socket is traced with its statements and the events it logs.
      parse: ({ context: operation }, wrapped) => void inPhaseSpan(tracer, 'graphql.parse', traceOf(operation), wrapped),
      validate: ({ context: operation }, wrapped) => void inPhaseSpan(tracer, 'graphql.validate', traceOf(operation), wrapped),
      execute: ({ context: operation }, wrapped) => inPhaseSpan(tracer, 'graphql.execute', traceOf(operation) ?? ROOT_CONTEXT, wrapped) as Promise<void>,
      subscribe: ({ context: subscriber }, wrapped) => {
        const parent = traceOf(subscriber) ?? context.active();
        const span = tracer.startSpan('graphql.subscription', { kind: SpanKind.SERVER }, parent);
        subscriptions.set(subscriber, span);
        // Ended with its stream (onSubscribeResult); a subscription refused before it has one ends here.
        return context.with(trace.setSpan(parent, span), () =>
          Promise.resolve(wrapped()).catch((error: unknown) => {
            endGraphQLSpan(span, [error]);
            throw error;
          }),
        );
      },
    },
    onParse:
      ({ context: { params } }) =>
      ({ result }) => {
        if (result && !(result instanceof Error)) noteOperation(result, params?.operationName);
      },
    onValidate: ({ params, context: { params: request } }) => noteOperation(params.documentAST, request?.operationName),
    onExecute: ({ args }) => noteOperation(args.document, args.operationName),
    onSubscribe: ({ args }) => {
      noteOperation(args.document, args.operationName);
      const span = subscriptions.get(args.contextValue);
      if (!span) return undefined;
      // Named as metrics label it: a name of any length is the client's to choose.
      span.updateName(`subscription ${boundedOperationName(getOperationAST(args.document, args.operationName)?.name?.value) ?? ''}`.trim());
      const within = trace.setSpan(context.active(), span);
      return {
        onSubscribeResult: ({ result, setResult }) => {
          if (!isAsyncIterable(result)) {
            endGraphQLSpan(span, result.errors);
            return undefined;
          }
          // Each event is read and executed within the subscription's span.
          const inSubscription = runningWithin(endableStream(result, () => span.end()).stream, within);
          setResult(inSubscription);
          return {
            onNext: ({ args: { contextValue } }) => {
              const event = tracer.startSpan('graphql.subscription.event', { links: linksTo(contextValue.streamedEventTraceParent) }, within);
              if (contextValue.streamedEventId) event.setAttribute('hallowgate.event.id', contextValue.streamedEventId);
              event.end();
            },
          };
        },
      };
    },
  };
}

/** Notes a response cache lookup on the span it ran in: hit or miss, and the data versions read. */
export function noteCacheLookup(outcome: LookupOutcome, dataVersions: readonly (string | null)[]): void {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return;
  span.setAttribute('hallowgate.response_cache', outcome);
  const read = dataVersions.filter((value): value is string => value !== null);
  if (read.length) span.setAttribute('hallowgate.data_versions', read);
}
