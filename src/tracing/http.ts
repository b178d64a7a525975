import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, SpanKind, SpanStatusCode, trace, type Context as TraceContext, type Tracer } from '@opentelemetry/api';
import { secretsInText } from '../access/key-format.js';
import { isStreamedContentType } from '../server/fetch-response.js';
import { requestPathOf } from '../server/request-target.js';
import { contextFromHeaders, withTraceHeaders } from './tracing.js';

/**
 * The request target's path as a span keeps it: without an absolute-form target's scheme, host and
 * credentials, or the query, and with any secret a client put in it replaced by REDACTED, looked for
 * in the path as sent and percent-decoded (a secret may have been encoded, or hold `/` itself).
 */
export function tracedPath(target: string): string {
  const path = requestPathOf(target);
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // Not percent-encoded as a URL's should be: looked at as sent.
  }
  // The decoded text when it holds a secret the path as sent hides; the path as sent otherwise.
  const kept = decoded !== path && decoded.search(secretsInText) !== -1 ? decoded : path;
  return kept.replace(secretsInText, 'REDACTED');
}

/**
 * Answers a request. `requestTrace` is given when the request is traced but its handler runs outside
 * OpenTelemetry's context (the sampler left it out): what names the request's trace takes it from there.
 */
export type RequestHandler = (request: IncomingMessage, response: ServerResponse, requestTrace?: TraceContext) => Promise<void>;

/**
 * `handle` with a SERVER span around each request: it continues the caller's trace when the request
 * carries a W3C `traceparent`, and is named by the route that answered (a REST template, /graphql),
 * never by the path itself, whose ids would make every span's name different. The response says
 * which trace it belongs to (`traceresponse`). `routeOf` gives the route's path template once the answer is sent.
 */
export function traceRequests(tracer: Tracer, handle: RequestHandler, routeOf: (response: ServerResponse) => string | undefined): RequestHandler {
  return (request, response) => {
    const method = request.method ?? 'GET';
    const parent = contextFromHeaders(request.headers);
    const span = tracer.startSpan(method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } }, parent);
    const spanContext = trace.setSpan(parent, span);
    const traceParent = withTraceHeaders(spanContext, {})['traceparent'];
    if (traceParent) response.setHeader('traceresponse', traceParent);
    // A request the sampler left out records nothing, so its span needs no ending, and its handler
    // runs outside the context: no seam under it (GraphQL phase, statement, command) looks for a span
    // to start one under. It is handed its trace for what names it later (the events it logs).
    if (!span.isRecording()) return handle(request, response, spanContext);
    // The configured samplers decide by the trace alone, so the path is read only for a span that keeps it.
    span.setAttribute('url.path', tracedPath(request.url ?? '/'));
    const ended = () => {
      const route = routeOf(response);
      if (route) {
        span.updateName(`${method} ${route}`);
        span.setAttribute('http.route', route);
      }
      span.setAttribute('http.response.status_code', response.statusCode);
      const requestId = response.getHeader('x-request-id');
      if (typeof requestId === 'string') span.setAttribute('hallowgate.request_id', requestId);
      // A 4xx is the client's mistake: only the server's own failures mark the span.
      if (response.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      // Closed before the answer was sent whole: the client went away, unless it was a stream, which
      // ends that way.
      else if (!response.writableFinished && !isStreamedContentType(String(response.getHeader('content-type') ?? '')))
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'connection closed before the response ended' });
      span.end();
    };
    response.once('close', ended);
    return context.with(spanContext, () => handle(request, response));
  };
}
