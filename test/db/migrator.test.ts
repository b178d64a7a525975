import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/connection.js';
import { defaultMigrationsDir, unappliedMigrations } from '../../src/db/migrations-folder.js';
import { applyMigrations, createMigration, pendingSchemaChanges } from '../../src/db/migrator.js';
import { randomToken } from '../../src/shared/ids.js';
import { newPristinePglite, openPristinePglite } from '../support/database.js';
import { requireService } from '../support/services.js';
import { withDatabase } from '../support/snapshots.js';

const postgresUrl = await requireService('postgres');
const shipped = (await readdir(defaultMigrationsDir, { withFileTypes: true }))
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A copy of prisma/migrations with `extra` migrations after the shipped ones. */
async function migrationsWith(extra: Record<string, string>): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'hallowgate-migrations-'));
  cleanups.push(() => rm(directory, { recursive: true, force: true }));
  await cp(defaultMigrationsDir, directory, { recursive: true });
  for (const [name, sql] of Object.entries(extra)) {
    await mkdir(join(directory, name));
    await writeFile(join(directory, name, 'migration.sql'), sql);
  }
  return directory;
}

async function emptyPostgres(serverUrl: string): Promise<Database> {
  const name = `hallowgate_migrator_${randomToken(10).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  await admin.end();
  const database = await openDatabase({ kind: 'postgres', url: withDatabase(serverUrl, name) }, { poolSize: 2 });
  cleanups.push(async () => {
    await database.close();
    const dropper = new pg.Client({ connectionString: serverUrl });
    await dropper.connect();
    await dropper.query(`drop database if exists "${name}" with (force)`);
    await dropper.end();
  });
  return database;
}

async function emptyPglite(): Promise<Database> {
  const database = await openPristinePglite();
  cleanups.push(() => database.close());
  return database;
}

interface MigrationRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  applied_steps_count: number;
}

const recorded = (database: Database) =>
  database.prisma.$queryRawUnsafe<MigrationRow[]>(
    'SELECT migration_name, checksum, finished_at, rolled_back_at, applied_steps_count FROM _prisma_migrations ORDER BY migration_name',
  );

const tableExists = async (database: Database, table: string) =>
  (await database.prisma.$queryRawUnsafe<{ name: string | null }[]>(`SELECT to_regclass('public.${table}')::text AS name`))[0]!.name !== null;

const targets: [string, () => Promise<Database>][] = [['embedded PGlite', emptyPglite]];
if (postgresUrl) targets.push(['PostgreSQL', () => emptyPostgres(postgresUrl)]);

describe.each(targets)('applyMigrations on %s', (_name, emptyDatabase) => {
  it('applies every migration once and records each as `prisma migrate deploy` does', async () => {
    const database = await emptyDatabase();
    expect(await applyMigrations(database)).toEqual(shipped);
    const rows = await recorded(database);
    expect(rows.map((row) => row.migration_name)).toEqual(shipped);
    for (const row of rows) {
      const sql = await readFile(join(defaultMigrationsDir, row.migration_name, 'migration.sql'));
      expect(row.checksum).toBe(createHash('sha256').update(sql).digest('hex'));
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.rolled_back_at).toBeNull();
      expect(row.applied_steps_count).toBe(1);
    }
    expect(await applyMigrations(database)).toEqual([]);
  });

  it('tells what is unapplied without the schema engine: everything on an empty database, nothing once applied, a migration added or edited since', async () => {
    const database = await emptyDatabase();
    expect(await unappliedMigrations(database)).toEqual(shipped);
    await applyMigrations(database);
    expect(await unappliedMigrations(database)).toEqual([]);
    const migrations = await migrationsWith({ '29990101000000_later': 'CREATE TABLE "later" ("id" TEXT PRIMARY KEY);' });
    expect(await unappliedMigrations(database, migrations)).toEqual(['29990101000000_later']);
    // A shipped migration whose file no longer matches the checksum it was applied with.
    const first = shipped[0]!;
    await writeFile(join(migrations, first, 'migration.sql'), `${await readFile(join(migrations, first, 'migration.sql'), 'utf8')}\n-- edited\n`);
    expect(await unappliedMigrations(database, migrations)).toEqual([first, '29990101000000_later']);
  });

  it('runs a script whole: semicolons in function bodies, string literals and comments are not statement ends', async () => {
    const database = await emptyDatabase();
    const migrations = await migrationsWith({
      '29990101000000_semicolons': [
        '-- A comment; with a semicolon',
        'CREATE TABLE "notes" ("body" TEXT NOT NULL DEFAULT \'a; b\');',
        'CREATE FUNCTION "note_count"() RETURNS bigint LANGUAGE plpgsql AS $$',
        'DECLARE total bigint;',
        'BEGIN SELECT count(*) INTO total FROM "notes"; RETURN total; END',
        '$$;',
        'INSERT INTO "notes" DEFAULT VALUES;',
      ].join('\n'),
    });
    expect(await applyMigrations(database, migrations)).toContain('29990101000000_semicolons');
    const [row] = await database.prisma.$queryRawUnsafe<{ count: bigint; body: string }[]>('SELECT "note_count"() AS count, (SELECT "body" FROM "notes") AS body');
    expect(row).toEqual({ count: 1n, body: 'a; b' });
  });

  it('never records a failing migration as applied, and leaves none of its statements behind', async () => {
    const database = await emptyDatabase();
    const migrations = await migrationsWith({
      '29990101000000_broken': 'CREATE TABLE "half_done" ("id" INTEGER);\nSELECT 1 / 0;\n',
    });
    await expect(applyMigrations(database, migrations)).rejects.toThrow(/division by zero/);
    const rows = await recorded(database);
    expect(rows.filter((row) => row.finished_at !== null).map((row) => row.migration_name)).toEqual(shipped);
    expect(await tableExists(database, 'half_done')).toBe(false);
  });
});

describe('migrations and the schema', () => {
  it('finds no drift between prisma/schema.prisma and prisma/migrations', async () => {
    expect(await pendingSchemaChanges()).toBe('');
  });

  // Four schema-engine diffs over every shipped migration, each in a scratch PGlite loaded from the
  // pristine snapshot rather than made by initdb (the drift check above covers the default).
  it('writes the missing migration in Prisma’s layout when the folder lags the schema', { timeout: 180_000 }, async () => {
    const directory = await mkdtemp(join(tmpdir(), 'hallowgate-lagging-'));
    cleanups.push(() => rm(directory, { recursive: true, force: true }));
    for (const name of shipped.slice(0, -1)) await cp(join(defaultMigrationsDir, name), join(directory, name), { recursive: true });

    const missing = await pendingSchemaChanges(directory, newPristinePglite);
    expect(missing).not.toBe('');
    const written = await createMigration('catch_up', directory, new Date('2099-01-02T03:04:05Z'), newPristinePglite);
    expect(written).toBe(join(directory, '20990102030405_catch_up'));
    expect(await readFile(join(written!, 'migration.sql'), 'utf8')).toBe(missing);
    expect(await readFile(join(directory, 'migration_lock.toml'), 'utf8')).toContain('provider = "postgresql"');
    expect(await pendingSchemaChanges(directory, newPristinePglite)).toBe('');
    expect(await createMigration('nothing_to_do', directory, new Date(), newPristinePglite)).toBeNull();
  });

  it('refuses a migration name that is not snake_case', async () => {
    await expect(createMigration('Add Things!')).rejects.toThrow(/a-z, 0-9 and _/);
  });
});
