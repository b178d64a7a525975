import { createHash } from 'node:crypto';
import { Prisma, type Booking, type BookingEvent, type Service } from '../generated/prisma/client.js';
import type { Context } from '../graphql/context.js';
import type { BookingEventType } from '../events/kinds.js';
import { appendBookingEvent } from '../events/log.js';
import { AppError, notFound, validationFailed } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { parseInput } from '../shared/validation.js';
import { createBookingSchema, updateBookingSchema, type CreateBookingInput } from './validation.js';

const idempotencyWindowMs = 24 * 3_600_000;

type Tx = Prisma.TransactionClient;

function accountOf(context: Context): string {
  if (!context.principal) throw new AppError('unauthenticated', 'Authenticate first.');
  return context.principal.accountId;
}

/** A booking of the caller's account; another account's booking is "not found", never "forbidden". */
export async function findOwnBooking(context: Context, id: string): Promise<Booking> {
  const booking = await context.prisma.booking.findFirst({ where: { id, accountId: accountOf(context) } });
  if (!booking) throw notFound('booking', id);
  return booking;
}

const accountLogPositionRead = {
  name: 'hallowgate_account_log_position',
  text: 'SELECT coalesce(max(seq), 0)::text AS seq FROM booking_events WHERE account_id = $1',
};

/**
 * Changes whenever any booking answer of the caller's account could change: every change appends to
 * the account's event log in its transaction, and the log commits in `seq` order within an account
 * (lockAccountLog), so the newest position stands for every change before it. One index step.
 * Services, which booking answers embed, never change once seeded; a way to change them would have
 * to move this fingerprint too.
 */
export async function bookingsDataVersion(context: Context): Promise<string> {
  if (!context.principal) return 'anonymous';
  const { accountId } = context.principal;
  const [row] = await context.services.readRows<{ seq: string }>({ ...accountLogPositionRead, values: [accountId] });
  return `${accountId}.${row?.seq ?? 0}`;
}

async function findServiceOrFail(tx: Tx, id: string): Promise<Service> {
  const service = await tx.service.findUnique({ where: { id } });
  if (!service) {
    throw validationFailed([{ field: 'serviceId', code: 'unknown', message: `No service with id "${id}".` }]);
  }
  return service;
}

/**
 * Takes one place in a (service, start_time) slot in one atomic statement: the slot row is created
 * with one place taken, or its count raised only while under capacity. Concurrent bookings queue on
 * the row lock, so a slot can never be overfilled. `timestamp` drops the Z: the column holds UTC.
 */
async function reservePlace(tx: Tx, service: Service, startTime: Date): Promise<void> {
  const taken =
    service.capacity > 0 &&
    (await tx.$executeRaw`
      INSERT INTO booking_slots (service_id, start_time, confirmed_count)
      VALUES (${service.id}, ${startTime.toISOString()}::timestamp, 1)
      ON CONFLICT (service_id, start_time)
      DO UPDATE SET confirmed_count = booking_slots.confirmed_count + 1
      WHERE booking_slots.confirmed_count < ${service.capacity}`) === 1;
  if (!taken) throw new AppError('slot_full', `${service.name} is fully booked at ${startTime.toISOString()}.`);
}

async function releasePlace(tx: Tx, booking: Pick<Booking, 'serviceId' | 'startTime'>): Promise<void> {
  await tx.bookingSlot.updateMany({
    where: { serviceId: booking.serviceId, startTime: booking.startTime, confirmedCount: { gt: 0 } },
    data: { confirmedCount: { decrement: 1 } },
  });
}

/**
 * Frees the old place and takes the new one. Slot rows are locked in key order, so two bookings
 * moving in opposite directions cannot deadlock.
 */
async function moveBetweenSlots(tx: Tx, current: Booking, service: Service, startTime: Date): Promise<void> {
  const from = `${current.serviceId}|${current.startTime.toISOString()}`;
  const to = `${service.id}|${startTime.toISOString()}`;
  if (from < to) {
    await releasePlace(tx, current);
    await reservePlace(tx, service, startTime);
  } else {
    await reservePlace(tx, service, startTime);
    await releasePlace(tx, current);
  }
}

/** Row lock on the booking, so concurrent changes to one booking apply one after the other. */
async function lockBooking(tx: Tx, accountId: string, id: string): Promise<Booking> {
  await tx.$executeRaw`SELECT 1 FROM bookings WHERE id = ${id} AND account_id = ${accountId} FOR UPDATE`;
  const booking = await tx.booking.findFirst({ where: { id, accountId } });
  if (!booking) throw notFound('booking', id);
  return booking;
}

