import { Prisma, type Booking, type BookingEvent } from '../generated/prisma/client.js';
import type { AppServices, Context } from '../graphql/context.js';
import type { BookingEventType } from '../events/kinds.js';
import { appendLogEvent, bookingEventData, type BookingEventDetails, type LogEventInput } from '../events/log.js';
import { AppError, someCause } from '../shared/errors.js';
import { withinRequestTrace } from '../tracing/tracing.js';
import { bumpAvailability } from './availability.js';

/** How a booking, hold or waitlist change commits: in one transaction with its events, run again after a write conflict, then announced. */

export type Tx = Prisma.TransactionClient;

/** Bounds for one booking transaction; generous, because PGlite runs transactions one at a time. */
const transactionLimits = { maxWait: 10_000, timeout: 15_000 };
/** A transaction the database aborted for a write conflict runs again, up to this many times in all. */
const maxAttempts = 3;

/** A transaction that got no connection from the pool (Prisma's or node-postgres' own timeout). */
const noConnection = { busy: 'no database connection came free in time' };

/**
 * Why a transaction failed when the cause is load, not the request: `conflict` (deadlock or
 * serialization failure: worth running again), or what kept it waiting (no connection, transaction
 * slot or row lock in time), said in the answer so that a client and an operator tell a queue behind
 * one slot from a pool too small.
 */
function loadFailure(error: unknown): 'conflict' | { busy: string } | null {
  if (error instanceof Prisma.PrismaClientKnownRequestError) {
    const cause = (error.meta?.['driverAdapterError'] as { cause?: { kind?: string } } | undefined)?.cause;
    if (error.code === 'P2034' || cause?.kind === 'TransactionWriteConflict') return 'conflict';
    if (error.code === 'P2024') return noConnection;
    if (error.code === 'P2028') return { busy: 'the transaction did not start or finish within its deadline' };
  }
  // node-postgres' pool, when every connection stays taken for connectionTimeoutMillis.
  if (error instanceof Error && error.message === 'timeout exceeded when trying to connect') return noConnection;
  // A statement PostgreSQL cancelled at its deadline: here, one queued for a slot's row lock. The
  // database answered, so it is busy, not unreachable.
  if (someCause(error, (cause) => (cause as { code?: unknown }).code === '57014' || /canceling statement due to statement timeout/i.test(cause.message))) {
    return { busy: 'a statement ran past its deadline, most often waiting behind other changes to the same slots' };
  }
  return null;
}

/**
 * Holds the account's log position until commit, so that within an account events commit in `seq`
 * order: a reader that has seen event n never later finds a committed event below n.
 */
async function lockAccountLog(tx: Tx, accountId: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${accountId}, 0))`;
}

/**
 * Holds the account's quotas (its held holds, its widget tokens' among them, and its open waitlist
 * entries) until commit: a create counts what the account has with its own row in, and two creates
 * counting at once would each miss the other's.
 */
export async function lockAccountQuotas(tx: Tx, accountId: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${accountId}, 1))`;
}

/** What a booking transaction needs: a request's context, or the offers worker's. */
export type TransactionScope = Pick<Context, 'prisma' | 'requestTrace'> & { services: Pick<AppServices, 'clock' | 'bookingEventBus' | 'availabilityBus'> };

/** What a transaction's work notes as it goes, for the commit: the events to log and the services whose places moved. */
export interface ChangeRecord {
  log(event: LogEventInput): void;
  placesMoved(serviceId: string): void;
}

/** The booking.* event of a booking as a change left it. */
export function bookingLogEvent(booking: Booking, type: BookingEventType, details: BookingEventDetails = {}): LogEventInput {
  return { accountId: booking.accountId, type, subject: { bookingId: booking.id }, data: bookingEventData(booking, details) };
}

/**
 * Runs `work` in one transaction with the events it notes (in every account they belong to: a
 * cancellation in one account may offer its places to another's waitlist), run again after a write
 * conflict; load failures are 503. Account logs are locked in id order, so two transactions that
 * log in the same accounts cannot deadlock; a change of places moves the availability data version
 * in the same transaction, last. After commit, the events are announced to subscribers, and the
 * services whose places moved to their availability subscribers.
 */
