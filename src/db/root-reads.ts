import type { Prisma } from '../generated/prisma/client.js';

/**
 * Prisma's findMany and findUnique for the reads the GraphQL root fields send. The plain path is
 * Prisma's client (prismaReads); the direct-reads fast path answers them with one SQL statement
 * through the driver where it translates them (src/db/sql-reads/), and with the same objects.
 */
export interface DirectReads {
  /** With a piggy-backed read, its value is read in the same statement when the rows are read past Prisma; `receive` gets undefined otherwise. */
  findMany<Args, Answer>(delegate: { findMany(args: Args): PromiseLike<Answer> }, model: Prisma.ModelName, args: Args, piggyback?: PiggybackedRead): Promise<Answer>;
  findUnique<Args, Answer>(delegate: { findUnique(args: Args): PromiseLike<Answer> }, model: Prisma.ModelName, args: Args): Promise<Answer>;
}

/**
 * Another read of the same request that rides along as one more column of a list's statement (a
 * statement costs more than the lookup in it). Its SQL must not refer to the rows: PostgreSQL then
 * evaluates it once. It comes back on one of the rows, so an empty list brings nothing.
 */
export interface PiggybackedRead {
  /** The column's SQL, a scalar subquery, taking its parameters through `parameter`. */
  column(parameter: (value: unknown) => string): string;
  /** Called once: with the column's value (as the driver parses it), or undefined when there was none. */
  receive(value: unknown): void;
  /**
   * Called instead of receive when the list's statement failed: the read fails with it rather than
   * being sent on its own, which would wait out the database's deadline a second time.
   */
  fail(error: unknown): void;
}

/** Root reads as the plain Pothos app sends them: through Prisma's client, no piggyback read along. */
export const prismaReads: DirectReads = {
  findMany: async (delegate, _model, args, piggyback) => {
    piggyback?.receive(undefined);
    return delegate.findMany(args);
  },
  findUnique: async (delegate, _model, args) => delegate.findUnique(args),
};
