import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

export const httpRequests = new Counter({
  name: 'hallowgate_http_requests_total',
  help: 'HTTP requests by surface and status class.',
  labelNames: ['surface', 'status_class'] as const,
  registers: [metricsRegistry],
});

export const httpDuration = new Histogram({
  name: 'hallowgate_http_request_duration_seconds',
  help: 'HTTP request latency by surface.',
  labelNames: ['surface'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  registers: [metricsRegistry],
});

export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  return { contentType: metricsRegistry.contentType, body: await metricsRegistry.metrics() };
}
