import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ClaimedDelivery } from '../events/webhooks/worker.js';
import { activeTracer, endSpan, linksTo, withTraceHeaders } from './tracing.js';

/** What an attempt tells its span once the receiver answered (status) or did not (null). */
export interface DeliverySpan {
  answered(url: URL, status: number | null): void;
}

const untraced: DeliverySpan = { answered: () => undefined };

/**
 * Runs one attempt of a delivery in a CLIENT span of its own trace: the attempt comes later than
 * the request that logged its event, maybe on another instance, so it is linked to that request's
 * span (the event's stored traceparent) rather than made a child of it.
 */
export async function inDeliverySpan(delivery: ClaimedDelivery, attempt: (span: DeliverySpan) => Promise<void>): Promise<void> {
  const tracer = activeTracer();
  if (!tracer) return attempt(untraced);
  const span = tracer.startSpan(
    'webhook delivery',
    {
      kind: SpanKind.CLIENT,
      root: true,
      links: linksTo(delivery.trace_parent),
      attributes: {
        'http.request.method': 'POST',
        'hallowgate.webhook.delivery_id': delivery.id,
        'hallowgate.webhook.endpoint_id': delivery.endpoint_id,
        'hallowgate.webhook.message_id': delivery.message_id,
        'hallowgate.webhook.attempt': delivery.attempt_count,
      },
    },
    ROOT_CONTEXT,
  );
  const answered = (url: URL, status: number | null) => {
    // The host only: a receiver's path or query may carry a token of its own.
    span.setAttributes({ 'server.address': url.hostname, 'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)) });
    if (status !== null) span.setAttribute('http.response.status_code', status);
    if (status === null || status >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
  };
  try {
    await context.with(trace.setSpan(ROOT_CONTEXT, span), () => attempt({ answered }));
    span.end();
  } catch (error) {
    endSpan(span, error);
    throw error;
  }
}

/** The W3C trace context of the span the caller runs in, as request headers; none when tracing is off. */
export function outgoingTraceHeaders(): Record<string, string> {
  return activeTracer() ? withTraceHeaders(context.active(), {}) : {};
}
