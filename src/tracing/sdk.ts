import { randomUUID } from 'node:crypto';
import { context, trace, TraceFlags, type Attributes, type Context, type Link, type SpanKind, type TextMapPropagator, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode, W3CTraceContextPropagator, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  SamplingDecision,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type ReadableSpan,
  type Sampler,
  type SamplingResult,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import { echoed } from '../shared/errors.js';
import { exportHeadersOf, samplingOf, tracesProtocolOf, type TracingSettings } from './settings.js';

/**
 * OpenTelemetry's SDK as tracing.ts starts it: loaded only when tracing is on, since its exporters and
 * provider take a fifth of the server's start-up to load.
 */

/** How long one export to the collector may take: a collector that hangs costs a batch, never a request. */
const exportTimeoutMs = 10_000;
/** Longest attribute value kept: a long statement's text is cut, not dropped. */
const attributeValueLengthLimit = 4_096;

/**
 * `sampler`, except that a span starting a trace of its own and linked to a sampled span is sampled
 * too: a webhook delivery (src/tracing/webhooks.ts) comes later than the request that logged its
 * event, in a trace of its own, and an operator following a kept request finds its deliveries kept.
 */
class SampledWithLinks implements Sampler {
  constructor(private readonly sampler: Sampler) {}

  shouldSample(parent: Context, traceId: string, name: string, kind: SpanKind, attributes: Attributes, links: Link[]): SamplingResult {
    const startsTrace = trace.getSpanContext(parent) === undefined;
    if (startsTrace && links.some((link) => (link.context.traceFlags & TraceFlags.SAMPLED) !== 0)) return { decision: SamplingDecision.RECORD_AND_SAMPLED };
    return this.sampler.shouldSample(parent, traceId, name, kind, attributes, links);
  }

  toString(): string {
    return `SampledWithLinks{${this.sampler.toString()}}`;
  }
}

/** Where a running server says that its collector refuses spans, and that it takes them again. */
export interface ExportReport {
  warn(message: string): void;
  info(message: string): void;
}

/** While exports keep failing, or fail now and then, how often a failure is said. */
const failureReportIntervalMs = 60_000;

/**
 * `exporter`, saying when the collector stops taking spans and how many it lost (at once, then at
 * most once a minute however often it fails), and when it takes them again after a failure was
 * said: an operator learns of a collector that is down, or refuses a wrong API key, while it happens
 * rather than at shutdown, and a collector that fails now and then writes two lines a minute at most.
 */
class ReportingExporter implements SpanExporter {
  report: ExportReport | undefined;
  private lastWarningAt = Number.NEGATIVE_INFINITY;
  /** Whether a failure was said since the collector last took spans. */
  private warned = false;
  /** Spans the collector did not take since the last line about it. */
  private lost = 0;
  /** The collector as a log line names it: its query, which may carry a token, left out. */
  private readonly url: string;

  constructor(
    private readonly exporter: SpanExporter,
    url: string,
  ) {
    const { origin, pathname } = new URL(url);
    this.url = origin + pathname;
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.exporter.export(spans, (result) => {
      if (result.code === ExportResultCode.SUCCESS) this.took();
      else this.failed(spans.length, result.error);
      done(result);
    });
  }

  private failed(spans: number, error: Error | undefined): void {
    this.lost += spans;
    const now = Date.now();
    if (now - this.lastWarningAt < failureReportIntervalMs) return;
    const since = this.lastWarningAt === Number.NEGATIVE_INFINITY ? '' : ' since the last warning';
    this.report?.warn(
      `tracing: the collector at ${this.url} did not take ${this.lost} spans${since} (${error ? echoed(error.message) : 'no reason given'}); spans are dropped until it does`,
    );
    this.lastWarningAt = now;
    this.lost = 0;
    this.warned = true;
  }

  private took(): void {
    if (!this.warned) return;
    const lostMeanwhile = this.lost > 0 ? ` (${this.lost} more spans were lost after the warning)` : '';
    this.report?.info(`tracing: the collector at ${this.url} takes spans again${lostMeanwhile}`);
    this.warned = false;
    this.lost = 0;
  }

  shutdown(): Promise<void> {
    return this.exporter.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.exporter.forceFlush?.() ?? Promise.resolve();
  }
}

function samplerOf(settings: TracingSettings): Sampler {
  const { sampler, ratio } = samplingOf(settings);
  // always_off keeps nothing, linked or not.
  if (sampler === 'always_off') return new AlwaysOffSampler();
  const root = sampler.endsWith('always_on') ? new AlwaysOnSampler() : sampler.endsWith('always_off') ? new AlwaysOffSampler() : new TraceIdRatioBasedSampler(ratio);
  return new SampledWithLinks(sampler.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root);
}

/** A tracer provider exporting to `url`, the async context OpenTelemetry's API then uses, and W3C trace context propagation. */
export function startSdk(
  settings: TracingSettings,
  url: string,
): { tracer: Tracer; propagator: TextMapPropagator; reportExportsTo(report: ExportReport): void; flush(): Promise<void>; shutdown(): Promise<void> } {
  // The headers as settings.ts checked them, not as the exporter would read the environment again.
  const exporterOptions = { url, timeoutMillis: exportTimeoutMs, headers: exportHeadersOf(settings) };
  const exporter = new ReportingExporter(tracesProtocolOf(settings) === 'http/json' ? new JsonTraceExporter(exporterOptions) : new ProtobufTraceExporter(exporterOptions), url);
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      'service.instance.id': randomUUID(),
      ...settings.OTEL_RESOURCE_ATTRIBUTES,
      'service.name': settings.OTEL_SERVICE_NAME ?? settings.OTEL_RESOURCE_ATTRIBUTES['service.name'] ?? 'hallowgate',
    }),
    sampler: samplerOf(settings),
    spanLimits: { attributeValueLengthLimit },
    // Batches are sent in the background; past the queue's bound, spans are dropped, never held.
    spanProcessors: [new BatchSpanProcessor({ exporter, exportTimeoutMillis: exportTimeoutMs })],
  });
  // Spans find their parent through the async context a request's work runs in.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  return {
    tracer: provider.getTracer('hallowgate'),
    // Its own, not the API's global one, which another library may have taken.
    propagator: new W3CTraceContextPropagator(),
    reportExportsTo: (report) => (exporter.report = report),
    flush: () => provider.forceFlush(),
    async shutdown() {
      await provider.shutdown();
      context.disable();
    },
  };
}
