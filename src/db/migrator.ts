import { createRequire } from 'node:module';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import { bindMigrationAwareSqlAdapterFactory, type SqlDriverAdapter, type SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type { SchemaEngine } from '@prisma/schema-engine-wasm';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { projectPath } from '../shared/project-root.js';
import type { Database } from './connection.js';
import { defaultMigrationsDir, lockfileContent, readMigrations } from './migrations-folder.js';

export const schemaPath = projectPath('prisma/schema.prisma');
const noFilters = { externalTables: [], externalEnums: [] };

type EngineModule = typeof import('@prisma/schema-engine-wasm');
let engineModule: Promise<EngineModule> | undefined;

/** Node 20 cannot import .wasm, so the engine's glue is instantiated by hand. */
function loadEngineModule(): Promise<EngineModule> {
  engineModule ??= (async () => {
    const require = createRequire(import.meta.url);
    const gluePath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
    const glue = (await import(gluePath)) as EngineModule & { __wbg_set_wasm(exports: unknown): void };
    const bytes = await readFile(join(dirname(gluePath), 'schema_engine_bg.wasm'));
    const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), { './schema_engine_bg.js': glue as never });
    glue.__wbg_set_wasm(instance.exports);
    (instance.exports as { __wbindgen_start(): void }).__wbindgen_start();
    return glue;
  })();
  return engineModule;
}

/**
 * Runs each migration script whole, in one round trip (an implicit transaction, so a failing
 * migration leaves nothing behind). The adapters do worse: pglite-prisma-adapter 0.7.2 neither waits
 * for the script nor reports its failure, and @prisma/adapter-pg splits the script at every
 * semicolon, cutting apart function bodies, string literals and comments.
 */
function wholeScripts(adapter: SqlDriverAdapter, runScript: (script: string) => Promise<unknown>, scriptForBareExecuteRaw: boolean): SqlDriverAdapter {
  const executeScript = async (script: string) => {
    await runScript(script);
  };
  return Object.assign(Object.create(adapter) as SqlDriverAdapter, {
    executeScript,
    // The engine sends whole migration files through argument-less executeRaw on the shadow database.
    ...(scriptForBareExecuteRaw
      ? {
          executeRaw: async (query: Parameters<SqlDriverAdapter['executeRaw']>[0]) => {
            if (query.args.length > 0) return adapter.executeRaw(query);
            await executeScript(query.sql);
            return 0;
          },
        }
      : {}),
  });
}

/** A migration-aware adapter factory whose shadow database is a throw-away in-memory PGlite. */
function migrationAdapterFactory(
  target: SqlMigrationAwareDriverAdapterFactory['connect'],
  runTargetScript: (script: string) => Promise<unknown>,
): SqlMigrationAwareDriverAdapterFactory {
  const opened: PGlite[] = [];
  return {
    provider: 'postgres',
    adapterName: 'hallowgate-migrations',
    connect: async () => {
      return wholeScripts(await target(), runTargetScript, false);
    },
    connectToShadowDb: async () => {
      const shadow = await PGlite.create();
      opened.push(shadow);
      const adapter = await new PrismaPGlite(shadow).connect();
      return Object.assign(
        wholeScripts(adapter, (script) => shadow.exec(script), true),
        {
          dispose: async () => {
            if (!shadow.closed) await shadow.close();
          },
        },
      );
    },
  };
}

interface EngineSession {
  engine: SchemaEngine;
  /** Turns the engine's "External error id#N" into the JS error behind it. */
  explain(error: unknown): Error;
  close(): Promise<void>;
}

async function startEngine(factory: SqlMigrationAwareDriverAdapterFactory): Promise<EngineSession> {
  const { SchemaEngine } = await loadEngineModule();
  const bound = bindMigrationAwareSqlAdapterFactory(factory);
  const schema = await readFile(schemaPath, 'utf8');
  const engine = await SchemaEngine.new({ datamodels: [[schemaPath, schema]] }, () => undefined, bound);
  return {
    engine,
    explain(error) {
      const message = error instanceof Error ? error.message : String(error);
      const id = /External error id#(\d+)/.exec(message)?.[1];
      const external = id ? (bound.errorRegistry.consumeError(Number(id)) as { error?: unknown } | undefined) : undefined;
      const cause = external?.error as { message?: string; cause?: { message?: string } } | undefined;
      const detail = cause?.cause?.message ?? cause?.message;
      return new Error(detail ? `${message}: ${detail}` : message);
    },
    async close() {
      engine.free();
    },
  };
}

