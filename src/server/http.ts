import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context as TraceContext } from '@opentelemetry/api';
import { performance } from 'node:perf_hooks';
import { shouldRenderGraphiQL } from 'graphql-yoga';
import { otherGraphQLRoute, type UsageRecorder } from '../analytics/recorder.js';
import { trackResponse } from '../analytics/tracking.js';
import { refusedPrincipalOf, type AccessGate, type Admission, type GateRequest } from '../access/gate.js';
import type { Principal } from '../access/principal.js';
import { unauthenticated } from '../access/keys.js';
import { createContext, type AppServices, type Context } from '../graphql/context.js';
import { maskGraphQLError, wasLogged } from '../graphql/errors.js';
import { resultMediaTypeFor } from '../graphql/over-http.js';
import type { GraphQLResponseCache } from '../response-cache/graphql.js';
import { matchedRouteOf, type RestRouter } from '../rest/router.js';
import { fastPathUses, fastPaths } from '../fast-paths.js';
import { AppError, databaseUnavailable, echoed } from '../shared/errors.js';
import { lastEventIdOf } from '../events/sse-resume.js';
import { expectsContinue, readBody } from './body.js';
import { writeFetchResponse } from './fetch-response.js';
import { executeJsonPost, jsonPostOf } from './json-post.js';
import type { Metrics } from './metrics.js';
import { sendGraphiQLPage } from './graphiql.js';
import { sendProblem } from './problem.js';
import { publicOriginOf } from './public-url.js';
import { ambiguousPathRefusal, isAmbiguousPath, malformedQueryParameter } from './request-target.js';
import type { ServerContext, Yoga } from './yoga.js';
import { traceRequests } from '../tracing/http.js';
import { activeTracer, withinRequestTrace } from '../tracing/tracing.js';

export interface HttpDependencies {
  services: AppServices;
  gate: AccessGate;
  yoga: Yoga;
  /** The response cache's GraphQL side: a JSON POST with a cached response is answered here, before Yoga (fast paths json-post and response-cache); absent when response-cache is off. */
  responseCache: GraphQLResponseCache | undefined;
  rest: RestRouter;
  /** Per-key usage analytics; absent when turned off. */
  usage?: UsageRecorder | undefined;
  maxBodyBytes: number;
  /** PUBLIC_URL: the origin of absolute URLs in answers; each request's own when absent. */
  publicUrl?: string | undefined;
  /** Whether the instance can serve (the database answers), and what each dependency's check said; within 2 s whatever hangs. */
  readiness(): Promise<Readiness>;
  metrics: Metrics;
  /** Static assets (widget script, demo pages); false when the path is not one of them. */
  serveAsset?(request: IncomingMessage, response: ServerResponse, url: URL): Promise<boolean>;
}

export interface Readiness {
  ready: boolean;
  checks: { database: 'ok' | 'unavailable'; redis: 'ok' | 'degraded' | 'not_configured' };
}

const requestIdPattern = /^[\w.:-]{1,128}$/;

function requestIdOf(request: IncomingMessage): string {
  const sent = request.headers['x-request-id'];
  return typeof sent === 'string' && requestIdPattern.test(sent) ? sent : `req_${randomUUID().replaceAll('-', '')}`;
}

function sendJson(response: ServerResponse, status: number, body: unknown, mediaType = 'application/json'): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': `${mediaType}; charset=utf-8`, 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

/** The probes' and the scraper's paths: read-only, answered to GET and HEAD. */
const operationalPaths = new Set(['/healthz', '/readyz', '/metrics']);

/** The request's URL, with the origin clients reach the server at (so answers can link back absolutely). */
function parseUrl(request: IncomingMessage, publicUrl: string | undefined): URL {
  if (isAmbiguousPath(request.url ?? '/')) throw ambiguousPathRefusal();
  let url: URL;
  try {
    const target = new URL(request.url ?? '/', 'http://localhost');
    // The path and query only: an absolute-form target (`GET http://elsewhere/…`) does not choose the origin.
    url = new URL(publicOriginOf(request, publicUrl));
    url.pathname = target.pathname;
    url.search = target.search;
  } catch {
    throw new AppError('invalid_request', 'The request target is not a valid URL.');
  }
  return url;
}

/** The refusal of a query string with a parameter that is not percent-encoded UTF-8, which would be read as U+FFFD. */
function malformedQueryRefusal(url: URL): AppError | undefined {
  const malformed = malformedQueryParameter(url.search);
  if (malformed === undefined) return undefined;
  const message = 'Percent-encode the value as UTF-8 (%C3%A9 for é).';
  return new AppError('invalid_parameter', `The query parameter ${echoed(malformed)} is not percent-encoded UTF-8. ${message}`, {
    fieldErrors: [{ field: malformed, code: 'invalid', message }],
  });
}

