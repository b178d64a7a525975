import {
  context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context as TraceContext,
  type Link,
  type Span,
  type TextMapPropagator,
  type Tracer,
} from '@opentelemetry/api';
import { settleWithin } from '../shared/deadline.js';
import type { ExportReport } from './sdk.js';
import { tracesUrlOf, type TracingSettings } from './settings.js';

/**
 * Tracing through OpenTelemetry's SDK, on only when an OTLP endpoint is set (settings.ts). Off, none
 * of this runs: every seam asks `activeTracer()` once, when it is built or per call, and does what it
 * did before when the answer is undefined, and the SDK (sdk.ts) is never loaded. On, spans are made
 * at the project's own seams (the HTTP layer, the Yoga plugin list, the database's statements, the
 * Redis wrapper, the booking log, the webhook worker), never by replacing a library's methods. The
 * seams use OpenTelemetry's API alone, whose context the SDK sets up, and its W3C propagator.
 */

export interface Tracing {
  tracer: Tracer;
  /** W3C trace context (traceparent, tracestate) to and from headers. */
  propagator: TextMapPropagator;
  /** Says, from now on, when the collector stops taking spans and when it takes them again. */
  reportExportsTo(report: ExportReport): void;
  /** Sends the spans ended so far. */
  flush(): Promise<void>;
  /**
   * Sends what is left, waiting for the collector at most shutdownDeadlineMs, and stops; tracing is
   * off afterwards. Never rejects: resolves with why the last spans were lost, when they were.
   */
  shutdown(): Promise<string | undefined>;
}

let active: Tracing | undefined;

/** How long a process that stops waits for the collector to take its last spans: a collector that is down delays no shutdown for long. */
export const shutdownDeadlineMs = 3_000;

/**
 * Starts tracing for this process when the settings turn it on (once: a second call finds it
 * started); undefined when they leave it off. Call it before the database opens and the app is made.
 */
export async function startTracing(settings: TracingSettings): Promise<Tracing | undefined> {
  const url = tracesUrlOf(settings);
  if (active || !url) return active;
  const { startSdk } = await import('./sdk.js');
  if (active) return active;
  const sdk = startSdk(settings, url);
  const started: Tracing = {
    tracer: sdk.tracer,
    propagator: sdk.propagator,
    reportExportsTo: (report) => sdk.reportExportsTo(report),
    flush: () => sdk.flush(),
    shutdown() {
      if (active === started) active = undefined;
      const sent = sdk.shutdown().then(
        () => undefined,
        (error: unknown) => `the collector did not take the last spans (${error instanceof Error ? error.message : String(error)})`,
      );
      return settleWithin<string | undefined>(sent, shutdownDeadlineMs, () => `the collector did not take the last spans within ${shutdownDeadlineMs} ms`);
    },
  };
  active = started;
  return started;
}

/**
 * Why tracing slows every request of this process, or null when it does not: OpenTelemetry keeps the
 * trace context of sampled requests in AsyncLocalStorage, which Node 24 (and Node 22 with
 * --experimental-async-context-frame) carries in AsyncContextFrame at little cost, and older Nodes
 * on async hooks, which once the first sampled request turns them on slow every promise, sampled or
 * not (BENCHMARKS.md).
 */
export function asyncContextCost(nodeVersion: string, nodeFlags: readonly string[]): string | null {
  const major = Number(nodeVersion.split('.')[0]);
  const framed = major >= 24 ? !nodeFlags.includes('--no-async-context-frame') : major >= 22 && nodeFlags.includes('--experimental-async-context-frame');
  if (framed) return null;
  const advice =
    major >= 22 ? 'start Node with --experimental-async-context-frame (NODE_OPTIONS), or use Node 24' : 'use Node 24, or Node 22 with --experimental-async-context-frame';
  return `tracing on Node ${nodeVersion} keeps its trace context on async hooks, which slow every request once one is sampled: ${advice}`;
}

/** The flags this process was started with: its command line's and NODE_OPTIONS'. */
export function nodeFlagsOfThisProcess(): string[] {
  return [...process.execArgv, ...(process.env['NODE_OPTIONS'] ?? '').split(/\s+/).filter(Boolean)];
}

