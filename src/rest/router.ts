import type { IncomingMessage, ServerResponse } from 'node:http';
import { GraphQLError, type ExecutionResult } from 'graphql';
import { isAsyncIterable } from 'graphql-yoga';
import { unauthenticated } from '../access/keys.js';
import { meetsAuthScopes } from '../access/principal.js';
import { revocableStream, type OpenConnections } from '../access/revocation.js';
import { prefersEventStream } from '../events/http-subscriptions.js';
import type { Context } from '../graphql/context.js';
import { refusalFor } from '../graphql/builder.js';
import { markLogged } from '../graphql/errors.js';
import { schema } from '../graphql/schema.js';
import { AppError, databaseUnavailable, isErrorCode, statusForCode, type FieldError } from '../shared/errors.js';
import { maxJsonNesting, nestsDeeperThan } from '../shared/nesting.js';
import { restRequestKey } from '../response-cache/request-keys.js';
import type { ResponseCache } from '../response-cache/response-cache.js';
import { jsonMediaType } from '../server/body.js';
import { eventIdLine, eventStreamResponse } from '../server/event-stream.js';
import { streamedIdOf } from '../events/sse-resume.js';
import { writeFetchResponse } from '../server/fetch-response.js';
import { problemFor } from '../server/problem.js';
import { withinRequestTrace } from '../tracing/tracing.js';
import { entityTag, isNotModified } from './conditional.js';
import { compileOperationRoute, type CompiledOperationRoute } from './operation-route.js';
import { answersWithValidator, isOperationRoute, recordsPath, type HttpMethod, type RestRoute } from './route.js';

interface OperationArgs {
  schema: typeof schema;
  document: CompiledOperationRoute['document'];
  variableValues: Record<string, unknown>;
  contextValue: unknown;
  operationName: string;
}

/** What runs a route's operation: Yoga's envelop for a request (`yoga.getEnveloped`), so REST gets every plugin /graphql has. */
export interface Enveloped {
  contextFactory(): Promise<unknown> | unknown;
  execute(args: OperationArgs): Promise<unknown> | unknown;
  subscribe(args: OperationArgs): Promise<unknown> | unknown;
}

interface MatchableRoute {
  route: RestRoute;
  compiled: CompiledOperationRoute | undefined;
  pattern: RegExp;
  paramNames: string[];
}

function matchable(route: RestRoute): MatchableRoute {
  const paramNames: string[] = [];
  const source = route.path.replace(/:([a-z_]+)/gi, (_match, name: string) => {
    paramNames.push(name);
    return '([^/]+)';
  });
  return { route, compiled: isOperationRoute(route) ? compileOperationRoute(schema, route) : undefined, pattern: new RegExp(`^${source}/?$`), paramNames };
}

function parseJsonBody(request: IncomingMessage, raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  const contentType = request.headers['content-type'] ?? '';
  if (!jsonMediaType.test(contentType)) {
    throw new AppError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.');
  }
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw new AppError('invalid_json', `The body is not valid JSON: ${(error as Error).message}`);
  }
  // Refused before anything walks the body recursively.
  if (nestsDeeperThan(body, maxJsonNesting)) {
    throw new AppError('validation_failed', `The body nests objects and arrays more than ${maxJsonNesting} deep.`, {
      fieldErrors: [{ field: '(body)', code: 'too_deep', message: `Nest at most ${maxJsonNesting} levels.` }],
    });
  }
  return body;
}

function decodeParam(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new AppError('not_found', 'No such resource.');
  }
}

/** A GET's 200 answer as sent, and as the response cache keeps it: the bytes and every header that goes with them. */
interface Representation {
  tag: string;
  lastModified: Date | null;
  cacheSeconds: number;
  headers: Record<string, string>;
  payload: string;
}

interface Answer {
  status: number;
  body: unknown;
  headers: Record<string, string>;
  lastModified: Date | null;
  /** max-age of Cache-Control when it is a GET's 200. */
  cacheSeconds: number;
}

