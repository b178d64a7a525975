import { loadConfig } from '../config.js';
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { operatorAccountId } from '../access/provisioning.js';
import { createAnnouncements } from '../events/bus.js';
import { openDatabase } from '../db/connection.js';
import { createContext } from '../graphql/context.js';
import { adminRoutes } from '../rest/admin.js';
import { problemFor } from '../server/problem.js';
import { systemClock } from '../shared/clock.js';
import { AppError } from '../shared/errors.js';
import { pathOf } from './commands.js';
import type { Transport } from './transport.js';

/**
 * Straight against PostgreSQL: the same admin route handlers the server runs, in this process,
 * as the operator. (PGlite cannot be shared with a running server, so it is not offered.)
 */
export async function databaseTransport(databaseUrl: string): Promise<Transport> {
  const database = await openDatabase({ kind: 'postgres', url: databaseUrl });
  const announcements = createAnnouncements({});
  const services = {
    prisma: database.prisma,
    readRows: database.readRows,
    logger: pino({ level: 'silent' }),
    clock: systemClock,
    bookingEventBus: announcements.bookingEvents,
    config: loadConfig(),
  };

  return {
    async send(request) {
      const route = adminRoutes.find((candidate) => candidate.method === request.method && candidate.path === request.route)!;
      const url = new URL(pathOf(request), 'http://hallowgate.cli');
      const requestId = `cli_${randomUUID().replaceAll('-', '')}`;
      const context = createContext(
        services,
        { kind: 'api_key', keyId: 'cli', accountId: operatorAccountId, scopes: ['admin'], plan: 'enterprise', promo: false },
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
