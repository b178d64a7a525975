import { randomUUID } from 'node:crypto';
import { pino, type DestinationStream } from 'pino';
import { createApp, type App } from '../../src/app.js';
import { createApiKey, type NewApiKey } from '../../src/access/keys.js';
import type { Scope } from '../../src/access/principal.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { Database, StatementListener } from '../../src/db/connection.js';
import type { Plan, PrismaClient } from '../../src/generated/prisma/client.js';
import type { Clock } from '../../src/shared/clock.js';
import { newId } from '../../src/shared/ids.js';
import { createSecretBox } from '../../src/shared/secrets.js';
import { logCorrelation } from '../../src/tracing/tracing.js';
import { offersWorkerPollComment } from '../../src/bookings/holds/worker.js';
import { openTestDatabase } from './database.js';
import { testSecretsKey } from './secrets.js';

export interface TestServerOptions {
  /** Start from the seeded directory (categories, events, attractions, services). */
  seed?: boolean;
  clock?: Clock;
  config?: Partial<Config>;
  /** Called with every SQL statement the server sends. */
  onQuery?: StatementListener;
  /** Run on this PostgreSQL server even when the suite's default is PGlite (from requireService). */
  postgresUrl?: string;
  /** Where the server's log lines go (at config LOG_LEVEL) instead of stdout. */
  logStream?: DestinationStream;
}

export interface CreateKeyOptions extends Partial<Omit<NewApiKey, 'scopes' | 'plan'>> {
  scopes?: Scope[];
  plan?: Plan;
}

export interface TestServer {
  url: string;
  app: App;
  database: Database;
  prisma: PrismaClient;
  createAccount(name?: string): Promise<string>;
  /** Creates an API key (in a new account unless accountId is given) and returns its only copy. */
  createKey(options?: CreateKeyOptions): Promise<{ key: string; keyId: string; accountId: string; signingSecret: string | null }>;
  /** A second instance on the same database, settings (but `overrides`) and secrets key, as another process would be; not yet listening, closed by the caller. */
  sibling(clock?: Clock, overrides?: Partial<Config>): App;
  close(): Promise<void>;
}

/** A test server and a second instance on its database, listening too, as another process would be; close() closes both. */
export async function startTwoInstances(options: TestServerOptions = {}): Promise<{ server: TestServer; second: App; close(): Promise<void> }> {
  const server = await startTestServer(options);
  const second = server.sibling();
  await second.listen(0, '127.0.0.1');
  return {
    server,
    second,
    async close() {
      await second.close();
      await server.close();
    },
  };
}

/** A real server on an ephemeral port over its own fresh database (PGlite, or PostgreSQL when TEST_DATABASE_URL is set). */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const config = {
    ...loadConfig({ LOG_LEVEL: process.env['TEST_LOG_LEVEL'] ?? 'silent', WEBHOOK_ALLOW_PRIVATE: '1', SECRETS_KEY: testSecretsKey, ...redisFromEnvironment() }),
    ...options.config,
  };
  const database = await openTestDatabase({
    seeded: options.seed ?? false,
    poolSize: config.DATABASE_POOL_SIZE,
    deadlines: config,
    // A request's statements, without the offers worker's polls, which come whenever they come.
    ...(options.onQuery ? { onQuery: withoutWorkerPolls(options.onQuery) } : {}),
    ...(options.postgresUrl ? { postgresUrl: options.postgresUrl } : {}),
  });
  const secrets = createSecretBox(config.SECRETS_KEY!);
  const app = createApp({
    config,
    database,
    secrets,
    logger: options.logStream ? pino({ level: config.LOG_LEVEL, ...logCorrelation() }, options.logStream) : pino({ level: config.LOG_LEVEL }),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const url = await app.listen(0, '127.0.0.1');
  const prisma = database.prisma;

  async function createAccount(name = 'Test account') {
    const account = await prisma.account.create({ data: { id: newId('account'), name } });
    return account.id;
  }

  return {
    url,
    app,
    database,
    prisma,
    createAccount,
    async createKey(keyOptions = {}) {
      const accountId = keyOptions.accountId ?? (await createAccount());
      const { record, key, signingSecret } = await createApiKey(prisma, secrets, {
        ...keyOptions,
        accountId,
        plan: keyOptions.plan ?? 'business',
        scopes: keyOptions.scopes ?? ['bookings:read', 'bookings:write', 'webhooks:manage', 'directory:read', 'analytics:read'],
      });
      return { key, keyId: record.id, accountId, signingSecret };
    },
    sibling(clock?: Clock, overrides: Partial<Config> = {}) {
      return createApp({ config: { ...config, ...overrides }, database, secrets, logger: pino({ level: 'silent' }), ...(clock ? { clock } : {}) });
    },
    async close() {
      await app.close();
      await database.close();
    },
  };
}

function withoutWorkerPolls(onQuery: StatementListener): StatementListener {
  return (sql, values) => {
    if (!sql.includes(offersWorkerPollComment)) onQuery(sql, values);
  };
}

/**
 * Tests share Redis only when TEST_REDIS_URL is set (the CI run against real services). Many test
 * files load it at once on a small runner, where an answer can take longer than the 100 ms a request
 * waits by default; the outage tests, which measure that deadline, set it themselves.
 */
function redisFromEnvironment(): { REDIS_URL?: string; REDIS_COMMAND_TIMEOUT_MS?: string } {
  const url = process.env['TEST_REDIS_URL'];
  if (!url) return {};
  // Each server is a deployment of its own: counters keyed by client address (failed
  // authentications) must not leak between test files that all connect from 127.0.0.1.
  const own = new URL(url);
  own.searchParams.set('keyPrefix', `test-${randomUUID()}:`);
  return { REDIS_URL: own.toString(), REDIS_COMMAND_TIMEOUT_MS: '1000' };
}