const methodsWithBody = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The GraphQL operation each /graphql response answered, for its metrics once it is sent. */
const graphqlRoutes = new WeakMap<ServerResponse, string>();

/** The refusal of a request without one Host header where one is due: on HTTP/1.1, and (`required`) on every WebSocket upgrade. */
export function hostRefusal(request: IncomingMessage, required = request.httpVersion === '1.1'): AppError | undefined {
  if ((required && request.headers.host === undefined) || sendsSeveral(request.rawHeaders, 'host')) {
    return new AppError('invalid_request', 'An HTTP/1.1 request must send one Host header.');
  }
  return undefined;
}

/** Whether the raw header list (name, value, name, value, …) has `name` more than once; cheaper than building headersDistinct. */
function sendsSeveral(rawHeaders: readonly string[], name: string): boolean {
  let seen = false;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    if (rawHeaders[index]!.length === name.length && rawHeaders[index]!.toLowerCase() === name) {
      if (seen) return true;
      seen = true;
    }
  }
  return false;
}

/** A refusal before GraphQL runs, in the media type a query's errors would come in, so GraphQL clients read its code as any error's. */
function refuseGraphQL(request: IncomingMessage, response: ServerResponse, error: AppError): void {
  for (const [name, value] of Object.entries(error.headers)) response.setHeader(name, value);
  sendJson(response, error.status, { errors: [maskGraphQLError(error).toJSON()] }, resultMediaTypeFor(request.headers.accept));
}

