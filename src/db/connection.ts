import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client.js';
import { ConfigError } from './config-error.js';
import { createDirectReads, type DirectReads } from './direct-reads.js';
import { lockEmbeddedDatabase } from './embedded-lock.js';

export { ConfigError };

export type DatabaseConfig = { kind: 'pglite'; dataDir: string | undefined; loadDataDir?: Blob } | { kind: 'postgres'; url: string };

export const defaultDataDir = './.data/pglite';

/** A read sent as a prepared statement: `name` identifies `text` on every connection (unnamed: parsed each time). */
export interface PreparedRead {
  name: string | undefined;
  text: string;
  values: unknown[];
  /** 'array': each row as the list of its columns' values, which costs the driver less than an object per row. */
  rowMode?: 'array';
}

export type ReadRows = <Row>(read: PreparedRead) => Promise<Row[]>;

/** DATABASE_URL: unset → embedded PGlite on disk, `pglite:memory`, or a PostgreSQL URL. */
export function parseDatabaseUrl(raw: string | undefined): DatabaseConfig {
  if (raw === undefined || raw === '') return { kind: 'pglite', dataDir: defaultDataDir };
  if (raw === 'pglite:memory') return { kind: 'pglite', dataDir: undefined };
  if (/^postgres(ql)?:\/\//.test(raw)) {
    try {
      const url = new URL(raw);
      if (!url.hostname) throw new Error('no host');
    } catch {
      throw new ConfigError(`DATABASE_URL is not a valid PostgreSQL URL: "${raw}"`);
    }
    return { kind: 'postgres', url: raw };
  }
  throw new ConfigError(`DATABASE_URL must be unset, "pglite:memory" or a postgres:// URL; got "${raw}"`);
}

export interface Database {
  config: DatabaseConfig;
  prisma: PrismaClient;
  /** The embedded engine, when the database is PGlite (migrations run on it in process). */
  pglite: PGlite | undefined;
  /** Resolves when the database answers; rejects with a ConfigError naming what is unreachable. */
  ping(): Promise<void>;
  /**
   * Runs a read that a hot path sends on every request straight through the driver, as a named
   * prepared statement on PostgreSQL: Prisma's work per query costs more than such a lookup.
   */
  readRows: ReadRows;
  /** Prisma's reads of the GraphQL root fields, run through readRows where they translate (src/db/direct-reads.ts). */
  directReads: DirectReads;
  /** The embedded database was new and made from the seeded starter (OpenOptions.starter). */
  fromStarter: boolean;
  close(): Promise<void>;
}

function describeTarget(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`;
}

/**
 * Opens the database DATABASE_URL names.
 * PGlite has a single connection: inside `$transaction(async tx => …)` use only `tx`, or the
 * transaction waits on itself until it times out.
 */
export interface OpenOptions {
  poolSize?: number;
  /** Called with every SQL statement Prisma sends (tests count statements with it). */
  onQuery?: (sql: string) => void;
  /** What this process is, named to whoever finds the embedded database in use (e.g. "hallowgate server"). */
  role?: string;
  /** A migrated and seeded database to make a new embedded one from (in memory, or a data directory without one yet). */
  starter?: () => Promise<Blob | undefined>;
}

function createClient(adapter: SqlDriverAdapterFactory, onQuery: OpenOptions['onQuery']): PrismaClient {
  if (!onQuery) return new PrismaClient({ adapter });
  const client = new PrismaClient({ adapter, log: [{ emit: 'event', level: 'query' }] });
  client.$on('query', (event) => onQuery(event.query));
  return client;
}

export async function openDatabase(config: DatabaseConfig, options: OpenOptions = {}): Promise<Database> {
  if (config.kind === 'pglite') {
    // One process at a time on a data directory, locked before PGlite reads or writes a byte of it.
    const lock = config.dataDir ? await lockEmbeddedDatabase(config.dataDir, options.role ?? 'hallowgate') : undefined;
    let pglite: PGlite;
    let adapter: SqlDriverAdapterFactory;
    let loadDataDir = config.loadDataDir;
    try {
      // Loaded only for the embedded database: a server on PostgreSQL never pays for the WASM build.
      const [{ PGlite }, { PrismaPGlite }] = await Promise.all([import('@electric-sql/pglite'), import('pglite-prisma-adapter')]);
      // Checked under the lock: only a directory no process has made a database in yet starts from the starter.
      if (!loadDataDir && options.starter && !(config.dataDir && existsSync(join(config.dataDir, 'PG_VERSION')))) loadDataDir = await options.starter();
      if (config.dataDir) await mkdir(config.dataDir, { recursive: true });
      pglite = await PGlite.create({
        ...(config.dataDir ? { dataDir: config.dataDir } : {}),
        ...(loadDataDir ? { loadDataDir } : {}),
      });
      adapter = new PrismaPGlite(pglite);
    } catch (error) {
      lock?.release();
      throw new ConfigError(`cannot open the embedded database in ${config.dataDir ?? 'memory'}: ${(error as Error).message}`);
    }
    const prisma = createClient(adapter, options.onQuery);
    const readRows: ReadRows = async <Row>({ text, values, rowMode }: PreparedRead) => {
      options.onQuery?.(text);
      return (await pglite.query<Row>(text, values, rowMode ? { rowMode } : undefined)).rows;
    };
    return {
      config,
      prisma,
      pglite,
      fromStarter: loadDataDir !== undefined && loadDataDir !== config.loadDataDir,
      readRows,
      directReads: createDirectReads(prisma, readRows),
      ping: async () => {
        await pglite.query('select 1');
      },
      close: async () => {
        await prisma.$disconnect();
        if (!pglite.closed) await pglite.close();
        lock?.release();
      },
    };
  }

  const pool = new pg.Pool({ connectionString: config.url, max: options.poolSize ?? 10, connectionTimeoutMillis: 5000 });
  // An idle client losing its server (a restart) must not crash the process; the pool reconnects.
  pool.on('error', () => undefined);
  const prisma = createClient(new PrismaPg(pool), options.onQuery);
  const readRows: ReadRows = async <Row>(read: PreparedRead) => {
    options.onQuery?.(read.text);
    return (await pool.query<Row & pg.QueryResultRow>(read)).rows;
  };
  return {
    config,
    prisma,
    pglite: undefined,
    fromStarter: false,
    readRows,
    directReads: createDirectReads(prisma, readRows),
    ping: async () => {
      try {
        await pool.query('select 1');
      } catch (error) {
        throw new ConfigError(`cannot reach PostgreSQL at ${describeTarget(config.url)}: ${(error as Error).message}`);
      }
    },
    close: async () => {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

/**
 * Runs `work` holding a PostgreSQL advisory lock named `name`, so instances starting together on an
 * empty database take turns instead of seeding it twice. PGlite has a single process: no lock needed.
 */
export async function whileLocked<T>(config: DatabaseConfig, name: string, work: () => Promise<T>): Promise<T> {
  if (config.kind !== 'postgres') return work();
  const client = new pg.Client({ connectionString: config.url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
    return await work();
  } finally {
    // Ending the session releases its advisory locks.
    await client.end().catch(() => undefined);
  }
}