/** Bounds for one booking transaction; generous, because PGlite runs transactions one at a time. */
const transactionLimits = { maxWait: 10_000, timeout: 15_000 };
/** A transaction the database aborted for a write conflict runs again, up to this many times in all. */
const maxAttempts = 3;

/**
 * Why a transaction failed when the cause is load, not the request: `conflict` (deadlock or
 * serialization failure: worth running again) or `busy` (no connection or transaction slot in time).
 */
function loadFailure(error: unknown): 'conflict' | 'busy' | null {
  if (error instanceof Prisma.PrismaClientKnownRequestError) {
    const cause = (error.meta?.['driverAdapterError'] as { cause?: { kind?: string } } | undefined)?.cause;
    if (error.code === 'P2034' || cause?.kind === 'TransactionWriteConflict') return 'conflict';
    if (error.code === 'P2024' || error.code === 'P2028') return 'busy';
  }
  // node-postgres' pool, when every connection stays taken for connectionTimeoutMillis.
  if (error instanceof Error && error.message === 'timeout exceeded when trying to connect') return 'busy';
  return null;
}

/**
 * Holds the account's log position until commit, so that within an account events commit in `seq`
 * order: a reader that has seen event n never later finds a committed event below n.
 */
async function lockAccountLog(tx: Tx, accountId: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${accountId}, 0))`;
}

type Change = (tx: Tx, now: Date) => Promise<{ booking: Booking; event: BookingEventType | null }>;

/** The change and its event in one transaction, run again after a write conflict; load failures are 503. */
async function runInTransaction(context: Context, change: Change, now: Date): Promise<{ booking: Booking; logged: BookingEvent | null }> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await context.prisma.$transaction(async (tx) => {
        const result = await change(tx, now);
        if (!result.event) return { booking: result.booking, logged: null };
        await lockAccountLog(tx, result.booking.accountId);
        return { booking: result.booking, logged: await appendBookingEvent(tx, result.booking, result.event, now) };
      }, transactionLimits);
    } catch (error) {
      const failure = loadFailure(error);
      if (failure === 'conflict' && attempt < maxAttempts) continue;
      if (failure) throw new AppError('service_unavailable', 'Bookings are busy; retry in a moment.', { headers: { 'retry-after': '1' } });
      throw error;
    }
  }
}

/** Commits a change with its event, then announces the event to subscribers. */
async function commitChange(context: Context, change: Change): Promise<Booking> {
  const { booking, logged } = await runInTransaction(context, change, context.services.clock());
  if (logged) context.services.bookingEventBus.publish(logged.accountId, { eventId: logged.id, seq: String(logged.seq) });
  return booking;
}

function fingerprint(input: CreateBookingInput): string {
  return createHash('sha256')
    .update(JSON.stringify([input.serviceId, input.startTime.toISOString(), input.customer.name, input.customer.email]))
    .digest('hex');
}

function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002';
}

/** A booking row as JSON (how an idempotency record keeps it): its dates are ISO strings. */
type StoredBooking = {
  [Field in keyof Booking]: Booking[Field] extends Date ? string : Booking[Field] extends Date | null ? string | null : Booking[Field];
};

function storedBooking(booking: Booking): StoredBooking {
  return {
    ...booking,
    startTime: booking.startTime.toISOString(),
    createdAt: booking.createdAt.toISOString(),
    updatedAt: booking.updatedAt.toISOString(),
    cancelledAt: booking.cancelledAt?.toISOString() ?? null,
  };
}

function bookingFromStore(stored: StoredBooking): Booking {
  return {
    ...stored,
    startTime: new Date(stored.startTime),
    createdAt: new Date(stored.createdAt),
    updatedAt: new Date(stored.updatedAt),
    cancelledAt: stored.cancelledAt === null ? null : new Date(stored.cancelledAt),
  };
}

/**
 * What a previous request with the same Idempotency-Key answered, if it still counts: the booking
 * as that request created it, whatever changed since.
 */
async function earlierAttempt(context: Context, accountId: string, key: string, requestHash: string): Promise<Booking | null> {
  const record = await context.prisma.idempotencyKey.findUnique({ where: { accountId_key: { accountId, key } } });
  if (!record) return null;
  if (record.expiresAt <= context.services.clock()) {
    await context.prisma.idempotencyKey.deleteMany({ where: { accountId, key, expiresAt: { lte: context.services.clock() } } });
    return null;
  }
  if (record.requestHash !== requestHash) {
    throw new AppError('idempotency_key_reused', 'This Idempotency-Key was used with a different request body.');
  }
  if (!record.createdBooking) throw new AppError('idempotency_key_in_use', 'A request with this Idempotency-Key is still in progress.');
  return bookingFromStore(record.createdBooking as StoredBooking);
}

export async function createBooking(
  context: Context,
  rawInput: unknown,
  idempotencyKey: string | null,
): Promise<{ booking: Booking; replayed: boolean }> {
  const accountId = accountOf(context);
  const input = parseInput(createBookingSchema(context.services.clock()), rawInput);
  if (idempotencyKey !== null && !/^[\x21-\x7e]{1,255}$/.test(idempotencyKey)) {
    throw validationFailed([{ field: 'idempotencyKey', code: 'invalid', message: 'Use 1 to 255 visible ASCII characters.' }]);
  }
  const requestHash = fingerprint(input);
  if (idempotencyKey) {
    const earlier = await earlierAttempt(context, accountId, idempotencyKey, requestHash);
    if (earlier) return { booking: earlier, replayed: true };
  }
  try {
    const booking = await commitChange(context, async (tx, now) => {
      const bookingId = newId('booking');
      if (idempotencyKey) {
        // Claiming the key first makes a concurrent retry wait on this row, then replay our result.
        await tx.idempotencyKey.create({
          data: { accountId, key: idempotencyKey, requestHash, bookingId, expiresAt: new Date(now.getTime() + idempotencyWindowMs) },
        });
      }
      const service = await findServiceOrFail(tx, input.serviceId);
      await reservePlace(tx, service, input.startTime);
      const created = await tx.booking.create({
        data: {
          id: bookingId,
          accountId,
          serviceId: service.id,
          startTime: input.startTime,
          customerName: input.customer.name,
          customerEmail: input.customer.email,
          createdAt: now,
          updatedAt: now,
        },
      });
      if (idempotencyKey) {
        await tx.idempotencyKey.update({
          where: { accountId_key: { accountId, key: idempotencyKey } },
          data: { createdBooking: storedBooking(created) },
        });
      }
      return { booking: created, event: 'booking.created' };
    });
    return { booking, replayed: false };
  } catch (error) {
    if (idempotencyKey && isUniqueViolation(error)) {
      const earlier = await earlierAttempt(context, accountId, idempotencyKey, requestHash);
      if (earlier) return { booking: earlier, replayed: true };
      throw new AppError('idempotency_key_in_use', 'A request with this Idempotency-Key is still in progress.');
    }
    throw error;
  }
}

function withoutNulls(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, entry]) => entry !== null)
      .map(([key, entry]) => [key, withoutNulls(entry)]),
  );
}

export async function updateBooking(context: Context, id: string, rawInput: unknown): Promise<Booking> {
  const accountId = accountOf(context);
  const input = parseInput(updateBookingSchema(context.services.clock()), withoutNulls(rawInput));
  return commitChange(context, async (tx, now) => {
    const current = await lockBooking(tx, accountId, id);
    if (current.status === 'cancelled') throw new AppError('booking_cancelled', `Booking ${id} is cancelled; it cannot change.`);
    const next = {
      serviceId: input.serviceId ?? current.serviceId,
      startTime: input.startTime ?? current.startTime,
      customerName: input.customer?.name ?? current.customerName,
      customerEmail: input.customer?.email ?? current.customerEmail,
    };
    const slotChanges = next.serviceId !== current.serviceId || next.startTime.getTime() !== current.startTime.getTime();
    const changes = slotChanges || next.customerName !== current.customerName || next.customerEmail !== current.customerEmail;
    if (!changes) return { booking: current, event: null };
    if (slotChanges) await moveBetweenSlots(tx, current, await findServiceOrFail(tx, next.serviceId), next.startTime);
    const updated = await tx.booking.update({ where: { id }, data: { ...next, updatedAt: now } });
    return { booking: updated, event: 'booking.updated' };
  });
}

/** Cancels a confirmed booking; cancelling a cancelled one changes nothing and logs nothing. */
export async function cancelBooking(context: Context, id: string): Promise<Booking> {
  const accountId = accountOf(context);
  return commitChange(context, async (tx, now) => {
    const current = await lockBooking(tx, accountId, id);
    if (current.status === 'cancelled') return { booking: current, event: null };
    await releasePlace(tx, current);
    const cancelled = await tx.booking.update({ where: { id }, data: { status: 'cancelled', cancelledAt: now, updatedAt: now } });
    return { booking: cancelled, event: 'booking.cancelled' };
  });
}
