import { FairTurns, useFairTurns } from '../graphql/fair-turns.js';
import { useAPQ, type APQStore } from '@graphql-yoga/plugin-apq';
import { createYoga, isAsyncIterable, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { Admission } from '../access/gate.js';
import { useOperationRoute, type OperationRouteListener } from '../analytics/tracking.js';
import { useStreamRevocation, type OpenConnections } from '../access/revocation.js';
import { createContext, type AppServices, type Context } from '../graphql/context.js';
import { useDocumentErrorCodes, useServerErrorLog, maskGraphQLError, yogaLogLevel } from '../graphql/errors.js';
import { useInputCoercion } from '../graphql/input-coercion.js';
import { useCompiledExecution } from '../graphql/compiled-execution.js';
import { useAnswerSizeLimit, useOperationTimeBudget, useQueryLimits, useRequestParams } from '../graphql/limits.js';
import { useSubscriptionFanOut } from '../graphql/subscription-fan-out.js';
import { schema } from '../graphql/schema.js';
import { useHttpSubscriptionTransports } from '../events/http-subscriptions.js';
import { lastEventIdOf, useResumableServerSentEvents } from '../events/sse-resume.js';
import { fastPaths } from '../fast-paths.js';
import type { GraphQLResponseCache } from '../response-cache/graphql.js';
import { AppError } from '../shared/errors.js';
import { endableStream } from '../shared/streams.js';
import { useJsonPostExecution, type JsonPostExecuted } from './json-post.js';
import type { Metrics } from './metrics.js';
import { useSubscriptionQuota, type SubscriptionQuota, type SubscriptionSlot } from './subscription-quota.js';
import { useTracing } from '../tracing/graphql.js';
import { activeTracer } from '../tracing/tracing.js';

/** What the HTTP layer hands Yoga for each request, after the access gate let it through. */
export interface ServerContext extends OperationRouteListener, SubscriptionSlot, JsonPostExecuted {
  admission: Admission;
  requestId: string;
  /** Data versions the HTTP layer already read for this request (looking up a cached response). */
  dataVersionReads?: Context['dataVersionReads'];
  /** A REST event stream's Last-Event-ID (it has no Fetch request to read it from). */
  lastEventId?: string | null;
  /** Cuts the request's connection, its answer unfinished: how a stream ends at shutdown. */
  cutConnection?: () => void;
  /** The request's trace when its handler runs outside the trace context (unsampled). */
  requestTrace?: Context['requestTrace'];
}

export type Yoga = YogaServerInstance<ServerContext, Context>;

/**
 * Counts open subscriptions, over graphql-ws and SSE alike (both run through Yoga's envelop): from a
 * stream's start to its end, however it ends (it fails, the client or server closes it, it is revoked).
 */
function useSubscriptionCount(metrics: Metrics): Plugin<Context> {
  return {
    onSubscribe: () => ({
      onSubscribeResult: ({ result, setResult }) => {
        if (!isAsyncIterable(result)) return;
        metrics.subscriptionStarted();
        setResult(endableStream(result, () => metrics.subscriptionEnded()).stream);
      },
    }),
  };
}

/**
 * A request refused before it ran (no `data`: a subscription without its scope, say) answers with
 * the refusal's own status and headers, not the 500 Yoga gives errors it did not raise itself.
 */
function useRefusalStatus(): Plugin<Context> {
  return {
    onResultProcess: ({ result, setResult }) => {
      if (Array.isArray(result) || isAsyncIterable(result) || 'data' in result || !result.errors?.length || result.extensions?.http) return;
      const refusals = result.errors.map((error) => error.originalError);
      if (!refusals.every((refusal) => refusal instanceof AppError)) return;
      const http = { status: Math.max(...refusals.map((refusal) => refusal.status)), headers: Object.assign({}, ...refusals.map((refusal) => refusal.headers)) };
      setResult({ ...result, extensions: { ...result.extensions, http } });
    },
  };
}

export function createGraphQLServer(
  services: AppServices,
  metrics: Metrics,
  openConnections: OpenConnections,
  subscriptionQuota: SubscriptionQuota,
  /** The turns queries and mutations run in. */
  turns: FairTurns,
  /** Absent when the response-cache fast path is off. */
  responseCache: GraphQLResponseCache | undefined,
  /** Where automatic persisted queries are registered; this process's memory when absent. */
  persistedQueries?: APQStore,
): Yoga {
  const tracer = activeTracer();
  return createYoga<ServerContext, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    context: ({ admission, requestId, request, lastEventId, dataVersionReads, requestTrace }) =>
      createContext(services, admission.principal, requestId, lastEventId ?? lastEventIdOf(request?.headers.get('last-event-id')), dataVersionReads, requestTrace),
    // The fast paths (src/fast-paths.ts) are plugged in only when HALLOWGATE_FAST_PATHS keeps them on.
    plugins: [
      // First, so every other plugin's work runs inside its spans; only when tracing is on.
      ...(tracer ? [useTracing(tracer)] : []),
      ...(fastPaths['json-post'] ? [useJsonPostExecution()] : []),
      useRequestParams(),
      // After the params' own checks, before anything reads the document: a request that sends only
      // a hash gets its registered document here, and a document sent with its hash is registered.
      useAPQ(persistedQueries ? { store: persistedQueries } : {}),
      useOperationRoute(),
      useServerErrorLog(),
      useDocumentErrorCodes(),
      useInputCoercion(),
      // Before the limits' per-request checks: a cached response was asked for before with the same
      // operation, variables and session, so it passed them then, and it is far under the answer limit.
      ...(responseCache ? [responseCache.plugin()] : []),
      useQueryLimits(),
      useResumableServerSentEvents(),
      useSubscriptionFanOut(),
      // Before the subscription quota: a subscription no accepted transport can carry is refused
      // before it holds a slot.
      useHttpSubscriptionTransports(),
      useSubscriptionCount(metrics),
      useSubscriptionQuota(subscriptionQuota),
      useRefusalStatus(),
      useStreamRevocation(openConnections),
      useAnswerSizeLimit(),
      // Last but the budget: it runs the operation with the arguments every plugin before it has settled.
      ...(fastPaths['compiled-execution'] ? [useCompiledExecution()] : []),
      useOperationTimeBudget(),
      // Last: an operation's turn comes before its budget starts.
      useFairTurns(turns, services.config.DATABASE_CONNECT_TIMEOUT_MS),
    ],
    maskedErrors: { maskError: (error) => maskGraphQLError(error) },
    // Served by the HTTP layer from the gateway's own files (src/server/graphiql.ts), under its own CSP.
    graphiql: false,
    landingPage: false,
    // Bodies reach Yoga already read, within MAX_BODY_BYTES (src/server/http.ts answers 413 first);
    // Yoga's own limit would stream each of them through a second, redundant pipeline.
    maxRequestBodySize: false,
    // The access gate and CORS rules run before Yoga; Yoga's own CORS would contradict them.
    cors: false,
    // The GraphQL multipart request spec carries file uploads, which no field takes: such a request is 415.
    multipart: false,
    logging: {
      debug: (message: unknown, ...rest: unknown[]) => services.logger.debug({ details: rest }, String(message)),
      info: (message: unknown, ...rest: unknown[]) => services.logger.info({ details: rest }, String(message)),
      warn: (message: unknown, ...rest: unknown[]) => services.logger.warn({ details: rest }, String(message)),
      // Yoga logs every error it masks, the client's mistakes too; useServerErrorLog already logged ours.
      error: (message: unknown, ...rest: unknown[]) =>
        services.logger[yogaLogLevel(message)](message instanceof Error ? { err: message, details: rest } : { details: rest }, String(message)),
    },
  });
}
