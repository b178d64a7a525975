import { turnsOfPool } from '../graphql/fair-turns.js';
import { checkSecretsKey, loadSecretsKey, openMigratedDatabase } from '../bootstrap.js';
import { loadStarter } from '../db/starter.js';
import { loadConfig } from '../config.js';
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { operatorAccountId } from '../access/principal.js';
import { createAnnouncements } from '../events/bus.js';
import { parseDatabaseUrl } from '../db/connection.js';
import { trackOpenConnections } from '../access/revocation.js';
import type { AppServices } from '../graphql/context.js';
import { createRestRouter } from '../rest/router.js';
import { restRoutes } from '../rest/table.js';
import { createMetrics } from '../server/metrics.js';
import { createMemoryQuota } from '../server/subscription-quota.js';
import { createGraphQLServer } from '../server/yoga.js';
import { problemFor } from '../server/problem.js';
import { systemClock } from '../shared/clock.js';
import { createSecretBox, type SecretBox } from '../shared/secrets.js';
import { AppError } from '../shared/errors.js';
import type { Transport } from './transport.js';

/**
 * Straight on the database DATABASE_URL names: the same admin route handlers the server runs, in
 * this process, as the operator. The embedded database (DATABASE_URL unset) is held by this process
 * meanwhile, so it opens only while no server holds it.
 */
export async function databaseTransport(env: NodeJS.ProcessEnv): Promise<Transport> {
  const config = loadConfig(env);
  const databaseConfig = parseDatabaseUrl(config.DATABASE_URL);
  const database = await openMigratedDatabase(databaseConfig, {
    role: 'hallowgate CLI',
    whenInUse: 'stop it or use --server <url> to work through it',
    poolSize: config.DATABASE_POOL_SIZE,
    // A new embedded database (pglite:memory, a data directory no server made yet) is made migrated; only a server seeds one.
    starter: () => loadStarter('migrated'),
  });
  let secrets: SecretBox;
  try {
    secrets = createSecretBox(await loadSecretsKey(config, databaseConfig));
    await checkSecretsKey(database.prisma, secrets);
  } catch (error) {
    await database.close();
    throw error;
  }
  // With REDIS_URL, revocations reach the running servers at once; without it, their own check of the database ends the credential's open connections.
  const announcements = createAnnouncements({ redisUrl: config.REDIS_URL, closeGraceMs: 2_000 });
  const logger = pino({ level: 'silent' });
  const openConnections = trackOpenConnections({
    revokedCredentials: announcements.revokedCredentials,
    prisma: database.prisma,
    readRows: database.readRows,
    clock: systemClock,
    logger,
  });
  const services: AppServices = {
    prisma: database.prisma,
    readRows: database.readRows,
    directReads: database.directReads,
    logger,
    clock: systemClock,
    bookingEventBus: announcements.bookingEvents,
    availabilityBus: announcements.availability,
    revokedCredentials: openConnections.revokedCredentials,
    config,
    secrets,
  };

  const subscriptionQuota = createMemoryQuota();
  // The server's own GraphQL pipeline, so a command passes every check a REST call would.
  // No response cache: commands run REST operations once each, which it would never find again.
  const turns = turnsOfPool(config.DATABASE_POOL_SIZE);
  const yoga = createGraphQLServer(
    services,
    createMetrics({ pendingDeliveries: async () => 0, operations: () => turns.counts(), socketOperations: () => ({ running: 0, waiting: 0 }) }),
    openConnections,
    subscriptionQuota,
    turns,
    undefined,
  );
  const router = createRestRouter(restRoutes, undefined);
  const operator = { kind: 'api_key', keyId: 'cli', accountId: operatorAccountId, scopes: ['admin'], plan: 'enterprise', promo: false, expiresAt: null } as const;

  return {
    async send(request) {
      const requestId = `cli_${randomUUID().replaceAll('-', '')}`;
      const enveloped = yoga.getEnveloped({ admission: { principal: operator, headers: {} }, requestId } as never);
      try {
        const answer = await router.run(request.method, request.route, { params: request.params ?? {}, query: new URLSearchParams(request.query), body: request.body }, enveloped);
        return { status: answer.status, body: answer.body ?? null };
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        return { status: error.status, body: problemFor(error, requestId) };
      }
    },
    async close() {
      await openConnections.close();
      await subscriptionQuota.close();
      await announcements.close();
      await database.close();
    },
  };
}
