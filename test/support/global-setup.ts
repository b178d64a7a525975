import { mkdtempSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openDatabase, type Database } from '../../src/db/connection.js';
import { applyMigrations } from '../../src/db/migrator.js';
import { seedDatabase } from '../../src/db/seed.js';
import { templateDatabaseName, withDatabase } from './snapshots.js';

async function prepare(database: Database, seeded: boolean): Promise<void> {
  await applyMigrations(database);
  if (seeded) await seedDatabase(database.prisma, { log: () => undefined });
}

/** PGlite dumps load in about a second, much faster than migrating and seeding in every test file. */
async function pgliteSnapshot(directory: string, seeded: boolean): Promise<string> {
  const database = await openDatabase({ kind: 'pglite', dataDir: undefined });
  try {
    await prepare(database, seeded);
    const dump = await database.pglite!.dumpDataDir('none');
    const path = join(directory, `${seeded ? 'seeded' : 'empty'}.tar`);
    writeFileSync(path, Buffer.from(await dump.arrayBuffer()));
    return path;
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
      await prepare(database, seeded);
    } finally {
      await database.close();
    }
    await admin.query(`alter database "${building}" rename to "${name}"`);
  } finally {
    await admin.end();
  }
}

export default async function setup(project: TestProject) {
  const directory = mkdtempSync(join(tmpdir(), 'hallowgate-test-'));
  const [empty, seeded] = await Promise.all([pgliteSnapshot(directory, false), pgliteSnapshot(directory, true)]);
  project.provide('pgliteSnapshots', { empty, seeded });
  const serverUrl = process.env['TEST_DATABASE_URL'] ?? process.env['TEST_POSTGRES_URL'];
  if (serverUrl) {
    await ensurePostgresTemplate(serverUrl, false);
    await ensurePostgresTemplate(serverUrl, true);
  }
  writeFileSync(join(directory, 'README'), 'hallowgate test snapshots; removed after the run\n');
  return async () => {
    await rm(directory, { recursive: true, force: true });
  };
}
