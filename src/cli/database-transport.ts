import { loadSecretsKey, openMigratedDatabase } from '../bootstrap.js';
import { loadConfig } from '../config.js';
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { operatorAccountId } from '../access/provisioning.js';
import { createAnnouncements } from '../events/bus.js';
import { parseDatabaseUrl } from '../db/connection.js';
import { createContext } from '../graphql/context.js';
import { adminRoutes } from '../rest/admin.js';
import { problemFor } from '../server/problem.js';
import { systemClock } from '../shared/clock.js';
import { createSecretBox, type SecretBox } from '../shared/secrets.js';
import { AppError } from '../shared/errors.js';
import { pathOf } from './commands.js';
import type { Transport } from './transport.js';

/**
 * Straight on the database DATABASE_URL names: the same admin route handlers the server runs, in
 * this process, as the operator. The embedded database (DATABASE_URL unset) is held by this process
 * meanwhile, so it opens only while no server holds it.
 */
export async function databaseTransport(env: NodeJS.ProcessEnv): Promise<Transport> {
  const config = loadConfig(env);
  const databaseConfig = parseDatabaseUrl(config.DATABASE_URL);
  const database = await openMigratedDatabase(databaseConfig, { role: 'hallowgate CLI' });
  let secrets: SecretBox;
  try {
    secrets = createSecretBox(await loadSecretsKey(config, databaseConfig));
  } catch (error) {
    await database.close();
    throw error;
  }
  // With REDIS_URL, revocations reach the running servers, which then end the credential's open connections.
  const announcements = createAnnouncements({ redisUrl: config.REDIS_URL, closeGraceMs: 2_000 });
  const services = {
    prisma: database.prisma,
    readRows: database.readRows,
    logger: pino({ level: 'silent' }),
    clock: systemClock,
    bookingEventBus: announcements.bookingEvents,
    revokedCredentials: announcements.revokedCredentials,
    config,
    secrets,
  };

  return {
    async send(request) {
      const route = adminRoutes.find((candidate) => candidate.method === request.method && candidate.path === request.route)!;
      const url = new URL(pathOf(request), 'http://hallowgate.cli');
      const requestId = `cli_${randomUUID().replaceAll('-', '')}`;
      const context = createContext(
        services,
        { kind: 'api_key', keyId: 'cli', accountId: operatorAccountId, scopes: ['admin'], plan: 'enterprise', promo: false, expiresAt: null },
        requestId,
      );
      try {
        const result = await route.handle({
          method: request.method,
          url,
          params: request.params ?? {},
          query: url.searchParams,
          headers: {},
          body: request.body,
          context,
        });
        return { status: result.status, body: result.body ?? null };
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        return { status: error.status, body: problemFor(error, requestId) };
      }
    },
    async close() {
      await announcements.close();
      await database.close();
    },
  };
}