function writeJson(request: IncomingMessage, response: ServerResponse, status: number, payload: string) {
  if (payload) {
    response.setHeader('content-type', 'application/json; charset=utf-8');
    response.setHeader('content-length', Buffer.byteLength(payload));
  }
  response.writeHead(status);
  response.end(request.method === 'HEAD' ? undefined : payload);
}

/** A GET's answer: 304 when the client's validators match the representation, else the representation. */
function sendRepresentation(request: IncomingMessage, response: ServerResponse, route: RestRoute, representation: Representation, now = new Date()) {
  for (const [name, value] of Object.entries(representation.headers)) response.setHeader(name, value);
  response.setHeader('etag', representation.tag);
  if (representation.lastModified) response.setHeader('last-modified', representation.lastModified.toUTCString());
  response.setHeader('cache-control', `private, max-age=${representation.cacheSeconds}`);
  // Keep what the access gate varies on (Origin, for CORS) and add the credential, and Accept where it chooses an event stream.
  const vary = response.getHeader('vary');
  const varies = isOperationRoute(route) && route.eventStream ? 'Authorization, Accept' : 'Authorization';
  response.setHeader('vary', vary ? `${String(vary)}, ${varies}` : varies);
  if (isNotModified(request.headers, representation.tag, representation.lastModified, now)) {
    response.writeHead(304);
    response.end();
    return;
  }
  writeJson(request, response, 200, representation.payload);
}

/** The values at a dotted path of `data`, through lists and connections (their nodes). */
function valuesAt(value: unknown, path: readonly string[]): unknown[] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return value.flatMap((item) => valuesAt(item, path));
  if (typeof value === 'object' && 'edges' in value && Array.isArray(value.edges)) {
    return valuesAt(
      value.edges.map((edge: { node: unknown }) => edge.node),
      path,
    );
  }
  if (path.length === 0) return [value];
  return valuesAt((value as Record<string, unknown>)[path[0]!], path.slice(1));
}

function newestOf(values: unknown[]): Date | null {
  const times = values.map((value) => (typeof value === 'string' ? Date.parse(value) : Number.NaN)).filter((time) => time > 0);
  return times.length ? new Date(Math.max(...times)) : null;
}

/** The AppError REST answers for a GraphQL error of the route's operation, its fields in REST names. */
function problemOf(compiled: CompiledOperationRoute, error: GraphQLError): AppError {
  const code = error.extensions['code'];
  const original = error.originalError instanceof AppError ? error.originalError : undefined;
  const headers = original?.headers ?? {};
  if (!isErrorCode(code) || statusForCode[code] >= 500) {
    // useServerErrorLog logged the cause with the request id already.
    return markLogged(isErrorCode(code) ? new AppError(code, error.message, { headers }) : new AppError('internal_error', 'Something went wrong on our side.'));
  }
  // Messages name fields as GraphQL does; REST names them as its parameters and snake_case body fields.
  const graphqlFieldErrors = (error.extensions['errors'] as FieldError[] | undefined) ?? [];
  const fields = graphqlFieldErrors.map((fieldError) => fieldError.field);
  const fieldErrors = graphqlFieldErrors.map((fieldError) => ({
    ...fieldError,
    field: compiled.restFieldOf(fieldError.field),
    message: compiled.restTextOf(fieldError.message, fields),
  }));
  return new AppError(code, compiled.restTextOf(error.message, fields), { fieldErrors, headers });
}

/** The value at the route's answer path in an operation's `data`. */
const answerIn = (compiled: CompiledOperationRoute, data: Record<string, unknown>): unknown =>
  compiled.answerPath.reduce<unknown>((value, key) => (value as Record<string, unknown>)[key], data);