export function createRequestHandler(deps: HttpDependencies) {
  const { services, gate, yoga, rest } = deps;
  // Off, every /graphql request goes through yoga.fetch, and cached responses (if on) are found by its plugin.
  const executeJsonPosts = fastPaths['json-post'];

  async function admit(request: IncomingMessage, body: Buffer) {
    // Node keeps the first of several Authorization headers, where a proxy in front may act on another.
    if (sendsSeveral(request.rawHeaders, 'authorization')) {
      throw new AppError('invalid_request', 'Send one Authorization header: several are ambiguous.');
    }
    const gateRequest: GateRequest = {
      method: request.method ?? 'GET',
      // As sent, not re-serialized: HMAC signatures cover these exact bytes.
      target: request.url ?? '/',
      headers: request.headers,
      remoteAddress: request.socket.remoteAddress ?? '',
      body,
    };
    return gate.admit(gateRequest);
  }

  /** Counts the response in its API key's usage (when analytics are on and the request was an API key's, admitted or refused after its key was verified). */
  function trackUsage(response: ServerResponse, principal: Principal | null | undefined, routeOf: (response: ServerResponse) => string, startedAt: number): void {
    if (deps.usage && principal?.kind === 'api_key') trackResponse(deps.usage, response, principal.keyId, () => routeOf(response), startedAt);
  }

  async function serveGraphQL(request: IncomingMessage, response: ServerResponse, url: URL, requestId: string, startedAt: number, requestTrace: TraceContext | undefined) {
    // Media types are case-insensitive and may have spaces around their `;` (RFC 9110 §8.3.1); Yoga's request parsers compare them as written.
    const contentType = request.headers['content-type'];
    if (contentType) {
      const [mediaType = '', ...parameters] = contentType.split(';');
      request.headers['content-type'] = [mediaType.trim().toLowerCase(), ...parameters.map((parameter) => parameter.trim())].join('; ');
    }
    // The GraphiQL page is the one thing /graphql serves without a credential.
    if (shouldRenderGraphiQL({ method: request.method ?? 'GET', headers: new Headers({ accept: request.headers.accept ?? '' }) } as Request)) {
      sendGraphiQLPage(request, response);
      return;
    }
    let body: Buffer;
    try {
      body = methodsWithBody.has(request.method ?? '') ? await readBody(request, response, deps.maxBodyBytes) : Buffer.alloc(0);
    } catch (error) {
      // A body refused (too large, compressed, not UTF-8) is answered as a GraphQL error, as everything else here is.
      if (!(error instanceof AppError)) throw error;
      refuseGraphQL(request, response, error);
      return;
    }
    // Until an operation runs (parsed, validated, found), the request counts as graphql:other.
    graphqlRoutes.set(response, otherGraphQLRoute);
    const method = request.method ?? 'GET';
    let admission;
    try {
      admission = await admit(request, body);
      if (!admission.principal) {
        const refusal = unauthenticated('Authenticate with Authorization: Bearer <KEY_ID>.<SECRET>.');
        Object.assign(refusal.headers, admission.headers);
        throw refusal;
      }
    } catch (error) {
      const refusal = error instanceof AppError ? error : databaseUnavailable(error);
      if (!refusal) throw error;
      trackUsage(response, refusedPrincipalOf(error), graphqlRouteOfResponse, startedAt);
      refuseGraphQL(request, response, refusal);
      return;
    }
    for (const [name, value] of Object.entries(admission.headers)) response.setHeader(name, value);
    trackUsage(response, admission.principal, graphqlRouteOfResponse, startedAt);
    // Refused once admitted, with the headers of its admission (CORS): a page reads why.
    const malformedQuery = malformedQueryRefusal(url);
    if (malformedQuery) return refuseGraphQL(request, response, malformedQuery);
    // Refused here, in the media type a query's errors take: Yoga would send it as an event stream to an Accept that prefers one.
    if (method !== 'GET' && method !== 'POST') {
      refuseGraphQL(request, response, new AppError('method_not_allowed', 'GraphQL only supports GET and POST requests.', { headers: { allow: 'GET, POST' } }));
      return;
    }
    const jsonPost = executeJsonPosts ? jsonPostOf(method, request.headers, body) : undefined;
    // Shared with the context Yoga makes on a miss, so each data version is still read once.
    const dataVersionReads: Context['dataVersionReads'] = new Map();
    const serverContext: ServerContext = {
      admission,
      requestId,
      dataVersionReads,
      operationRan: (route) => graphqlRoutes.set(response, route),
      cutConnection: () => response.destroy(),
      requestTrace,
    };
    if (jsonPost) {
      const sendAnswer = (answer: string) => {
        response.writeHead(200, { 'content-type': `${jsonPost.mediaType}; charset=utf-8`, 'content-length': Buffer.byteLength(answer) });
        response.end(answer);
      };
      let cached;
      // An unreachable database is answered at once: running the query would wait out its deadline a second time.
      // Any other failure is Yoga's to answer, as a GraphQL error.
      if (deps.responseCache) {
        try {
          cached = await deps.responseCache.lookup(createContext(services, admission.principal, requestId, null, dataVersionReads), jsonPost.params);
        } catch (error) {
          const unavailable = databaseUnavailable(error);
          if (unavailable) {
            refuseGraphQL(request, response, unavailable);
            return;
          }
        }
      }
      if (cached) {
        graphqlRoutes.set(response, cached.route);
        sendAnswer(cached.body);
        return;
      }
      // As Yoga hands its envelop the request's params (the response cache's plugin keys by the text sent).
      const execution = await executeJsonPost(yoga.getEnveloped({ ...serverContext, params: jsonPost.params }), jsonPost.params);
      if (execution) fastPathUses['json-post']++;
      if (execution && 'body' in execution) {
        sendAnswer(execution.body);
        return;
      }
      serverContext.jsonPostExecution = execution;
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const fetchResponse = await yoga.fetch(
      new URL(url.pathname + url.search, 'http://localhost'),
      { method, headers, ...(body.length ? { body: new Uint8Array(body) } : {}) },
      serverContext,
    );
    // Yoga answers a body of a type it cannot read with an empty 415: the client is told what it takes.
    if (fetchResponse.status === 415) {
      await fetchResponse.body?.cancel();
      refuseGraphQL(request, response, new AppError('unsupported_media_type', 'Send the request as JSON (Content-Type: application/json), or as a GET query string.'));
      return;
    }
    await writeFetchResponse(response, fetchResponse);
  }

  async function serveRest(request: IncomingMessage, response: ServerResponse, url: URL, requestId: string, startedAt: number, requestTrace: TraceContext | undefined) {
    let body: Buffer;
    let admission: Admission;
    try {
      body = methodsWithBody.has(request.method ?? '') ? await readBody(request, response, deps.maxBodyBytes) : Buffer.alloc(0);
      admission = await admit(request, body);
    } catch (error) {
      // Refused before the router (a body too large or too slow, a credential refused): the answer still names its route (its span, its metrics).
      rest.noteRoute(request, response, url);
      trackUsage(response, refusedPrincipalOf(error), restRouteOfResponse, startedAt);
      throw error;
    }
    trackUsage(response, admission.principal, restRouteOfResponse, startedAt);
    for (const [name, value] of Object.entries(admission.headers)) response.setHeader(name, value);
    const malformedQuery = malformedQueryRefusal(url);
    if (malformedQuery) {
      rest.noteRoute(request, response, url);
      throw malformedQuery;
    }
    const handled = await rest.handle(
      request,
      response,
      url,
      body,
      yoga.getEnveloped({ admission, requestId, lastEventId: lastEventIdOf(request.headers['last-event-id']), requestTrace }),
    );
    if (handled) return;
    // Without credentials, an unknown path answers 401 like every other: paths are not disclosed to anonymous callers.
    if (!admission.principal) throw unauthenticated('Authenticate with Authorization: Bearer <KEY_ID>.<SECRET>.');
    throw new AppError('not_found', `No route ${echoed(url.pathname)}.`);
  }

  async function handleRequest(request: IncomingMessage, response: ServerResponse, requestTrace?: TraceContext): Promise<void> {
    const startedAt = performance.now();
    const requestId = requestIdOf(request);
    response.setHeader('x-request-id', requestId);
    // On close, not finish: an event stream its client leaves never finishes, and is counted all the
    // same (its duration how long it was open). A request its client left before any answer is not.
    response.once('close', () => {
      if (!response.headersSent) return;
      const route = graphqlRoutes.get(response) ?? matchedRouteOf(response) ?? 'other';
      deps.metrics.observeRequest(route, response.statusCode, (performance.now() - startedAt) / 1000);
    });
    try {
      const badHost = hostRefusal(request);
      if (badHost) {
        // As Node would for a missing one: the connection of a request this broken carries no other.
        response.shouldKeepAlive = false;
        throw badHost;
      }
      // Node hands on every Expect header (handleExpectations); 100-continue is met where a body is read.
      if (request.headers.expect !== undefined && !expectsContinue(request)) {
        throw new AppError('expectation_failed', 'The only expectation this server meets is Expect: 100-continue.');
      }
      const url = parseUrl(request, deps.publicUrl);
      const path = url.pathname;
      if (operationalPaths.has(path) && request.method !== 'GET' && request.method !== 'HEAD') {
        throw new AppError('method_not_allowed', `${request.method} is not allowed on ${path}; use GET.`, { headers: { allow: 'GET, HEAD' } });
      }
      if (path === '/healthz') return sendJson(response, 200, { status: 'ok' });
      if (path === '/readyz') {
        const { ready, checks } = await deps.readiness();
        return sendJson(response, ready ? 200 : 503, { status: ready ? 'ready' : 'unavailable', checks });
      }
      if (path === '/metrics') {
        const body = await deps.metrics.render();
        response.writeHead(200, { 'content-type': deps.metrics.contentType });
        response.end(body);
        return;
      }
      const isApiPath = path === '/graphql' || path.startsWith('/v1/') || path.startsWith('/api/v1/');
      const preflight = isApiPath && request.method === 'OPTIONS' ? gate.preflight(request.headers) : null;
      if (preflight) {
        response.writeHead(204, preflight);
        response.end();
        return;
      }
      if (path === '/graphql') return await serveGraphQL(request, response, url, requestId, startedAt, requestTrace);
      if (path.startsWith('/v1/') || path.startsWith('/api/v1/')) return await serveRest(request, response, url, requestId, startedAt, requestTrace);
      if (deps.serveAsset && (await deps.serveAsset(request, response, url))) return;
      throw new AppError('not_found', `No route ${echoed(path)}.`);
    } catch (error) {
      const problem = error instanceof AppError ? error : (databaseUnavailable(error) ?? new AppError('internal_error', 'Something went wrong on our side.'));
      // A 4xx is the client's mistake and not logged; every 5xx is ours.
      if (problem.status >= 500 && !wasLogged(error))
        withinRequestTrace(requestTrace, () => services.logger.error({ err: error, request_id: requestId }, `request failed: ${problem.code}`));
      sendProblem(response, problem, requestId);
    }
  }

  const tracer = activeTracer();
  return tracer ? traceRequests(tracer, handleRequest, routeTemplateOf) : handleRequest;
}

/** The usage route of a /graphql response: its operation's, once one ran. */
const graphqlRouteOfResponse = (response: ServerResponse): string => graphqlRoutes.get(response) ?? otherGraphQLRoute;
/** The usage route of a REST response: its matched route's. */
const restRouteOfResponse = (response: ServerResponse): string => matchedRouteOf(response) ?? 'unmatched';

/** The path template of the route that answered: a REST route's, or /graphql; undefined for anything else. */
function routeTemplateOf(response: ServerResponse): string | undefined {
  if (graphqlRoutes.has(response)) return '/graphql';
  return matchedRouteOf(response)?.split(' ')[1];
}
