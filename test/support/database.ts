import { readFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { inject } from 'vitest';
import { openDatabase, type Database, type DatabaseDeadlines, type StatementListener } from '../../src/db/connection.js';
import { randomToken } from '../../src/shared/ids.js';
import { templateDatabaseName, withDatabase } from './snapshots.js';

/**
 * A fresh database for one test file: an in-memory PGlite loaded from the migrated snapshot, or,
 * when TEST_DATABASE_URL is set, a new PostgreSQL database cloned from the template. Closing drops it.
 */
export interface TestDatabaseOptions {
  seeded: boolean;
  poolSize?: number;
  /** PostgreSQL's deadlines (the server's settings). */
  deadlines?: DatabaseDeadlines;
  onQuery?: StatementListener;
  /** A PostgreSQL server to use whatever the suite's default (tests that need PostgreSQL itself). */
  postgresUrl?: string;
}

export async function openTestDatabase(options: TestDatabaseOptions): Promise<Database> {
  const serverUrl = options.postgresUrl ?? process.env['TEST_DATABASE_URL'];
  if (!serverUrl) {
    const snapshots = inject('pgliteSnapshots');
    const dump = readFileSync(options.seeded ? snapshots.seeded : snapshots.empty);
    return openDatabase({ kind: 'pglite', dataDir: undefined, loadDataDir: new Blob([dump]) }, options.onQuery ? { onQuery: options.onQuery } : {});
  }
  const name = `hallowgate_test_${randomToken(10).toLowerCase()}`;
  await withAdmin(serverUrl, (admin) => admin.query(`create database "${name}" template "${templateDatabaseName(options.seeded)}"`));
  const database = await openDatabase(
    { kind: 'postgres', url: withDatabase(serverUrl, name) },
    { poolSize: options.poolSize ?? 10, ...(options.deadlines ? { deadlines: options.deadlines } : {}), ...(options.onQuery ? { onQuery: options.onQuery } : {}) },
  );
  return {
    ...database,
    async close() {
      await database.close();
      await withAdmin(serverUrl, (admin) => admin.query(`drop database if exists "${name}" with (force)`));
    },
  };
}

const pristineImage = () => new Blob([readFileSync(inject('pgliteSnapshots').pristine)]);

/** An in-memory PGlite as PGlite creates it, before any migration (for tests of the migrator), made in about a second instead of initdb's several. */
export function openPristinePglite(): Promise<Database> {
  return openDatabase({ kind: 'pglite', dataDir: undefined, loadDataDir: pristineImage() });
}

/** The same, bare: a scratch database for the migrator's diffs (ScratchDatabase). */
export function newPristinePglite(): Promise<PGlite> {
  return PGlite.create({ loadDataDir: pristineImage() });
}

async function withAdmin<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}