async function withEngine<T>(factory: SqlMigrationAwareDriverAdapterFactory, work: (session: EngineSession) => Promise<T>): Promise<T> {
  const session = await startEngine(factory);
  try {
    return await work(session);
  } catch (error) {
    throw session.explain(error);
  } finally {
    await session.close();
  }
}

/** PrismaPg gets host, port and database separately: given a URL, its shadow pool targets the main database. */
function postgresFactory(url: string) {
  const parsed = new URL(url);
  const pool = new pg.Pool({
    host: parsed.hostname,
    port: Number(parsed.port || 5432),
    user: decodeURIComponent(parsed.username || 'postgres'),
    password: decodeURIComponent(parsed.password),
    database: parsed.pathname.slice(1) || 'postgres',
    max: 2,
  });
  pool.on('error', () => undefined);
  // A query without parameters goes over the simple protocol, which takes many statements at once.
  return { connect: () => new PrismaPg(pool).connect(), runScript: (script: string) => pool.query(script), end: () => pool.end() };
}

/**
 * Applies pending migrations, writing `_prisma_migrations` exactly as `prisma migrate deploy` does.
 * A migration that fails raises and is not recorded as applied.
 */
export async function applyMigrations(database: Pick<Database, 'config' | 'pglite' | 'prisma'>, migrationsDir = defaultMigrationsDir): Promise<string[]> {
  const migrationsList = await readMigrations(migrationsDir);
  if (database.pglite) {
    const pglite = database.pglite;
    const factory = migrationAdapterFactory(
      () => new PrismaPGlite(pglite).connect(),
      (script) => pglite.exec(script),
    );
    const result = await withEngine(factory, ({ engine }) => engine.applyMigrations({ migrationsList, filters: noFilters }));
    return result.appliedMigrationNames;
  }
  if (database.config.kind !== 'postgres') throw new Error('unreachable: PGlite without an engine');
  const postgres = postgresFactory(database.config.url);
  try {
    const factory = migrationAdapterFactory(postgres.connect, postgres.runScript);
    const result = await withEngine(factory, ({ engine }) => engine.applyMigrations({ migrationsList, filters: noFilters }));
    return result.appliedMigrationNames;
  } finally {
    await postgres.end();
  }
}

/** A new, empty PGlite for the diff to replay the migrations in. */
export type ScratchDatabase = () => Promise<PGlite>;

/**
 * SQL that would bring the migrations folder up to prisma/schema.prisma; empty when they agree. The
 * migrations are replayed in a `scratch` database, a new PGlite unless one is given.
 */
export async function pendingSchemaChanges(migrationsDir = defaultMigrationsDir, newScratch: ScratchDatabase = () => PGlite.create()): Promise<string> {
  const migrationsList = await readMigrations(migrationsDir);
  const scratch = await newScratch();
  try {
    const factory = migrationAdapterFactory(
      () => new PrismaPGlite(scratch).connect(),
      (script) => scratch.exec(script),
    );
    const schema = await readFile(schemaPath, 'utf8');
    const result = await withEngine(factory, ({ engine }) =>
      engine.diff({
        from: { tag: 'migrations', ...migrationsList },
        to: { tag: 'schemaDatamodel', files: [{ path: schemaPath, content: schema }] },
        script: true,
        exitCode: true,
        filters: noFilters,
      }),
    );
    return result.exitCode === 2 ? (result.stdout ?? '') : '';
  } finally {
    await scratch.close();
  }
}

function timestamp(now: Date): string {
  return now.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/** Writes prisma/migrations/<timestamp>_<name>/migration.sql for the schema changes; null when there are none. */
export async function createMigration(name: string, migrationsDir = defaultMigrationsDir, now = new Date(), newScratch?: ScratchDatabase): Promise<string | null> {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error('A migration name uses only a-z, 0-9 and _.');
  const sql = await pendingSchemaChanges(migrationsDir, newScratch);
  if (!sql.trim()) return null;
  const directory = join(migrationsDir, `${timestamp(now)}_${name}`);
  await mkdir(directory, { recursive: true });
  await writeFile(join(directory, 'migration.sql'), sql);
  await writeFile(join(migrationsDir, 'migration_lock.toml'), lockfileContent);
  return directory;
}