/** The REST answer of an operation's result: the list page, or the answer object with its status and headers. */
function answerOf(compiled: CompiledOperationRoute, data: Record<string, unknown>, url: URL): Answer {
  const { route } = compiled;
  const live = route.liveWith !== undefined && url.searchParams.has(route.liveWith);
  const lastModified = route.lastModified && !live ? newestOf(valuesAt(data, route.lastModified.split('.'))) : null;
  const cacheSeconds = live ? 0 : (route.cacheSeconds ?? 0);
  const headers: Record<string, string> = {};
  for (const [header, path] of Object.entries(route.flags ?? {})) {
    if (valuesAt(data, path.split('.'))[0] === true) headers[header] = 'true';
  }
  const answer = answerIn(compiled, data);
  const shape = compiled.shape ?? ((value: unknown) => value);
  if (compiled.isList) {
    const connection = answer as { edges: { node: unknown }[]; pageInfo: { hasNextPage: boolean; endCursor?: string | null } };
    const nextCursor = connection.pageInfo.hasNextPage ? (connection.pageInfo.endCursor ?? null) : null;
    if (nextCursor) {
      const next = new URLSearchParams(url.searchParams);
      next.set('cursor', nextCursor);
      headers['link'] = `<${url.origin}${url.pathname}?${next.toString()}>; rel="next"`;
    }
    const body = { data: connection.edges.map((edge) => shape(edge.node)), has_more: nextCursor !== null, next_cursor: nextCursor };
    return { status: 200, body, headers, lastModified, cacheSeconds };
  }
  let body = shape(answer) as Record<string, unknown>;
  if (route.spread) {
    const { [route.spread]: inner, ...rest } = body;
    body = { ...(inner as Record<string, unknown>), ...rest };
  }
  if (route.constant) body = { ...body, ...route.constant };
  if (route.location) headers['location'] = `${url.origin}${recordsPath(route, url.pathname)}/${String(body['id'])}`;
  return { status: route.status ?? 200, body, headers, lastModified, cacheSeconds };
}

/** The template (`GET /v1/bookings/:id`) of the route that answered each response, for usage analytics. */
const matchedRoutes = new WeakMap<ServerResponse, string>();

const noteMatch = (response: ServerResponse, route: RestRoute) => matchedRoutes.set(response, `${route.method} ${route.path}`);

export function matchedRouteOf(response: ServerResponse): string | undefined {
  return matchedRoutes.get(response);
}

export interface RestRouter {
  /** Answers the request when a route owns the path; false when no route matches at all. */
  handle(request: IncomingMessage, response: ServerResponse, url: URL, rawBody: Buffer, enveloped: Enveloped): Promise<boolean>;
  /** Records the route that owns the request's path and method, for a request refused before handle() (its metrics and span then name the route). */
  noteRoute(request: IncomingMessage, response: ServerResponse, url: URL): void;
  /** Runs an operation route without HTTP (the CLI's admin commands), answering its status and body. */
  run(method: HttpMethod, path: string, request: { params?: Record<string, string>; query?: URLSearchParams; body?: unknown }, enveloped: Enveloped): Promise<Answer>;
}

/**
 * Serves every REST route by one handler: the request becomes the route's operation, run through
 * Yoga's envelop. GETs go through `responseCache` when there is one; without it every GET runs its
 * operation, and its ETag is still the representation's own, so a conditional GET of an unchanged one gets 304.
 * Event streams are held in `openConnections`, which ends them when their credential stops being
 * valid or the server shuts down; without it (the CLI, which streams nothing) they are not held.
 */