/** The tracer when tracing is on. */
export function activeTracer(): Tracer | undefined {
  return active?.tracer;
}

export function activeTracing(): Tracing | undefined {
  return active;
}

/**
 * Whether the caller runs in a span that is not recorded (a trace the sampler dropped): work under it
 * starts no span and notes nothing, as none of it would be kept, so an unsampled request costs
 * little more than one with tracing off.
 */
export function inUnsampledSpan(): boolean {
  const span = trace.getActiveSpan();
  return span !== undefined && !span.isRecording();
}

/**
 * A span under the one the caller runs in, or undefined when tracing is off, the caller runs in none
 * (work outside a request or a delivery: the workers' polls, Redis health probes start no trace) or
 * in one that is not recorded. The span is `described` (its name and attributes) only when it is made.
 */
export function startChildSpan(described: () => { name: string; attributes: Attributes }, kind: SpanKind = SpanKind.CLIENT, startTime?: Date): Span | undefined {
  const tracer = active?.tracer;
  if (!tracer) return undefined;
  const parent = context.active();
  if (!trace.getSpan(parent)?.isRecording()) return undefined;
  const { name, attributes } = described();
  return tracer.startSpan(name, { kind, attributes, ...(startTime ? { startTime } : {}) }, parent);
}

/** Ends `span` as failed when `error` is set. */
export function endSpan(span: Span, error?: unknown): void {
  if (error !== undefined) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
  }
  span.end();
}

/** Runs `work` in a span of its own (under the caller's) when tracing is on; as it is when off or under an unsampled span. */
export async function inSpan<T>(name: string, attributes: Attributes, work: () => Promise<T>): Promise<T> {
  const tracer = active?.tracer;
  if (!tracer || inUnsampledSpan()) return work();
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      const value = await work();
      span.end();
      return value;
    } catch (error) {
      endSpan(span, error);
      throw error;
    }
  });
}

/**
 * The W3C traceparent of the span the caller runs in, or of `requestTrace` when given (a request run
 * outside the context); null when tracing is off or there is none.
 */
export function currentTraceParent(requestTrace?: TraceContext): string | null {
  if (!active) return null;
  const carrier: Record<string, string> = {};
  active.propagator.inject(requestTrace ?? context.active(), carrier, defaultTextMapSetter);
  return carrier['traceparent'] ?? null;
}

/**
 * Runs `work` within `requestTrace`, the trace of a request whose handler runs outside
 * OpenTelemetry's context (one the sampler left out, src/tracing/http.ts); as it is without one.
 * For the work of such a request that names its trace later or elsewhere: the event it logs (and so
 * its webhook deliveries), a log line it writes.
 */
export function withinRequestTrace<T>(requestTrace: TraceContext | undefined, work: () => T): T {
  return requestTrace ? context.with(requestTrace, work) : work();
}

/** The trace context W3C headers carry (`traceparent`, `tracestate`), continued from; the root when they carry none, or tracing is off. */
export function contextFromHeaders(headers: Record<string, string | string[] | undefined>): TraceContext {
  return active ? active.propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter) : ROOT_CONTEXT;
}

/** `headers` with the W3C trace context of `traceContext` added. */
export function withTraceHeaders(traceContext: TraceContext, headers: Record<string, string>): Record<string, string> {
  active?.propagator.inject(traceContext, headers, defaultTextMapSetter);
  return headers;
}

/** A link to the span a stored traceparent names; none when it names none. */
export function linksTo(traceParent: string | null | undefined): Link[] {
  if (!traceParent) return [];
  const spanContext = trace.getSpanContext(contextFromHeaders({ traceparent: traceParent }));
  return spanContext ? [{ context: spanContext }] : [];
}

/**
 * pino options that add the trace and span ids of the span a log line is written in, when tracing
 * is on, so a request's log lines are found from its trace and back.
 */
export function logCorrelation(): { mixin?: () => Record<string, string> } {
  if (!active) return {};
  return {
    mixin(): Record<string, string> {
      const spanContext = trace.getSpanContext(context.active());
      return spanContext ? { trace_id: spanContext.traceId, span_id: spanContext.spanId } : {};
    },
  };
}
