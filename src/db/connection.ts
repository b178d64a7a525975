import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import { deadlineDefaults, type Config } from '../config.js';
import { fastPaths } from '../fast-paths.js';
import { PrismaClient } from '../generated/prisma/client.js';
import { ConfigError, DatabaseUnreachableError } from './config-error.js';
import { prismaReads, type DirectReads } from './root-reads.js';
import { createSqlReads } from './sql-reads/reads.js';
import { lockEmbeddedDatabase } from './embedded-lock.js';
import { recordStatement, tracedReads } from '../tracing/database.js';
import { activeTracer } from '../tracing/tracing.js';
import { settleWithin } from '../shared/deadline.js';
import { databaseUnavailable } from '../shared/errors.js';

export { ConfigError };

import type { DatabaseConfig } from './database-url.js';

export { defaultDataDir, parseDatabaseUrl, type DatabaseConfig } from './database-url.js';

/** A read sent as a prepared statement: `name` identifies `text` on every connection (unnamed: parsed each time). */
export interface PreparedRead {
  name: string | undefined;
  text: string;
  values: unknown[];
  /** 'array': each row as the list of its columns' values, which costs the driver less than an object per row. */
  rowMode?: 'array';
}

export type ReadRows = <Row>(read: PreparedRead) => Promise<Row[]>;

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
  /**
   * Prisma's reads of the GraphQL root fields, run through readRows where they translate
   * (src/db/sql-reads/); Prisma's client itself when the direct-reads fast path is off.
   */
  directReads: DirectReads;
  /** The embedded database was new and made from a starter (OpenOptions.starter). */
  fromStarter: boolean;
  close(): Promise<void>;
}

function rootReads(prisma: PrismaClient, readRows: ReadRows): DirectReads {
  return fastPaths['direct-reads'] ? createSqlReads(prisma, readRows) : prismaReads;
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
  /** PostgreSQL's deadlines (deadlineDefaults unless given); a statement deadline of 0 sets none (migrations). */
  deadlines?: DatabaseDeadlines;
  /** Called with every SQL statement sent (tests count statements with it); with tracing on, each is a span too. */
  onQuery?: StatementListener;
  /** What this process is, named to whoever finds the embedded database in use (e.g. "hallowgate server"). */
  role?: string;
  /** What this process's user can do when another holds the embedded database (the CLI can go through the server). */
  whenInUse?: string;
  /** A dumped database (src/db/starter.ts) to make a new embedded one from (in memory, or a data directory without one yet), instead of creating one. */
  starter?: () => Promise<Blob | undefined>;
}

/** Hears a statement: its text, and its values when it is a direct read (Prisma's statements come without). */
export type StatementListener = (sql: string, values?: readonly unknown[]) => void;

export type DatabaseDeadlines = Pick<Config, 'DATABASE_CONNECT_TIMEOUT_MS' | 'DATABASE_STATEMENT_TIMEOUT_MS' | 'DATABASE_TRANSACTION_TIMEOUT_MS'>;

/** How long after the statement deadline the client stops waiting for a server that did not even cancel the statement (a hung server). */
export const unansweredGraceMs = 1000;

/** How long the client waits for a statement, at most: its deadline, then the grace for a server that did not cancel it. */
export const statementGiveUpMs = (statementDeadlineMs: number) => statementDeadlineMs + unansweredGraceMs;

type TransactionOptions = { maxWait: number; timeout: number };

function createClient(adapter: SqlDriverAdapterFactory, onQuery: OpenOptions['onQuery'], transactionOptions?: TransactionOptions): PrismaClient {
  const options = { adapter, ...(transactionOptions ? { transactionOptions } : {}) };
  const traced = activeTracer() !== undefined;
  if (!onQuery && !traced) return new PrismaClient(options);
  const client = new PrismaClient({ ...options, log: [{ emit: 'event', level: 'query' }] });
  client.$on('query', (event) => {
    onQuery?.(event.query);
    if (traced) recordStatement(event.query, event.timestamp, event.duration);
  });
  return client;
}

