import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { Admission } from '../access/gate.js';
import { createContext, type AppServices, type Context } from '../graphql/context.js';
import { maskGraphQLError } from '../graphql/errors.js';
import { keepAnswers } from '../graphql/kept-answers.js';
import { schema } from '../graphql/schema.js';
import { lastEventIdOf, resumableServerSentEvents } from '../events/sse-resume.js';
import type { Metrics } from './metrics.js';

/** What the HTTP layer hands Yoga for each request, after the access gate let it through. */
export interface ServerContext {
  admission: Admission;
  requestId: string;
}

/**
 * JSON characters of GraphQL answers kept for queries with data fingerprints; kept as objects, they
 * take a few times as many bytes.
 */
const keptAnswerBudget = 8_000_000;

export type Yoga = YogaServerInstance<ServerContext, Context>;

/** Counts open subscriptions, over graphql-ws and SSE alike (both run through Yoga's envelop). */
function countSubscriptions(metrics: Metrics): Plugin<Context> {
  return {
    onSubscribe: () => ({
      onSubscribeResult: ({ result }) => {
        if (!(Symbol.asyncIterator in Object(result))) return;
        metrics.subscriptionStarted();
        return { onEnd: () => metrics.subscriptionEnded() };
      },
    }),
  };
}

export function createGraphQLServer(services: AppServices, metrics: Metrics): Yoga {
  return createYoga<ServerContext, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    context: ({ admission, requestId, request }) => createContext(services, admission.principal, requestId, lastEventIdOf(request)),
    plugins: [resumableServerSentEvents(), countSubscriptions(metrics), keepAnswers(schema, keptAnswerBudget, (outcome) => metrics.keptAnswer('graphql', outcome))],
    maskedErrors: { maskError: (error) => maskGraphQLError(error) },
    graphiql: {
      title: 'hallowgate',
      subscriptionsProtocol: 'WS',
      defaultQuery: '# Add "Authorization": "Bearer <KEY_ID>.<SECRET>" under Headers, then:\n{\n  viewer { accountId scopes }\n}\n',
    },
    landingPage: false,
    // Bodies reach Yoga already read, within MAX_BODY_BYTES (src/server/http.ts answers 413 first);
    // Yoga's own limit would stream each of them through a second, redundant pipeline.
    maxRequestBodySize: false,
    // The access gate and CORS rules run before Yoga; Yoga's own CORS would contradict them.
    cors: false,
    logging: {
      debug: (message: unknown, ...rest: unknown[]) => services.logger.debug({ details: rest }, String(message)),
      info: (message: unknown, ...rest: unknown[]) => services.logger.info({ details: rest }, String(message)),
      warn: (message: unknown, ...rest: unknown[]) => services.logger.warn({ details: rest }, String(message)),
      error: (message: unknown, ...rest: unknown[]) =>
        services.logger.error(message instanceof Error ? { err: message, details: rest } : { details: rest }, String(message)),
    },
  });
}
