import { performance } from 'node:perf_hooks';
import type { ServerResponse } from 'node:http';
import type { UsageRecorder } from './recorder.js';

/** Records an API key's request when its response has been sent. `routeOf` is read then, once the route is known. */
export function trackResponse(
  recorder: UsageRecorder,
  response: ServerResponse,
  apiKeyId: string,
  routeOf: () => string,
  startedAt: number,
): void {
  response.once('finish', () => {
    recorder.record({
      apiKeyId,
      route: routeOf(),
      status: response.statusCode,
      latencyMs: performance.now() - startedAt,
      bytes: Number(response.getHeader('content-length')) || 0,
    });
  });
}

const namedOperation = /^\s*(?:query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]*)/;

interface GraphQLParams {
  operationName?: unknown;
  query?: unknown;
}

/** `graphql:<operationName>`: the name the client sent, else the document's own, else `anonymous`. */
export function graphqlRouteOf(params: GraphQLParams | null | undefined): string {
  const sentName = typeof params?.operationName === 'string' && params.operationName ? params.operationName : undefined;
  const documentName = typeof params?.query === 'string' ? namedOperation.exec(params.query)?.[1] : undefined;
  return `graphql:${sentName ?? documentName ?? 'anonymous'}`;
}

/** The GraphQL params of an HTTP request: the query string for GET, the JSON body otherwise (batches count as anonymous). */
export function graphqlParamsOf(url: URL, body: Buffer): GraphQLParams | undefined {
  if (body.length === 0) return { operationName: url.searchParams.get('operationName'), query: url.searchParams.get('query') };
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as GraphQLParams) : undefined;
  } catch {
    return undefined;
  }
}
