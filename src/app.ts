import { turnsOfPool } from './graphql/fair-turns.js';
import { createServer, type Server, type ServerOptions } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { pino, type Logger } from 'pino';
import { createAccessGate } from './access/gate.js';
import { trackOpenConnections } from './access/revocation.js';
import { evaluateAlertRules } from './analytics/alerts.js';
import { createUsageRecorder } from './analytics/recorder.js';
import { ConfigurationError, type Config } from './config.js';
import { statementGiveUpMs, type Database } from './db/connection.js';
import { createAnnouncements } from './events/bus.js';
import { fastPathNames, fastPaths } from './fast-paths.js';
import { attemptOptionsOf, createDeliveryWorker } from './events/webhooks/worker.js';
import { createOffersWorker } from './bookings/holds/worker.js';
import type { AppServices } from './graphql/context.js';
import { createPersistedQueryStore } from './graphql/persisted-queries.js';
import { GraphQLResponseCache } from './response-cache/graphql.js';
import { ResponseCache } from './response-cache/response-cache.js';
import { restRoutes } from './rest/table.js';
import { createRestRouter } from './rest/router.js';
import { systemClock, type Clock } from './shared/clock.js';
import { settleWithin } from './shared/deadline.js';
import { redisSilenceLimitMs } from './shared/redis.js';
import type { SecretBox } from './shared/secrets.js';
import { createRequestHandler } from './server/http.js';
import { answerClientErrors, handleExpectations } from './server/client-errors.js';
import { createMetrics, type Metrics } from './server/metrics.js';
import { createSubscriptionQuota } from './server/subscription-quota.js';
import { attachGraphQLWebSocket, isWebSocketUpgrade } from './server/websocket.js';
import { serveGraphiQLAsset } from './server/graphiql.js';
import { createGraphQLServer } from './server/yoga.js';
import { serveWidgetAsset } from './widget/serve.js';
import { serveDashboardAsset } from './analytics/dashboard/serve.js';
import { noteCacheLookup } from './tracing/graphql.js';
import { activeTracer, logCorrelation } from './tracing/tracing.js';

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
 * JSON characters of the responses the response cache keeps, GraphQL and REST together; kept as
 * objects and as the bodies sent, they take a few times as many bytes.
 */
const responseCacheBudget = 24_000_000;

/** How long /readyz and /metrics wait for a dependency: they answer within 2 s whatever hangs. */
const probeDeadlineMs = 1500;

/** The least a shutdown's last usage flush is given, however long the drain took: a healthy database answers within it. */
const lastFlushMinimumMs = 500;

/** What a response cache lookup is counted in: the metrics, and the span it ran in when tracing is on. */
function cacheLookupObserver(metrics: Metrics): ConstructorParameters<typeof ResponseCache>[1] {
  if (!activeTracer()) return metrics.responseCacheLookup;
  return (surface, outcome, dataVersions) => {
    metrics.responseCacheLookup(surface, outcome);
    noteCacheLookup(outcome, dataVersions);
  };
}

