import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createDemoAccount, ensureOperatorKey, type DemoAccount } from './access/provisioning.js';
import type { Config } from './config.js';
import { openDatabase, parseDatabaseUrl, whileLocked, type Database } from './db/connection.js';
import { applyMigrations } from './db/migrator.js';
import { isDatabaseEmpty, seedDatabase } from './db/seed.js';

/** Where the embedded database keeps the demo credentials, so every start can show them again. */
const demoFile = './.data/demo.json';

function announceDemo(demo: Omit<DemoAccount, 'accountId'>, port: number, log: (line: string) => void) {
  log(`demo API key: ${demo.key}`);
  log(`widget demo: http://localhost:${port}/widget/demo?token=${demo.widgetToken}&city=Salem`);
}

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
        const demo = await createDemoAccount(database.prisma, [`http://localhost:${config.PORT}`, `http://127.0.0.1:${config.PORT}`]);
        if (databaseConfig.kind === 'pglite' && databaseConfig.dataDir) {
          await mkdir(dirname(demoFile), { recursive: true });
          await writeFile(demoFile, `${JSON.stringify({ key: demo.key, widgetToken: demo.widgetToken })}\n`, { mode: 0o600 });
        }
        log(`demo account ${demo.accountId}`);
        announceDemo(demo, config.PORT, log);
      } else if (databaseConfig.kind === 'pglite' && databaseConfig.dataDir) {
        const saved = await readFile(demoFile, 'utf8').then((text) => JSON.parse(text) as Omit<DemoAccount, 'accountId'>, () => null);
        if (saved) announceDemo(saved, config.PORT, log);
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
