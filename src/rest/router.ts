import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { unauthenticated } from '../access/keys.js';
import type { Context } from '../graphql/context.js';
import { AppError } from '../shared/errors.js';
import { KeptAnswers } from '../shared/kept-answers.js';
import { maxJsonNesting, nestsDeeperThan } from '../shared/nesting.js';
import { entityTag, isNotModified } from './conditional.js';
import type { HttpMethod, RestRoute } from './routes.js';

interface CompiledRoute {
  route: RestRoute;
  pattern: RegExp;
  paramNames: string[];
}

function compile(route: RestRoute): CompiledRoute {
  const paramNames: string[] = [];
  const source = route.path.replace(/:([a-z_]+)/gi, (_match, name: string) => {
    paramNames.push(name);
    return '([^/]+)';
  });
  return { route, pattern: new RegExp(`^${source}/?$`), paramNames };
}

const jsonContentType = /^application\/([a-z.+-]*\+)?json\s*(;|$)/i;

function parseJsonBody(request: IncomingMessage, raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  const contentType = request.headers['content-type'] ?? '';
  if (!jsonContentType.test(contentType)) {
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

/** Fixed-size key for a representation: the route's data fingerprint and the whole request URL. */
function representationKeyOf(fingerprint: string, url: URL): string {
  return createHash('sha256').update(fingerprint).update('\0').update(url.pathname).update(url.search).digest('base64url');
}

/** A GET's 200 answer as sent: the bytes and every header that goes with them. */
interface Representation {
  tag: string;
  lastModified: Date | null | undefined;
  headers: Record<string, string>;
  payload: string;
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
function sendRepresentation(request: IncomingMessage, response: ServerResponse, route: RestRoute, representation: Representation) {
  for (const [name, value] of Object.entries(representation.headers)) response.setHeader(name, value);
  setCachingHeaders(response, route, representation.tag, representation.lastModified);
  if (isNotModified(request.headers, representation.tag, representation.lastModified)) {
    response.writeHead(304);
    response.end();
    return;
  }
  writeJson(request, response, 200, representation.payload);
}

function setCachingHeaders(response: ServerResponse, route: RestRoute, tag: string, lastModified: Date | null | undefined) {
  response.setHeader('etag', tag);
  if (lastModified) response.setHeader('last-modified', lastModified.toUTCString());
  response.setHeader('cache-control', `private, max-age=${route.cacheSeconds ?? 0}`);
  // Keep what the access gate varies on (Origin, for CORS) and add the credential.
  const vary = response.getHeader('vary');
  response.setHeader('vary', vary ? `${String(vary)}, Authorization` : 'Authorization');
}

/** The template (`GET /v1/bookings/:id`) of the route that answered each response, for usage analytics. */
const matchedRoutes = new WeakMap<ServerResponse, string>();

export function matchedRouteOf(response: ServerResponse): string | undefined {
  return matchedRoutes.get(response);
}

export interface RestRouter {
  /** Answers the request when a route family owns the path; false when no route matches at all. */
  handle(request: IncomingMessage, response: ServerResponse, url: URL, rawBody: Buffer, context: Context): Promise<boolean>;
}

/** Characters of GET answers the router keeps for routes with a validator (about twice as many bytes). */
const representationBudget = 16_000_000;

/** Maps paths to route handlers and does the HTTP work common to every route. */
export function createRestRouter(routes: RestRoute[], onLookup: (outcome: 'hit' | 'miss') => void): RestRouter {
  const compiled = routes.map(compile);
  const known = new KeptAnswers<Representation>(representationBudget);

  return {
    async handle(request, response, url, rawBody, context) {
      const matches = compiled
        .map((candidate) => ({ candidate, match: candidate.pattern.exec(url.pathname) }))
        .filter((entry) => entry.match !== null);
      if (matches.length === 0) return false;

      const method = (request.method === 'HEAD' ? 'GET' : request.method) as HttpMethod;
      const found = matches.find((entry) => entry.candidate.route.method === method);
      if (!found) {
        const allowed: string[] = [...new Set(matches.map((entry) => entry.candidate.route.method))];
        if (allowed.includes('GET')) allowed.push('HEAD');
        throw new AppError('method_not_allowed', `${request.method} is not allowed on ${url.pathname}.`, {
          headers: { allow: allowed.join(', ') },
        });
      }
      const { route, paramNames } = found.candidate;
      matchedRoutes.set(response, `${route.method} ${route.path}`);
      if (!route.public && !context.principal) {
        throw unauthenticated('Authenticate with Authorization: Bearer <KEY_ID>.<SECRET>.');
      }
      const params = Object.fromEntries(paramNames.map((name, index) => [name, decodeParam(found.match![index + 1]!)]));
      const body = method === 'POST' || method === 'PATCH' ? parseJsonBody(request, rawBody) : undefined;

      const restRequest = { method, url, params, query: url.searchParams, headers: request.headers, body, context };
      // Read before the operation runs, so a representation is never filed under a newer fingerprint than its data.
      const representationKey =
        method === 'GET' && route.validator ? representationKeyOf(await route.validator(restRequest), url) : undefined;
      const sent = representationKey ? known.get(representationKey) : undefined;
      if (representationKey) onLookup(sent ? 'hit' : 'miss');
      if (sent) {
        sendRepresentation(request, response, route, sent);
        return true;
      }

      const result = await route.handle(restRequest);
      const payload = result.body === undefined ? '' : JSON.stringify(result.body);
      if (method === 'GET' && result.status === 200) {
        const representation = { tag: entityTag(payload), lastModified: result.lastModified, headers: result.headers ?? {}, payload };
        if (representationKey) known.set(representationKey, representation, payload.length);
        sendRepresentation(request, response, route, representation);
        return true;
      }
      for (const [name, value] of Object.entries(result.headers ?? {})) response.setHeader(name, value);
      writeJson(request, response, result.status, payload);
      return true;
    },
  };
}