export async function inBookingTransaction<T>(context: TransactionScope, work: (tx: Tx, now: Date, record: ChangeRecord) => Promise<T>): Promise<T> {
  const now = context.services.clock();
  for (let attempt = 1; ; attempt++) {
    const places = new Set<string>();
    const accounts = new Set<string>();
    try {
      const { value, logged } = await context.prisma.$transaction(async (tx) => {
        const pending: LogEventInput[] = [];
        // An attempt run again after a conflict notes its services afresh.
        places.clear();
        accounts.clear();
        const value = await work(tx, now, { log: (event) => pending.push(event), placesMoved: (serviceId) => places.add(serviceId) });
        for (const event of pending) accounts.add(event.accountId);
        for (const accountId of [...accounts].sort()) await lockAccountLog(tx, accountId);
        const logged: BookingEvent[] = [];
        // Within the request's trace, also when the request runs outside it (unsampled): the event keeps it for its deliveries.
        for (const event of pending) logged.push(await withinRequestTrace(context.requestTrace, () => appendLogEvent(tx, event, now)));
        if (places.size) await bumpAvailability(tx, [...places]);
        return { value, logged };
      }, transactionLimits);
      for (const event of logged) context.services.bookingEventBus.publish(event.accountId, { eventId: event.id, seq: String(event.seq) });
      for (const serviceId of places) context.services.availabilityBus.publish(serviceId);
      return value;
    } catch (error) {
      const failure = loadFailure(error);
      if (failure === 'conflict' && attempt < maxAttempts) continue;
      // Refused by the work itself, nothing was written; otherwise the commit may have landed with its answer lost.
      if (!(error instanceof AppError) && failure !== 'conflict') announceWhatMayHaveCommitted(context, places, accounts);
      if (failure) {
        const why = failure === 'conflict' ? `it met other changes to the same slots each of the ${maxAttempts} times it ran` : failure.busy;
        throw new AppError('service_unavailable', `Bookings are busy: ${why}; retry in a moment.`, { headers: { 'retry-after': '1' } });
      }
      throw error;
    }
  }
}

/**
 * Announces a transaction whose outcome is unknown (its COMMIT sent, its answer lost): a spare notice
 * costs subscribers one read, a missing one leaves them stale until the next change. Places are
 * announced at once; the log's newest events are read apart, within the statement deadline, and
 * announced when the read answers (never awaited: the request's answer is the failure).
 */
function announceWhatMayHaveCommitted(context: TransactionScope, places: ReadonlySet<string>, accounts: ReadonlySet<string>): void {
  for (const serviceId of places) context.services.availabilityBus.publish(serviceId);
  for (const accountId of accounts) {
    context.prisma.bookingEvent
      .findFirst({ where: { accountId }, orderBy: { seq: 'desc' }, select: { id: true, seq: true } })
      .then((newest) => newest && context.services.bookingEventBus.publish(accountId, { eventId: newest.id, seq: String(newest.seq) }))
      .catch(() => undefined);
  }
}

/**
 * What a booking change did: the booking as it left it, its event (none when nothing changed) with
 * what the event says besides the booking, and the services whose places it moved.
 */
export type Change = (tx: Tx, now: Date, record: ChangeRecord) => Promise<{ booking: Booking; event: BookingEventType | null; details?: BookingEventDetails; placesOf?: string[] }>;

/** Commits a booking change with its event, then announces the event to subscribers. */
export async function commitChange(context: Context, change: Change): Promise<Booking> {
  return inBookingTransaction(context, async (tx, now, record) => {
    // The booking's own event comes first in the log: the offers its freed places made follow it.
    const following: LogEventInput[] = [];
    const result = await change(tx, now, { log: (event) => following.push(event), placesMoved: record.placesMoved });
    if (result.event) record.log(bookingLogEvent(result.booking, result.event, result.details));
    for (const event of following) record.log(event);
    for (const serviceId of result.placesOf ?? []) record.placesMoved(serviceId);
    return result.booking;
  });
}
