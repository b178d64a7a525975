import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino, type Logger } from 'pino';
import { createAccessGate } from './access/gate.js';
import { trackOpenConnections } from './access/revocation.js';
import { evaluateAlertRules } from './analytics/alerts.js';
import { createUsageRecorder } from './analytics/recorder.js';
import type { Config } from './config.js';
import type { Database } from './db/connection.js';
import { createAnnouncements } from './events/bus.js';
import { createDeliveryWorker, parseSchedule } from './events/webhooks/worker.js';
import type { AppServices } from './graphql/context.js';
import { KeptGraphQLAnswers } from './graphql/kept-answers.js';
import { createPersistedQueryStore } from './graphql/persisted-queries.js';
import { schema } from './graphql/schema.js';
import { restRoutes } from './rest/table.js';
import { createRestRouter } from './rest/router.js';
import { systemClock, type Clock } from './shared/clock.js';
import type { SecretBox } from './shared/secrets.js';
import { createRequestHandler } from './server/http.js';
import { createMetrics } from './server/metrics.js';
import { createSubscriptionQuota } from './server/subscription-quota.js';
import { attachGraphQLWebSocket } from './server/websocket.js';
import { serveGraphiQLAsset } from './server/graphiql.js';
import { createGraphQLServer } from './server/yoga.js';
import { serveWidgetAsset } from './widget/serve.js';
import { serveDashboardAsset } from './analytics/dashboard/serve.js';

export interface AppOptions {
  config: Config;
  /** An open, migrated database. */
  database: Database;
  /** Under the key that encrypted the database's secrets (prepareDatabase gives it). */
  secrets: SecretBox;
  clock?: Clock;
  logger?: Logger;
}

export interface App {
  server: Server;
  services: AppServices;
  /** Starts listening; resolves with the base URL, e.g. http://127.0.0.1:4000 */
  listen(port?: number, host?: string): Promise<string>;
  /** Stops accepting work, finishes what is in flight, and releases every resource. */
  close(): Promise<void>;
}

/**
 * JSON characters of GraphQL answers kept for queries with data fingerprints; kept as objects and
 * as the bodies sent, they take a few times as many bytes.
 */
const keptGraphQLAnswerBudget = 8_000_000;

/** Wires the services, GraphQL, REST and WebSocket surfaces onto one HTTP server. */
export function createApp(options: AppOptions): App {
  const { config, database } = options;
  const logger = options.logger ?? pino({ level: config.LOG_LEVEL });
  const announcements = createAnnouncements({
    redisUrl: config.REDIS_URL,
    onRedisError: (error) => logger.warn({ err: error }, 'announcements: Redis error'),
  });
  const services: AppServices = {
    prisma: database.prisma,
    readRows: database.readRows,
    directReads: database.directReads,
    logger,
    clock: options.clock ?? systemClock,
    bookingEventBus: announcements.bookingEvents,
    revokedCredentials: announcements.revokedCredentials,
    config,
    secrets: options.secrets,
    usageAlerts: announcements.usageAlerts,
  };
  const metrics = createMetrics({ pendingDeliveries: () => database.prisma.webhookDelivery.count({ where: { status: 'pending' } }) });
  const gate = createAccessGate(services, { redisUrl: config.REDIS_URL, trustedProxies: config.TRUSTED_PROXIES, onRateLimited: metrics.rateLimited });
  const openConnections = trackOpenConnections({ revokedCredentials: announcements.revokedCredentials, clock: services.clock, logger });
  const subscriptionQuota = createSubscriptionQuota({ redisUrl: config.REDIS_URL, logger });
  const persistedQueries = createPersistedQueryStore({ redisUrl: config.REDIS_URL, logger });
  const keptAnswers = new KeptGraphQLAnswers(schema, keptGraphQLAnswerBudget, (outcome) => metrics.keptAnswer('graphql', outcome));
  const yoga = createGraphQLServer(services, metrics, openConnections, subscriptionQuota, keptAnswers, persistedQueries);
  const usage = config.ANALYTICS_ENABLED
    ? createUsageRecorder({
        prisma: database.prisma,
        logger,
        clock: services.clock,
        flushMs: config.ANALYTICS_FLUSH_MS,
        afterFlush: (buckets) => evaluateAlertRules(database.prisma, announcements.usageAlerts, buckets, services.clock()),
      })
    : undefined;
  const handler = createRequestHandler({
    services,
    gate,
    yoga,
    keptAnswers,
    rest: createRestRouter(restRoutes, (outcome) => metrics.keptAnswer('rest', outcome)),
    usage,
    maxBodyBytes: config.MAX_BODY_BYTES,
    publicUrl: config.PUBLIC_URL,
    isReady: () =>
      database.ping().then(
        () => true,
        () => false,
      ),
    metrics,
    serveAsset: async (request, response, url) =>
      (await serveWidgetAsset(request, response, url)) || (await serveDashboardAsset(request, response, url)) || (await serveGraphiQLAsset(request, response, url)),
  });
  const deliveryWorker = createDeliveryWorker({
    prisma: database.prisma,
    logger,
    clock: services.clock,
    retrySchedule: parseSchedule(config.WEBHOOK_RETRY_SCHEDULE),
    pollMs: config.WEBHOOK_POLL_MS,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    disableAfterMs: config.WEBHOOK_DISABLE_AFTER_MS,
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
    secrets: options.secrets,
    concurrency: config.WEBHOOK_CONCURRENCY,
    concurrencyPerAccount: config.WEBHOOK_CONCURRENCY_PER_ACCOUNT,
  });
  const server = createServer(
    {
      requestTimeout: config.REQUEST_TIMEOUT_MS,
      headersTimeout: config.REQUEST_TIMEOUT_MS,
      // How often Node looks for requests past their time; its default (30 s) would let them last longer.
      connectionsCheckingInterval: Math.min(config.REQUEST_TIMEOUT_MS / 4, 30_000),
    },
    (request, response) => void handler(request, response),
  );
  const webSocket = attachGraphQLWebSocket(server, yoga, gate, openConnections, { maxPayloadBytes: config.MAX_BODY_BYTES, quota: subscriptionQuota, logger }, usage);

  return {
    server,
    services,
    listen(port = config.PORT, host = config.HOST) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          deliveryWorker.start();
          usage?.start();
          const address = server.address() as AddressInfo;
          const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
          resolve(`http://${shownHost === '0.0.0.0' ? '127.0.0.1' : shownHost}:${address.port}`);
        });
      });
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await webSocket.close();
      server.closeIdleConnections();
      await closed;
      // After the last response, so every request is counted.
      await usage?.stop();
      await deliveryWorker.stop();
      await openConnections.close();
      await subscriptionQuota.close();
      await persistedQueries.close();
      await announcements.close();
      await gate.close();
    },
  };
}
