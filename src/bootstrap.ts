import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
import { createDemoAccount, ensureOperatorKey, type DemoAccount } from './access/provisioning.js';
import { ConfigurationError, type Config } from './config.js';
import { closedWithinGrace, openDatabase, parseDatabaseUrl, whileLocked, type Database, type DatabaseConfig, type OpenOptions } from './db/connection.js';
import { unappliedMigrations } from './db/migrations-folder.js';
import { isDatabaseEmpty, seedDatabase } from './db/seed.js';
import { loadStarter, starterPaths, type StarterKind } from './db/starter.js';
import type { PrismaClient } from './generated/prisma/client.js';
import { projectRoot } from './shared/project-root.js';
import { createSecretBox, isSealed, randomSecretsKey, sealedPrefix, secretsKeyBytes, type SecretBox } from './shared/secrets.js';

/** Where the embedded database keeps the demo credentials, so every start can show them again. */
const demoFile = './.data/demo.json';
/** Where the embedded database keeps the key its secrets are encrypted with, when SECRETS_KEY is not set. */
const secretsKeyFile = './.data/secrets.key';

/**
 * The key that encrypts secrets at rest: SECRETS_KEY when set. PostgreSQL needs it (instances
 * sharing a database must share the key); the embedded database makes one on first start and keeps
 * it beside its data; an in-memory database lives no longer than the process, and neither does its key.
 */
