import { mkdtempSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/db/connection.js';
import { applyMigrations } from '../../src/db/migrator.js';
import { seedDatabase } from '../../src/db/seed.js';
import { templateDatabaseName, withDatabase, type PgliteSnapshots } from './snapshots.js';

/**
 * PGlite dumps, made from one database in turn (a new PGlite costs seconds of initdb): `pristine`
 * as created, `empty` migrated, `seeded` migrated and seeded. Loading one takes about a second,
 * much less than migrating and seeding in every test file.
 */
async function pgliteSnapshots(directory: string): Promise<PgliteSnapshots> {
  const database = await openDatabase({ kind: 'pglite', dataDir: undefined });
  const dumpTo = async (name: string) => {
    const path = join(directory, `${name}.tar`);
    writeFileSync(path, Buffer.from(await (await database.pglite!.dumpDataDir('none')).arrayBuffer()));
    return path;
  };
  try {
    const pristine = await dumpTo('pristine');
    await applyMigrations(database);
    const empty = await dumpTo('empty');
    await seedDatabase(database.prisma, { log: () => undefined });
    return { pristine, empty, seeded: await dumpTo('seeded') };
  } finally {
    await database.close();
  }
}

/** On PostgreSQL, each test file clones a template database that is migrated (and seeded) once per fixture version. */
async function ensurePostgresTemplate(serverUrl: string, seeded: boolean): Promise<void> {
  const name = templateDatabaseName(seeded);
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    const exists = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (exists.rowCount) return;
    const building = `${name}_building`;
    await admin.query(`drop database if exists "${building}" with (force)`);
    await admin.query(`create database "${building}"`);
    const database = await openDatabase({ kind: 'postgres', url: withDatabase(serverUrl, building) }, { poolSize: 4 });
    try {
      await applyMigrations(database);
      if (seeded) await seedDatabase(database.prisma, { log: () => undefined });
    } finally {
      await database.close();
    }
    await admin.query(`alter database "${building}" rename to "${name}"`);
  } finally {
    await admin.end();
  }
}

interface Prepared {
  snapshots: PgliteSnapshots;
  directory: string;
}

/**
 * Each of the suite's projects (vitest.config.ts) calls this, in the one main process: the first
 * call prepares, the others share what it made. Two schema engines at once in one process fail.
 */
const preparedKey = Symbol.for('hallowgate.test.prepared');
type WithPrepared = typeof globalThis & { [preparedKey]?: Promise<Prepared> };

async function prepare(): Promise<Prepared> {
  const directory = mkdtempSync(join(tmpdir(), 'hallowgate-test-'));
  writeFileSync(join(directory, 'README'), 'hallowgate test snapshots; removed after the run\n');
  const snapshots = await pgliteSnapshots(directory);
  const serverUrl = process.env['TEST_DATABASE_URL'] ?? process.env['TEST_POSTGRES_URL'];
  if (serverUrl) {
    await ensurePostgresTemplate(serverUrl, false);
    await ensurePostgresTemplate(serverUrl, true);
  }
  return { snapshots, directory };
}

export default async function setup(project: TestProject) {
  const shared = globalThis as WithPrepared;
  const { snapshots, directory } = await (shared[preparedKey] ??= prepare());
  project.provide('pgliteSnapshots', snapshots);
  return async () => {
    await rm(directory, { recursive: true, force: true });
  };
}