/** Wires the services, GraphQL, REST and WebSocket surfaces onto one HTTP server. */
export function createApp(options: AppOptions): App {
  const { config, database } = options;
  const logger = options.logger ?? pino({ level: config.LOG_LEVEL, ...logCorrelation() });
  const plainPaths = fastPathNames.filter((name) => !fastPaths[name]);
  // A configuration that says otherwise than the environment the code was loaded under would be silently ignored.
  if (fastPathNames.some((name) => config.HALLOWGATE_FAST_PATHS[name] !== fastPaths[name])) {
    throw new ConfigurationError('HALLOWGATE_FAST_PATHS is read from the environment when the code loads; a configuration cannot change it afterwards');
  }
  if (plainPaths.length > 0) logger.info(`fast paths off (HALLOWGATE_FAST_PATHS): ${plainPaths.join(', ')}`);
  const announcements = createAnnouncements({
    redisUrl: config.REDIS_URL,
    onRedisError: (error) => logger.warn({ err: error }, 'announcements: Redis error'),
  });
  const clock = options.clock ?? systemClock;
  // Revoking here ends this instance's connections at once; the bus tells the others.
  const openConnections = trackOpenConnections({ revokedCredentials: announcements.revokedCredentials, prisma: database.prisma, readRows: database.readRows, clock, logger });
  const services: AppServices = {
    prisma: database.prisma,
    readRows: database.readRows,
    directReads: database.directReads,
    logger,
    clock,
    bookingEventBus: announcements.bookingEvents,
    availabilityBus: announcements.availability,
    revokedCredentials: openConnections.revokedCredentials,
    config,
    secrets: options.secrets,
    usageAlerts: announcements.usageAlerts,
  };
  const turns = turnsOfPool(config.DATABASE_POOL_SIZE);
  const metrics = createMetrics({
    // What the workers have to send: a disabled endpoint's pending deliveries wait, uncounted, until it is enabled again.
    pendingDeliveries: () =>
      settleWithin(database.prisma.webhookDelivery.count({ where: { status: 'pending', endpoint: { enabled: true, deletedAt: null } } }), probeDeadlineMs, () => Number.NaN),
    // Read at a scrape, once the sockets are attached below.
    operations: () => turns.counts(),
    socketOperations: () => webSocket.operations(),
  });
  const gate = createAccessGate(services, {
    redisUrl: config.REDIS_URL,
    redisCommandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
    trustedProxies: config.TRUSTED_PROXIES,
    onRateLimited: metrics.rateLimited,
  });
  const subscriptionQuota = createSubscriptionQuota({ redisUrl: config.REDIS_URL, leaseMs: config.SUBSCRIPTION_LEASE_MS, logger });
  const persistedQueries = createPersistedQueryStore({ redisUrl: config.REDIS_URL, redisCommandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS, logger });
  const responseCache = fastPaths['response-cache'] ? new ResponseCache(responseCacheBudget, cacheLookupObserver(metrics)) : undefined;
  const graphqlResponseCache = responseCache && new GraphQLResponseCache(responseCache);
  const yoga = createGraphQLServer(services, metrics, openConnections, subscriptionQuota, turns, graphqlResponseCache, persistedQueries);
  /** The longest a statement waits on a database that does not answer: what one shutdown may wait for it, in all. */
  const databaseDeadlineMs = statementGiveUpMs(config.DATABASE_STATEMENT_TIMEOUT_MS);
  const usage = config.ANALYTICS_ENABLED
    ? createUsageRecorder({
        prisma: database.prisma,
        logger,
        clock: services.clock,
        flushMs: config.ANALYTICS_FLUSH_MS,
        stopDeadlineMs: databaseDeadlineMs,
        afterFlush: (buckets) => evaluateAlertRules(database.prisma, announcements.usageAlerts, buckets, services.clock()),
      })
    : undefined;
  const handler = createRequestHandler({
    services,
    gate,
    yoga,
    responseCache: graphqlResponseCache,
    rest: createRestRouter(restRoutes, responseCache, openConnections),
    usage,
    maxBodyBytes: config.MAX_BODY_BYTES,
    publicUrl: config.PUBLIC_URL,
    readiness: async () => {
      const [databaseCheck, redisCheck] = await Promise.all([
        settleWithin(
          database.ping().then(
            () => 'ok' as const,
            () => 'unavailable' as const,
          ),
          probeDeadlineMs,
          () => 'unavailable' as const,
        ),
        gate.redisHealth(probeDeadlineMs),
      ]);
      return { ready: databaseCheck === 'ok', checks: { database: databaseCheck, redis: redisCheck } };
    },
    metrics,
    serveAsset: async (request, response, url) =>
      (await serveWidgetAsset(request, response, url)) || (await serveDashboardAsset(request, response, url)) || (await serveGraphiQLAsset(request, response, url)),
  });
  const deliveryWorker = createDeliveryWorker({
    ...attemptOptionsOf(config, { prisma: database.prisma, logger, clock: services.clock, secrets: options.secrets }),
    pollMs: config.WEBHOOK_POLL_MS,
    concurrency: config.WEBHOOK_CONCURRENCY,
    concurrencyPerAccount: config.WEBHOOK_CONCURRENCY_PER_ACCOUNT,
  });
  const offersWorker = createOffersWorker({ prisma: database.prisma, services, logger, pollMs: config.WAITLIST_POLL_MS });
  const server = createServer(
    {
      requestTimeout: config.REQUEST_TIMEOUT_MS,
      headersTimeout: config.REQUEST_TIMEOUT_MS,
      keepAliveTimeout: config.KEEP_ALIVE_TIMEOUT_MS,
      // How often Node looks for requests past their time; its default (30 s) would let them last longer.
      connectionsCheckingInterval: Math.min(config.REQUEST_TIMEOUT_MS / 4, 30_000),
      // The handler refuses an HTTP/1.1 request without Host with a problem document; Node's own refusal is an empty 400.
      requireHostHeader: false,
      // Node 22+: only a WebSocket upgrade leaves the request handler; one to h2c is served as HTTP/1.1 (Node 20 ignores this).
      shouldUpgradeCallback: isWebSocketUpgrade,
    } as ServerOptions,
    (request, response) => void handler(request, response),
  );
  answerClientErrors(server);
  handleExpectations(server);
  const webSocket = attachGraphQLWebSocket(server, yoga, gate, openConnections, { maxPayloadBytes: config.MAX_BODY_BYTES, quota: subscriptionQuota, logger }, usage);

  return {
    server,
    services,
    async listen(port = config.PORT, host = config.HOST) {
      // Requests served while the shared Redis is still connecting would be counted in memory only.
      if (!(await gate.untilRedisReady(redisSilenceLimitMs))) logger.warn('Redis is not connected yet: rate limits count per instance until it is');
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          deliveryWorker.start();
          offersWorker.start();
          usage?.start();
          const address = server.address() as AddressInfo;
          const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
          resolve(`http://${shownHost === '0.0.0.0' ? '127.0.0.1' : shownHost}:${address.port}`);
        });
      });
    },
    async close() {
      // The last usage flush waits for the database only as long as the drain left of one deadline
      // (a healthy one still gets half a second): requests in flight on a frozen database, and then the
      // flush, wait out one deadline together, not one each.
      const flushBy = performance.now() + databaseDeadlineMs;
      // The workers claim nothing new from now on, and finish what they have under way while requests
      // drain, all together: shutdown then takes one dependency deadline at most, not one per worker.
      const workersStopped = Promise.all([deliveryWorker.stop(), offersWorker.stop()]);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await webSocket.close();
      // An open event stream would otherwise keep the server from closing for as long as its client stays.
      openConnections.endAll();
      // A connection whose last answer is still being written becomes idle only then: close it as soon as it does.
      const closeIdle = setInterval(() => server.closeIdleConnections(), 50);
      server.closeIdleConnections();
      // Node stops timing requests out once the server closes: a client still sending its request (or
      // holding a connection otherwise) is cut when REQUEST_TIMEOUT_MS would have answered it 408.
      const cutTheRest = setTimeout(() => server.closeAllConnections(), config.REQUEST_TIMEOUT_MS);
      await closed;
      clearInterval(closeIdle);
      clearTimeout(cutTheRest);
      // After the last response, so every request is counted.
      await Promise.all([usage?.stop(Math.max(flushBy - performance.now(), lastFlushMinimumMs)), workersStopped]);
      await openConnections.close();
      await subscriptionQuota.close();
      await persistedQueries.close();
      await announcements.close();
      await gate.close();
    },
  };
}