export async function loadSecretsKey(config: Config, databaseConfig: DatabaseConfig): Promise<Buffer> {
  if (config.SECRETS_KEY) return config.SECRETS_KEY;
  if (databaseConfig.kind === 'postgres') {
    throw new ConfigurationError('SECRETS_KEY is required with a PostgreSQL DATABASE_URL (32 random bytes in base64: openssl rand -base64 32)');
  }
  if (!databaseConfig.dataDir) return randomSecretsKey();
  const saved = await readFile(secretsKeyFile, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (saved !== null) {
    const key = Buffer.from(saved.trim(), 'base64');
    if (key.length !== secretsKeyBytes) throw new ConfigurationError(`${secretsKeyFile} does not hold a ${secretsKeyBytes}-byte key in base64`);
    return key;
  }
  const key = randomSecretsKey();
  await mkdir(dirname(secretsKeyFile), { recursive: true });
  await writeFile(secretsKeyFile, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}

const sealed = { startsWith: sealedPrefix };

/**
 * Checks that the key opens a secret already stored encrypted, if there is one: a wrong SECRETS_KEY
 * fails start-up (or a CLI command straight on the database), not every delivery or signed request
 * afterwards, and never writes a secret the servers cannot open.
 */
export async function checkSecretsKey(prisma: PrismaClient, secrets: SecretBox): Promise<void> {
  const sample =
    (await prisma.webhookEndpoint.findFirst({ where: { secret: sealed }, select: { secret: true } }))?.secret ??
    (await prisma.apiKey.findFirst({ where: { signingSecret: sealed }, select: { signingSecret: true } }))?.signingSecret;
  if (!sample) return;
  try {
    secrets.open(sample);
  } catch {
    throw new ConfigurationError('SECRETS_KEY does not decrypt the secrets stored in the database; it must be the key they were encrypted with');
  }
}

/**
 * Encrypts the secrets rows written before they were stored encrypted, once the key is checked
 * against the ones already encrypted (checkSecretsKey). Repeating it changes nothing.
 */
async function encryptStoredSecrets(prisma: PrismaClient, secrets: SecretBox): Promise<void> {
  await checkSecretsKey(prisma, secrets);
  // Only rows still in plain text are read, so a start costs two lookups once they are all encrypted.
  const endpoints = await prisma.webhookEndpoint.findMany({
    where: { OR: [{ NOT: { secret: sealed } }, { NOT: { previousSecret: sealed } }] },
    select: { id: true, secret: true, previousSecret: true },
  });
  const keys = await prisma.apiKey.findMany({ where: { NOT: [{ signingSecret: null }, { signingSecret: sealed }] }, select: { id: true, signingSecret: true } });
  // Each row changes only if it still holds what was read, so an instance of the previous version
  // rotating a secret meanwhile is not overwritten (updated_at is left alone: nothing the client sees changed).
  for (const { id, secret, previousSecret } of endpoints) {
    if (!isSealed(secret)) await prisma.$executeRaw`UPDATE webhook_endpoints SET secret = ${secrets.seal(secret)} WHERE id = ${id} AND secret = ${secret}`;
    if (previousSecret !== null && !isSealed(previousSecret)) {
      await prisma.$executeRaw`UPDATE webhook_endpoints SET previous_secret = ${secrets.seal(previousSecret)} WHERE id = ${id} AND previous_secret = ${previousSecret}`;
    }
  }
  for (const { id, signingSecret } of keys) {
    if (!isSealed(signingSecret!))
      await prisma.$executeRaw`UPDATE api_keys SET signing_secret = ${secrets.seal(signingSecret!)} WHERE id = ${id} AND signing_secret = ${signingSecret}`;
  }
}

/** Opens a database that answers; embedded PGlite is migrated too, so that it works with no setup. */
export async function openMigratedDatabase(databaseConfig: DatabaseConfig, options: OpenOptions): Promise<Database> {
  const database = await openDatabase(databaseConfig, options);
  try {
    await database.ping();
    const unapplied = await unappliedMigrations(database);
    if (unapplied.length > 0 && databaseConfig.kind === 'pglite') {
      // The schema engine (WASM) loads only when there is something to apply.
      const { applyMigrations } = await import('./db/migrator.js');
      await applyMigrations(database);
    } else if (unapplied.length > 0) {
      throw new ConfigurationError(
        `the PostgreSQL database has ${unapplied.length} migration(s) not applied (${unapplied.join(', ')}): run npm run db:migrate with this DATABASE_URL first`,
      );
    }
    return database;
  } catch (error) {
    await closedWithinGrace(database.close());
    throw error;
  }
}

function announceDemo(demo: Omit<DemoAccount, 'accountId'>, port: number, log: (line: string) => void) {
  log(`demo API key: ${demo.key}`);
  log(`widget demo: http://localhost:${port}/widget/demo?token=${demo.widgetToken}&city=Salem`);
}

/**
 * Opens the configured database and makes it ready to serve: embedded PGlite is migrated and,
 * when empty, seeded with the demo directory and a demo account; secrets stored in plain text are
 * encrypted; ADMIN_API_KEY is made to exist. It comes with the box of the key its secrets are under.
 */
export async function prepareDatabase(config: Config, log: (line: string) => void): Promise<Database & { secrets: SecretBox }> {
  const databaseConfig = parseDatabaseUrl(config.DATABASE_URL);
  const shouldSeed = config.SEED_ON_START === 'always' || (config.SEED_ON_START === 'auto' && databaseConfig.kind === 'pglite');
  // A new embedded database is made from the starter it will be: seeded, or only migrated.
  const starter: StarterKind = shouldSeed ? 'seeded' : 'migrated';
  // A key that needs no file (a setting, or a random one in memory) is checked before the database is.
  const keyFromSettings = databaseConfig.kind === 'pglite' && databaseConfig.dataDir ? undefined : await loadSecretsKey(config, databaseConfig);
  // Opened next: a second process on the embedded database must stop at its lock, having written nothing.
  const database = await openMigratedDatabase(databaseConfig, {
    poolSize: config.DATABASE_POOL_SIZE,
    deadlines: config,
    role: 'hallowgate server',
    whenInUse: 'stop it first, or run both on PostgreSQL (DATABASE_URL): the embedded database serves one process at a time',
    starter: () => loadStarter(starter),
  });
  try {
    const secrets = createSecretBox(keyFromSettings ?? (await loadSecretsKey(config, databaseConfig)));
    const onWait = () => log('waiting for another instance to finish starting up (it holds the start-up lock)');
    await whileLocked(
      databaseConfig,
      'hallowgate:bootstrap',
      async () => {
        await encryptStoredSecrets(database.prisma, secrets);
        const fromSeededStarter = shouldSeed && database.fromStarter;
        if (database.fromStarter) log(`database made from the ${starter} starter (${relative(projectRoot, starterPaths[starter])})`);
        if (fromSeededStarter || (shouldSeed && (await isDatabaseEmpty(database.prisma)))) {
          if (!fromSeededStarter) await seedDatabase(database.prisma, { log });
          const demo = await createDemoAccount(database.prisma, secrets, [`http://localhost:${config.PORT}`, `http://127.0.0.1:${config.PORT}`]);
          if (databaseConfig.kind === 'pglite' && databaseConfig.dataDir) {
            await mkdir(dirname(demoFile), { recursive: true });
            await writeFile(demoFile, `${JSON.stringify({ key: demo.key, widgetToken: demo.widgetToken })}\n`, { mode: 0o600 });
          }
          log(`demo account ${demo.accountId}`);
          announceDemo(demo, config.PORT, log);
        } else if (databaseConfig.kind === 'pglite' && databaseConfig.dataDir) {
          const saved = await readFile(demoFile, 'utf8').then(
            (text) => JSON.parse(text) as Omit<DemoAccount, 'accountId'>,
            () => null,
          );
          if (saved) announceDemo(saved, config.PORT, log);
        }
        if (config.ADMIN_API_KEY) {
          const keyId = await ensureOperatorKey(database.prisma, config.ADMIN_API_KEY);
          log(`operator key ${keyId} is ready (ADMIN_API_KEY)`);
        }
      },
      { deadlines: config, onWait },
    );
    return Object.assign(database, { secrets });
  } catch (error) {
    await closedWithinGrace(database.close());
    throw error;
  }
}
