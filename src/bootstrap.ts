import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createDemoAccount, ensureOperatorKey } from './access/provisioning.js';
import type { Config } from './config.js';
import { openDatabase, parseDatabaseUrl, whileLocked, type Database } from './db/connection.js';
import { applyMigrations } from './db/migrator.js';
import { isDatabaseEmpty, seedDatabase } from './db/seed.js';

/** Where the embedded database keeps the demo key, so every start can show it again. */
const demoKeyFile = './.data/demo-api-key';

/**
 * Opens the configured database and makes it ready to serve: embedded PGlite is migrated and,
 * when empty, seeded with the demo directory and a demo account; ADMIN_API_KEY is made to exist.
 */
export async function prepareDatabase(config: Config, log: (line: string) => void): Promise<Database> {
  const databaseConfig = parseDatabaseUrl(config.DATABASE_URL);
  const database = await openDatabase(databaseConfig, { poolSize: config.DATABASE_POOL_SIZE });
  try {
    await database.ping();
    if (databaseConfig.kind === 'pglite') await applyMigrations(database);
    await whileLocked(databaseConfig, 'hallowgate:bootstrap', async () => {
      const shouldSeed =
        config.SEED_ON_START === 'always' || (config.SEED_ON_START === 'auto' && databaseConfig.kind === 'pglite');
      if (shouldSeed && (await isDatabaseEmpty(database.prisma))) {
        await seedDatabase(database.prisma, { log });
        const demo = await createDemoAccount(database.prisma);
        if (databaseConfig.kind === 'pglite' && databaseConfig.dataDir) {
          await mkdir(dirname(demoKeyFile), { recursive: true });
          await writeFile(demoKeyFile, `${demo.key}\n`, { mode: 0o600 });
        }
        log(`demo account ${demo.accountId}; its API key: ${demo.key}`);
      } else if (databaseConfig.kind === 'pglite' && databaseConfig.dataDir) {
        const key = await readFile(demoKeyFile, 'utf8').catch(() => null);
        if (key) log(`demo API key: ${key.trim()}`);
      }
      if (config.ADMIN_API_KEY) {
        const keyId = await ensureOperatorKey(database.prisma, config.ADMIN_API_KEY);
        log(`operator key ${keyId} is ready (ADMIN_API_KEY)`);
      }
    });
    return database;
  } catch (error) {
    await database.close().catch(() => undefined);
    throw error;
  }
}
