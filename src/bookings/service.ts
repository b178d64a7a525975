import type { Booking } from '../generated/prisma/client.js';
import type { PiggybackedRead } from '../db/root-reads.js';
import type { Context } from '../graphql/context.js';
import { AppError, notFound } from '../shared/errors.js';

/**
 * What a request reads of its account's bookings: the booking it names, and the account's log
 * position that dates and versions its booking answers. The writes are in changes.ts.
 */

/** The caller's account; unauthenticated without one. */
export function accountOf(context: Context): string {
  if (!context.principal) throw new AppError('unauthenticated', 'Authenticate first.');
  return context.principal.accountId;
}

/** A booking of the caller's account; another account's booking is "not found", never "forbidden". */
export async function findOwnBooking(context: Context, id: string): Promise<Booking> {
  const booking = await context.prisma.booking.findFirst({ where: { id, accountId: accountOf(context) } });
  if (!booking) throw notFound('booking', id);
  return booking;
}

/** The account's log position, one row whatever the log holds; `account` is the account id's parameter. */
const accountLogPositionSql = (account: string) =>
  `SELECT newest.seq::text AS seq, (extract(epoch FROM newest.created_at) * 1000)::bigint::text AS changed_ms, (SELECT version::text FROM directory_version WHERE id = 1) AS catalogue
         FROM (SELECT 1) AS one
         LEFT JOIN LATERAL (SELECT seq, created_at FROM booking_events WHERE account_id = ${account} ORDER BY seq DESC LIMIT 1) AS newest ON true`;

const accountLogPositionRead = { name: 'hallowgate_account_log_position', text: accountLogPositionSql('$1') };

interface AccountLogPosition {
  seq: string | null;
  /** Milliseconds since the epoch of the newest event's created_at (a UTC timestamp without zone). */
  changed_ms: string | null;
  catalogue: string | null;
}

/** Each request reads its account's log position once: the data version and Last-Modified share it. */
const logPositions = new WeakMap<Context, Promise<AccountLogPosition | undefined>>();

const readAccountLogPosition = (context: Context) =>
  context.services.readRows<AccountLogPosition>({ ...accountLogPositionRead, values: [context.principal!.accountId] }).then(([row]) => row);

function accountLogPosition(context: Context): Promise<AccountLogPosition | undefined> {
  let position = logPositions.get(context);
  if (!position) {
    position = readAccountLogPosition(context);
    logPositions.set(context, position);
  }
  return position;
}

/**
 * The account's log position read along with a list of its bookings (Last-Modified of a REST list),
 * when nothing on the request has asked for it yet: one statement instead of two. Read on its own
 * when the list brings none (no rows, or a read that went to Prisma).
 */
export function accountLogPositionPiggyback(context: Context): PiggybackedRead | undefined {
  if (!context.principal || logPositions.has(context)) return undefined;
  const accountId = context.principal.accountId;
  let settle!: (row: AccountLogPosition | undefined) => void;
  let fail!: (error: unknown) => void;
  const position = new Promise<AccountLogPosition | undefined>((resolve, reject) => ((settle = resolve), (fail = reject))).then((row) => row ?? readAccountLogPosition(context));
  // Whoever asks for it sees a failed read; nobody asking must not make it an unhandled rejection.
  position.catch(() => undefined);
  logPositions.set(context, position);
  return {
    column: (parameter) => `(SELECT row_to_json(position) FROM (${accountLogPositionSql(parameter(accountId))}) AS position)`,
    receive: (value) => settle(value as AccountLogPosition | undefined),
    fail: (error) => fail(error),
  };
}

/**
 * Changes whenever any booking answer of the caller's account could change: every change appends to
 * the account's event log in its transaction, and the log commits in `seq` order within an account
 * (lockAccountLog), so the newest position stands for every change before it. One index step,
 * plus the catalogue version, which an operator's change to a service moves (booking answers embed
 * the service).
 */
export async function bookingsDataVersion(context: Context): Promise<string> {
  if (!context.principal) return 'anonymous';
  const row = await accountLogPosition(context);
  return `${context.principal.accountId}.${row?.seq ?? 0}.${row?.catalogue ?? 'none'}`;
}

/**
 * When any booking of the account last changed, or null before the first change. Every change logs
 * an event stamped with the booking's updatedAt, so the newest event dates the newest change; it is
 * read in the same statement as the data version, so a listing with Last-Modified costs no extra one.
 */
export async function bookingsLastChanged(context: Context): Promise<Date | null> {
  const changedMs = (await accountLogPosition(context))?.changed_ms;
  return changedMs == null ? null : new Date(Number(changedMs));
}