export function createRestRouter(routes: RestRoute[], responseCache: ResponseCache | undefined, openConnections?: Pick<OpenConnections, 'hold'>): RestRouter {
  const matchables = routes.map(matchable);
  const validatedChanges = new Set(routes.filter((route) => answersWithValidator(route, routes)));

  const operationArgs = (compiled: CompiledOperationRoute, variables: Record<string, unknown>, contextValue: unknown): OperationArgs => ({
    schema,
    document: compiled.document,
    variableValues: variables,
    contextValue,
    operationName: compiled.operationName,
  });

  async function execute(compiled: CompiledOperationRoute, variables: Record<string, unknown>, contextValue: unknown, enveloped: Enveloped) {
    const result = (await enveloped.execute(operationArgs(compiled, variables, contextValue))) as ExecutionResult<Record<string, unknown>>;
    const firstError = result.errors?.[0];
    if (firstError) throw problemOf(compiled, firstError);
    return result.data!;
  }

  /**
   * Runs the route's subscription and sends its results as server-sent events, each one's answer in
   * REST form. A refusal before the stream starts (scope, bad range, unknown record) is a problem
   * document with its status; one after is the stream's last event, `event: error`.
   */
  async function sendEventStream(response: ServerResponse, stream: CompiledOperationRoute, variables: Record<string, unknown>, context: Context, enveloped: Enveloped) {
    const subscribed = (await enveloped.subscribe(operationArgs(stream, variables, context))) as AsyncIterable<ExecutionResult<Record<string, unknown>>> | ExecutionResult;
    if (!isAsyncIterable(subscribed)) throw problemOf(stream, subscribed.errors?.[0] ?? new GraphQLError('The event stream did not start.'));
    const results = openConnections && context.principal ? revocableStream(openConnections, context.principal, subscribed, () => response.destroy()) : subscribed;
    const shape = stream.shape ?? ((value: unknown) => value);
    const iterator = results[Symbol.asyncIterator]();
    // Not an async generator: its return() would wait behind a next() waiting for the next event,
    // and a client that leaves would hold its subscription until then. A result with an error ends
    // the stream as a failure does.
    const answers: AsyncIterable<{ answer: unknown; id: string | undefined }> = {
      [Symbol.asyncIterator]: () => ({
        async next() {
          const next = await iterator.next();
          if (next.done) return next;
          const firstError = next.value.errors?.[0];
          if (firstError) throw problemOf(stream, firstError);
          return { done: false, value: { answer: shape(answerIn(stream, next.value.data!)), id: streamedIdOf(next.value) } };
        },
        async return() {
          await iterator.return?.();
          return { done: true, value: undefined };
        },
      }),
    };
    const failed = (error: unknown) => {
      // A refusal of the operation (the database unavailable to a read it runs for a notice) comes as a GraphQL error.
      const problem = error instanceof AppError ? error : error instanceof GraphQLError ? problemOf(stream, error) : databaseUnavailable(error);
      if (!problem || problem.code === 'internal_error')
        withinRequestTrace(context.requestTrace, () => context.services.logger.error({ err: error, request_id: context.requestId }, 'event stream failed'));
      const sent = problem ?? new AppError('internal_error', 'Something went wrong on our side.');
      return `event: error\ndata: ${JSON.stringify(problemFor(sent, context.requestId))}\n\n`;
    };
    await writeFetchResponse(
      response,
      eventStreamResponse(answers, ({ answer, id }) => `${eventIdLine(id)}data: ${JSON.stringify(answer)}\n\n`, failed),
    );
  }

  /** Refuses a caller the route is not for before its input is read: a 403 is owed whatever the input holds. */
  function refuseWithoutAccess(route: RestRoute, compiled: CompiledOperationRoute, context: Context) {
    if (!isOperationRoute(route)) return;
    if (!context.principal) throw unauthenticated('Authenticate with Authorization: Bearer <KEY_ID>.<SECRET>.');
    const unmet = compiled.accessNeeds.find((needs) => !meetsAuthScopes(context.principal, needs));
    if (unmet) throw refusalFor(context.principal, [...(unmet.scope ? [unmet.scope] : []), ...(unmet.anyScope ?? [])]);
  }

  /** The routes whose path matches, and the one of them for the request's method. */
  function routesFor(request: IncomingMessage, url: URL) {
    const matches = matchables.map((candidate) => ({ candidate, match: candidate.pattern.exec(url.pathname) })).filter((entry) => entry.match !== null);
    const method = (request.method === 'HEAD' ? 'GET' : request.method) as HttpMethod;
    return { matches, method, found: matches.find((entry) => entry.candidate.route.method === method) };
  }

  return {
    noteRoute(request, response, url) {
      const { route } = routesFor(request, url).found?.candidate ?? {};
      if (route) noteMatch(response, route);
    },

    async handle(request, response, url, rawBody, enveloped) {
      const { matches, method, found } = routesFor(request, url);
      if (matches.length === 0) return false;
      if (!found) {
        const allowed: string[] = [...new Set(matches.map((entry) => entry.candidate.route.method))];
        if (allowed.includes('GET')) allowed.push('HEAD');
        throw new AppError('method_not_allowed', `${request.method} is not allowed on ${url.pathname}.`, {
          headers: { allow: allowed.join(', ') },
        });
      }
      const { route, compiled, paramNames } = found.candidate;
      noteMatch(response, route);
      if (!compiled) {
        if (!isOperationRoute(route))
          sendRepresentation(
            request,
            response,
            route,
            representationOf({ status: 200, body: route.document(url.origin), headers: {}, lastModified: null, cacheSeconds: route.cacheSeconds }),
          );
        return true;
      }
      const context = (await enveloped.contextFactory()) as Context;
      refuseWithoutAccess(route, compiled, context);
      const params = Object.fromEntries(paramNames.map((name, index) => [name, decodeParam(found.match![index + 1]!)]));
      // A DELETE reads a body only when its route takes one (DELETE /v1/bookings/:id, its reason).
      if (compiled.eventStream && request.method === 'GET' && prefersEventStream(request.headers.accept)) {
        const variables = compiled.eventStream.variablesOf({ params, query: url.searchParams, headers: request.headers, body: undefined });
        await sendEventStream(response, compiled.eventStream, variables, context, enveloped);
        return true;
      }
      const body = method === 'POST' || method === 'PATCH' || (method === 'DELETE' && compiled.route.body) ? parseJsonBody(request, rawBody) : undefined;
      const variables = compiled.variablesOf({ params, query: url.searchParams, headers: request.headers, body });

      const cached =
        responseCache && compiled.dataVersions
          ? await responseCache.lookup<Context, Representation>('rest', context, compiled.dataVersions, restRequestKey(context.principal, url), variables)
          : undefined;
      if (cached?.entry) {
        sendRepresentation(request, response, route, cached.entry, context.services.clock());
        return true;
      }

      const answer = answerOf(compiled, await execute(compiled, variables, context, enveloped), url);
      if (method === 'GET' && answer.status === 200) {
        const representation = representationOf(answer);
        if (cached && responseCache) responseCache.store(cached.key, representation, representation.payload.length);
        sendRepresentation(request, response, route, representation, context.services.clock());
        return true;
      }
      for (const [name, value] of Object.entries(answer.headers)) response.setHeader(name, value);
      const payload = JSON.stringify(answer.body);
      if (answer.status === 200 && validatedChanges.has(route)) response.setHeader('etag', entityTag(payload));
      writeJson(request, response, answer.status, payload);
      return true;
    },

    async run(method, path, request, enveloped) {
      const compiled = matchables.find((candidate) => candidate.route.method === method && candidate.route.path === path)?.compiled;
      if (!compiled) throw new Error(`No operation route ${method} ${path}.`);
      const context = (await enveloped.contextFactory()) as Context;
      refuseWithoutAccess(compiled.route, compiled, context);
      const query = request.query ?? new URLSearchParams();
      const variables = compiled.variablesOf({ params: request.params ?? {}, query, headers: {}, body: request.body });
      return answerOf(compiled, await execute(compiled, variables, context, enveloped), new URL(`http://localhost${path}?${query.toString()}`));
    },
  };
}

function representationOf(answer: Answer): Representation {
  const payload = JSON.stringify(answer.body);
  return { tag: entityTag(payload), lastModified: answer.lastModified, cacheSeconds: answer.cacheSeconds, headers: answer.headers, payload };
}
