import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Prometheus metrics of one app instance. Route labels are bounded: REST route templates, at most
 * `maxOperationLabels` GraphQL operation names (client-chosen, so capped), then `graphql:other`.
 */
export interface Metrics {
  contentType: string;
  render(): Promise<string>;
  observeRequest(route: string, status: number, seconds: number): void;
  rateLimited(plan: string): void;
  subscriptionStarted(): void;
  subscriptionEnded(): void;
  /** A cacheable request was answered from the response cache (hit) or by running its operation (miss). */
  responseCacheLookup(surface: 'graphql' | 'rest', outcome: 'hit' | 'miss'): void;
}

const maxOperationLabels = 200;

/**
 * The process's own metrics (CPU, memory, event loop, GC: prom-client's defaults), collected once per
 * process and shown by every app in it. The GC metric observes through a PerformanceObserver that
 * lives as long as the process: an app's own registry there would keep every closed app, and its
 * database, reachable through it.
 */
let processRegistry: Registry | undefined;

function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export function createMetrics(sources: {
  /** Pending deliveries of enabled endpoints; settles within a deadline, so a scrape never waits for a hung database. */
  pendingDeliveries(): Promise<number>;
  /** Queries and mutations of every transport: running, and waiting their credential's turn (FairTurns). */
  operations(): { running: number; waiting: number };
  /** Queries and mutations of the open graphql-ws sockets: running, and waiting their socket's turn. */
  socketOperations(): { running: number; waiting: number };
}): Metrics {
  const registry = new Registry();
  const requests = new Counter({
    name: 'hallowgate_http_requests_total',
    help: 'HTTP requests by route (REST template, graphql:<operation>, or other) and status class.',
    labelNames: ['route', 'status_class'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'hallowgate_http_request_duration_seconds',
    help: 'HTTP request latency by route.',
    labelNames: ['route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const rateLimitRejections = new Counter({
    name: 'hallowgate_rate_limit_rejections_total',
    help: 'Requests refused with 429 rate_limited, by plan (widget tokens as widget_token).',
    labelNames: ['plan'] as const,
    registers: [registry],
  });
  const subscriptions = new Gauge({
    name: 'hallowgate_subscriptions_active',
    help: 'GraphQL subscriptions open on this instance (graphql-ws and SSE).',
    registers: [registry],
  });
  new Gauge({
    name: 'hallowgate_webhook_queue_depth',
    help: 'Webhook deliveries waiting to be sent or retried to enabled endpoints (all instances share the queue).',
    registers: [registry],
    // A scrape must still answer while the database is down or hung (that is when it matters): the
    // source settles within its deadline, NaN (unknown) when the database did not answer.
    async collect() {
      this.set(await sources.pendingDeliveries().catch(() => Number.NaN));
    },
  });
  /** A gauge of operations by state, read from `source` at each scrape. */
  const operationsGauge = (name: string, help: string, source: () => { running: number; waiting: number }) =>
    new Gauge({
      name,
      help,
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        const { running, waiting } = source();
        this.set({ state: 'running' }, running);
        this.set({ state: 'waiting' }, waiting);
      },
    });
  operationsGauge(
    'hallowgate_operations',
    'Queries and mutations on this instance, running or waiting their turn (taken in turns by credential once the pool is busy).',
    sources.operations,
  );
  operationsGauge(
    'hallowgate_websocket_operations',
    'Queries and mutations of open graphql-ws sockets, running or waiting (a socket runs a few at once, the rest in turn).',
    sources.socketOperations,
  );
  const responseCacheLookups = new Counter({
    name: 'hallowgate_response_cache_lookups_total',
    help: 'Cacheable requests, answered from the response cache (hit) or by running the operation (miss).',
    labelNames: ['surface', 'outcome'] as const,
    registers: [registry],
  });
  const operationLabels = new Set<string>();

  const bounded = (route: string) => {
    if (!route.startsWith('graphql:') || operationLabels.has(route)) return route;
    if (operationLabels.size >= maxOperationLabels) return 'graphql:other';
    operationLabels.add(route);
    return route;
  };

  return {
    contentType: registry.contentType,
    render: () => Registry.merge([processMetrics(), registry]).metrics(),
    observeRequest(route, status, seconds) {
      const label = bounded(route);
      requests.inc({ route: label, status_class: `${Math.floor(status / 100)}xx` });
      duration.observe({ route: label }, seconds);
    },
    rateLimited: (plan) => rateLimitRejections.inc({ plan }),
    subscriptionStarted: () => subscriptions.inc(),
    subscriptionEnded: () => subscriptions.dec(),
    responseCacheLookup: (surface, outcome) => responseCacheLookups.inc({ surface, outcome }),
  };
}
