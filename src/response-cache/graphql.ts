import { getOperationAST, print, type DocumentNode, type ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { operationRouteOf } from '../analytics/tracking.js';
import type { Context } from '../graphql/context.js';
import { memoPerOperation } from '../graphql/operation-memo.js';
import { stringifyResult } from '../graphql/over-http.js';
import { isRestOperationDocument } from '../graphql/rest-operation-documents.js';
import { dataVersionsOf, type GraphQLDataVersionDependency } from './graphql-data-versions.js';
import { graphqlRequestKey, type GraphQLRequestParams } from './request-keys.js';
import type { ResponseCache } from './response-cache.js';

/** A cached GraphQL response: the result, its body as Yoga sends it, and the route it counts under. */
export interface CachedGraphQLResponse {
  result: ExecutionResult;
  body: string;
  route: string;
}

function operationKey(params: GraphQLRequestParams): string {
  return JSON.stringify([params.operationName ?? null, params.query]);
}

/** Operations (query text and operation name) remembered as cacheable: far more than clients send, few enough to stay small. */
const maxCacheableOperations = 2_000;

/**
 * GraphQL's ways into the response cache (its protocol: response-cache.ts). `plugin()` is the
 * envelop plugin for every operation Yoga runs, over HTTP and WebSocket; `lookup()` is for the HTTP
 * layer, which sends the cached response of a JSON POST before Yoga parses it, when its operation
 * (query text and operation name) has had a response cached, and hands every other request to Yoga.
 * REST's operation documents pass by: the REST router caches their representations itself.
 */
export class GraphQLResponseCache {
  /** The data versions of each operation with a response cached: what looking it up before Yoga parses it needs. */
  private readonly cacheableOperations = new LRUCache<string, GraphQLDataVersionDependency[]>({ max: maxCacheableOperations });
  private readonly printedDocuments = new WeakMap<DocumentNode, string>();
  /** dataVersionsOf each operation of a document, walked once (null: its responses are not cached). */
  private readonly dataVersionsOfOperation = memoPerOperation(
    (args) => (getOperationAST(args.document, args.operationName) ? (dataVersionsOf(args.schema, args.document, args.operationName) ?? null) : undefined),
    null,
  );

  constructor(private readonly cache: ResponseCache) {}

  /** The response cached for a request whose operation had one cached before; undefined when Yoga must answer it. */
  async lookup(context: Context, params: GraphQLRequestParams): Promise<CachedGraphQLResponse | undefined> {
    const dataVersions = this.cacheableOperations.get(operationKey(params));
    if (!dataVersions) return undefined;
    // A miss is counted by the plugin, which runs next for the same request.
    return this.cache.peek<Context, CachedGraphQLResponse>('graphql', context, dataVersions, graphqlRequestKey(context.principal, params), params.variables);
  }

  plugin(): Plugin<Context & { params?: Partial<GraphQLRequestParams> }> {
    return {
      onExecute: async ({ args, setResultAndStopExecution }) => {
        if (isRestOperationDocument(args.document)) return undefined;
        const dataVersions = this.dataVersionsOfOperation(args) ?? undefined;
        if (!dataVersions) return undefined;
        const context = args.contextValue;
        // The text as sent over HTTP; over WebSocket there is none, and the printed document stands in.
        const sentText = typeof context.params?.query === 'string' ? context.params.query : undefined;
        const params = { query: sentText ?? this.printed(args.document), operationName: args.operationName, variables: args.variableValues };
        const slot = await this.cache.lookup<Context, CachedGraphQLResponse>('graphql', context, dataVersions, graphqlRequestKey(context.principal, params), args.variableValues);
        if (!slot) return undefined;
        if (slot.entry) {
          setResultAndStopExecution(slot.entry.result);
          return undefined;
        }
        return {
          onExecuteDone: ({ result }) => {
            if (isAsyncIterable(result) || result.errors) return;
            const body = stringifyResult(result);
            this.cache.store(slot.key, { result, body, route: operationRouteOf(args.document, args.operationName) } satisfies CachedGraphQLResponse, body.length);
            // By operation, not text alone: each operation of a document has its own data versions.
            if (sentText !== undefined) this.cacheableOperations.set(operationKey(params), dataVersions);
          },
        };
      },
    };
  }

  private printed(document: DocumentNode): string {
    let text = this.printedDocuments.get(document);
    if (text === undefined) {
      text = print(document);
      this.printedDocuments.set(document, text);
    }
    return text;
  }
}