/**
 * The pool's connections: a query that outlived the client's deadline (`query_timeout`) leaves its
 * connection waiting for an answer that may never come, so the connection ends itself (pg destroys
 * its socket): whoever holds it fails at once and the pool discards it instead of lending it out
 * again. Queries the pool runs itself already are; this covers the connections Prisma holds for
 * transactions. Given to the pool as its `Client`, the option pg-pool declares for the connections
 * it makes.
 */
class ClientEndingUnansweredQueries extends pg.Client {
  // pg's query has a dozen overloads (`never` stands for each one's result): every form is passed through as called, the promise form (Prisma's) watched.
  override query(...args: unknown[]): never {
    const result: unknown = Reflect.apply(super.query, this, args);
    if (result instanceof Promise) {
      result.catch((error: unknown) => {
        if (error instanceof Error && error.message === 'Query read timeout') void this.end().catch(() => undefined);
      });
    }
    return result as never;
  }
}

export async function openDatabase(config: DatabaseConfig, options: OpenOptions = {}): Promise<Database> {
  if (config.kind === 'pglite') {
    // One process at a time on a data directory, locked before PGlite reads or writes a byte of it.
    const lock = config.dataDir ? await lockEmbeddedDatabase(config.dataDir, options.role ?? 'hallowgate', options.whenInUse) : undefined;
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
    const readRows = tracedReads(async <Row>({ text, values, rowMode }: PreparedRead) => {
      options.onQuery?.(text, values);
      return (await pglite.query<Row>(text, values, rowMode ? { rowMode } : undefined)).rows;
    });
    return {
      config,
      prisma,
      pglite,
      fromStarter: loadDataDir !== undefined && loadDataDir !== config.loadDataDir,
      readRows,
      directReads: rootReads(prisma, readRows),
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

  const deadlines = options.deadlines ?? deadlineDefaults;
  const statementMs = deadlines.DATABASE_STATEMENT_TIMEOUT_MS;
  const pool = new pg.Pool({
    Client: ClientEndingUnansweredQueries,
    connectionString: config.url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: deadlines.DATABASE_CONNECT_TIMEOUT_MS,
    // The server cancels a slow statement; the client gives up on a server that does not answer at all.
    ...(statementMs > 0 ? { statement_timeout: statementMs, query_timeout: statementGiveUpMs(statementMs) } : {}),
    idle_in_transaction_session_timeout: deadlines.DATABASE_TRANSACTION_TIMEOUT_MS,
  });
  // An idle client losing its server (a restart) must not crash the process; the pool reconnects.
  pool.on('error', () => undefined);
  const prisma = createClient(new PrismaPg(pool), options.onQuery, {
    maxWait: deadlines.DATABASE_CONNECT_TIMEOUT_MS,
    timeout: deadlines.DATABASE_TRANSACTION_TIMEOUT_MS,
  });
  const readRows = tracedReads(async <Row>(read: PreparedRead) => {
    options.onQuery?.(read.text, read.values);
    return (await pool.query<Row & pg.QueryResultRow>(read)).rows;
  });
  return {
    config,
    prisma,
    pglite: undefined,
    fromStarter: false,
    readRows,
    directReads: rootReads(prisma, readRows),
    ping: async () => {
      try {
        await pool.query('select 1');
      } catch (error) {
        throw new DatabaseUnreachableError(`cannot reach PostgreSQL at ${describeTarget(config.url)}: ${(error as Error).message}`);
      }
    },
    close: async () => {
      await prisma.$disconnect();
      // A connection to a server that stopped answering never closes: the pool is not waited for past the grace.
      await closedWithinGrace(pool.end());
    },
  };
}

/**
 * Waits for a connection's or a pool's end, failed or not, at most the grace: a server that stopped
 * answering never sends the close it waits for, and the process that gave up on it is about to exit.
 */
export function closedWithinGrace(closing: Promise<unknown>): Promise<void> {
  return settleWithin(
    closing.then(
      () => undefined,
      () => undefined,
    ),
    unansweredGraceMs,
    () => undefined,
  );
}

/** How long an instance waits for another's start-up work (encrypting secrets, seeding the demo) before it gives up. */
export const startupLockWaitMs = 120_000;
const lockPollMs = 250;

export interface LockOptions {
  deadlines?: Pick<DatabaseDeadlines, 'DATABASE_CONNECT_TIMEOUT_MS' | 'DATABASE_STATEMENT_TIMEOUT_MS'>;
  /** How long to wait while another session holds the lock (startupLockWaitMs unless given). */
  maxWaitMs?: number;
  /** Told once, when the lock is found held by another session. */
  onWait?: () => void;
}

/**
 * Runs `work` holding a PostgreSQL advisory lock named `name`, so instances starting together on an
 * empty database take turns instead of seeding it twice. PGlite has a single process: no lock needed.
 * Every step has a deadline: connecting, each attempt to take the lock (an instance that holds it may
 * be seeding, so it is tried again until maxWaitMs), and ending the session, which a server that
 * stopped answering would otherwise hold open for ever.
 */
export async function whileLocked<T>(config: DatabaseConfig, name: string, work: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  if (config.kind !== 'postgres') return work();
  const deadlines = options.deadlines ?? deadlineDefaults;
  const client = new pg.Client({
    connectionString: config.url,
    connectionTimeoutMillis: deadlines.DATABASE_CONNECT_TIMEOUT_MS,
    query_timeout: statementGiveUpMs(deadlines.DATABASE_STATEMENT_TIMEOUT_MS),
  });
  client.on('error', () => undefined);
  await client.connect().catch((error: unknown) => {
    throw startupFailure(config, deadlines, error);
  });
  let unanswered = false;
  try {
    const maxWaitMs = options.maxWaitMs ?? startupLockWaitMs;
    const startedAt = performance.now();
    let toldOfWait = false;
    while (!(await client.query<{ taken: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS taken', [name])).rows[0]?.taken) {
      if (performance.now() - startedAt >= maxWaitMs) {
        throw new ConfigError(`another instance has held the start-up lock "${name}" for ${Math.round(maxWaitMs / 1000)} s; if none is starting, one may be stuck`);
      }
      if (!toldOfWait) options.onWait?.();
      toldOfWait = true;
      await new Promise((resolve) => setTimeout(resolve, lockPollMs));
    }
    return await work();
  } catch (error) {
    unanswered = databaseUnavailable(error) !== undefined;
    throw startupFailure(config, deadlines, error);
  } finally {
    // Ending the session releases its advisory locks (or the connection's end does, with the process).
    // A server that stopped answering would not answer the end either: it is not waited for.
    const ended = client.end();
    if (!unanswered) await closedWithinGrace(ended);
    else ended.catch(() => undefined);
  }
}

/**
 * What start-up reports of a failure: the driver's and Prisma's words for a PostgreSQL that stopped
 * answering ("Query read timeout", "Connection terminated unexpectedly") name neither PostgreSQL nor
 * the deadline, so such a failure is said again with both; any other is reported as it is.
 */
function startupFailure(config: DatabaseConfig, deadlines: Pick<DatabaseDeadlines, 'DATABASE_STATEMENT_TIMEOUT_MS'>, error: unknown): unknown {
  if (config.kind !== 'postgres' || error instanceof ConfigError || !(error instanceof Error) || !databaseUnavailable(error)) return error;
  const why = /query read timeout/i.test(error.message) ? `no answer within ${statementGiveUpMs(deadlines.DATABASE_STATEMENT_TIMEOUT_MS) / 1000} s` : error.message;
  return new DatabaseUnreachableError(`PostgreSQL at ${describeTarget(config.url)} stopped answering during start-up (${why}); check that it is up and reachable`, {
    cause: error,
  });
}
