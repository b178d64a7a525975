import { createHash } from 'node:crypto';
import { Prisma, type Booking, type BookingEvent, type Service } from '../generated/prisma/client.js';
import type { Companion } from '../db/direct-reads.js';
import type { Context } from '../graphql/context.js';
import type { BookingEventType } from '../events/kinds.js';
import { appendBookingEvent } from '../events/log.js';
import { AppError, notFound, validationFailed } from '../shared/errors.js';
import { isoTimestamp } from '../shared/clock.js';
import { newId } from '../shared/ids.js';
import { parseInput } from '../shared/validation.js';
import { bumpAvailability, scheduleOf } from './availability.js';
import { isSlot } from './schedule.js';
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

/** Each request reads its account's log position once: the fingerprint and Last-Modified share it. */
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
export function accountLogPositionCompanion(context: Context): Companion | undefined {
  if (!context.principal || logPositions.has(context)) return undefined;
  const accountId = context.principal.accountId;
  let settle!: (row: AccountLogPosition | undefined) => void;
  const position = new Promise<AccountLogPosition | undefined>((resolve) => (settle = resolve)).then((row) => row ?? readAccountLogPosition(context));
  // Whoever asks for it sees a failed read; nobody asking must not make it an unhandled rejection.
  position.catch(() => undefined);
  logPositions.set(context, position);
  return {
    column: (parameter) => `(SELECT row_to_json(position) FROM (${accountLogPositionSql(parameter(accountId))}) AS position)`,
    receive: (value) => settle(value as AccountLogPosition | undefined),
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
 * read in the same statement as the fingerprint, so a listing with Last-Modified costs no extra one.
 */
export async function bookingsLastChanged(context: Context): Promise<Date | null> {
  const changedMs = (await accountLogPosition(context))?.changed_ms;
  return changedMs == null ? null : new Date(Number(changedMs));
}

/** A booking must start at a slot of its service that has not started: 422 `in_past` or `not_a_slot` on startTime. */
function checkSlot(service: Service, startTime: Date, now: Date): void {
  if (startTime.getTime() <= now.getTime()) {
    throw validationFailed([{ field: 'startTime', code: 'in_past', message: 'That slot has already started.' }]);
  }
  if (!isSlot(scheduleOf(service), startTime)) {
    const message = `${isoTimestamp(startTime)} is not a start time of service ${service.id}; its availability lists them.`;
    throw validationFailed([{ field: 'startTime', code: 'not_a_slot', message }]);
  }
}

/** A party takes places in one slot, so it can be at most the service's capacity: 422 `out_of_range` on partySize. */
function checkPartySize(service: Service, partySize: number): void {
  if (partySize > service.capacity) {
    throw validationFailed([{ field: 'partySize', code: 'out_of_range', message: `partySize is at most the capacity of the service, ${service.capacity}.` }]);
  }
}

const endOf = (service: Service, startTime: Date) => new Date(startTime.getTime() + service.durationMinutes * 60_000);

async function findServiceOrFail(tx: Tx, id: string): Promise<Service> {
  const service = await tx.service.findUnique({ where: { id } });
  if (!service) {
    throw validationFailed([{ field: 'serviceId', code: 'unknown', message: `No service with id "${id}".` }]);
  }
  return service;
}

/**
 * Takes a party's places in a (service, start_time) slot in one atomic statement: the slot row is
 * created with them taken, or its count raised only while the party still fits. Concurrent bookings
 * queue on the row lock, so a slot never holds more than `capacity` places, whatever the party
 * sizes. `timestamp` drops the Z: the column holds UTC.
 */
async function reservePlaces(tx: Tx, service: Service, startTime: Date, places: number): Promise<void> {
  const taken =
    places <= service.capacity &&
    (await tx.$executeRaw`
      INSERT INTO booking_slots (service_id, start_time, places_taken)
      VALUES (${service.id}, ${startTime.toISOString()}::timestamp, ${places})
      ON CONFLICT (service_id, start_time)
      DO UPDATE SET places_taken = booking_slots.places_taken + ${places}
      WHERE booking_slots.places_taken + ${places} <= ${service.capacity}`) === 1;
  if (!taken) {
    const wanted = places === 1 ? 'a place' : `${places} places`;
    throw new AppError('slot_full', `${service.name} has not ${wanted} left at ${isoTimestamp(startTime)}.`);
  }
}

async function releasePlaces(tx: Tx, booking: Pick<Booking, 'serviceId' | 'startTime' | 'partySize'>): Promise<void> {
  await tx.$executeRaw`
    UPDATE booking_slots SET places_taken = greatest(places_taken - ${booking.partySize}, 0)
    WHERE service_id = ${booking.serviceId} AND start_time = ${booking.startTime.toISOString()}::timestamp`;
}

/**
 * Frees the booking's places and takes those of its new slot or party size (the same slot when only
 * the party changes). Slot rows are locked in key order, so two bookings moving in opposite
 * directions cannot deadlock.
 */
async function movePlaces(tx: Tx, current: Booking, service: Service, startTime: Date, partySize: number): Promise<void> {
  const from = `${current.serviceId}|${current.startTime.toISOString()}`;
  const to = `${service.id}|${startTime.toISOString()}`;
  if (from <= to) {
    await releasePlaces(tx, current);
    await reservePlaces(tx, service, startTime, partySize);
  } else {
    await reservePlaces(tx, service, startTime, partySize);
    await releasePlaces(tx, current);
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

/** What a change did: the booking as it left it, its event (none when nothing changed), and the services whose places it moved. */
type Change = (tx: Tx, now: Date) => Promise<{ booking: Booking; event: BookingEventType | null; placesOf?: string[] }>;

/**
 * The change and its event in one transaction, run again after a write conflict; load failures are
 * 503. A change of places moves the availability fingerprint in the same transaction, last.
 */
async function runInTransaction(context: Context, change: Change, now: Date): Promise<{ booking: Booking; logged: BookingEvent | null }> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await context.prisma.$transaction(async (tx) => {
        const result = await change(tx, now);
        if (!result.event) return { booking: result.booking, logged: null };
        await lockAccountLog(tx, result.booking.accountId);
        const logged = await appendBookingEvent(tx, result.booking, result.event, now);
        if (result.placesOf?.length) await bumpAvailability(tx, result.placesOf);
        return { booking: result.booking, logged };
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
  // A party of one hashes as before party sizes existed, so keys sent across the upgrade still replay.
  const party = input.partySize === 1 ? [] : [input.partySize];
  return createHash('sha256')
    .update(JSON.stringify([input.serviceId, input.startTime.toISOString(), input.customer.name, input.customer.email, ...party]))
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
    endTime: booking.endTime.toISOString(),
    createdAt: booking.createdAt.toISOString(),
    updatedAt: booking.updatedAt.toISOString(),
    cancelledAt: booking.cancelledAt?.toISOString() ?? null,
  };
}

function bookingFromStore(stored: StoredBooking): Booking {
  return {
    ...stored,
    startTime: new Date(stored.startTime),
    endTime: new Date(stored.endTime),
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

export async function createBooking(context: Context, rawInput: unknown, idempotencyKey: string | null): Promise<{ booking: Booking; replayed: boolean }> {
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
      checkSlot(service, input.startTime, now);
      checkPartySize(service, input.partySize);
      await reservePlaces(tx, service, input.startTime, input.partySize);
      const created = await tx.booking.create({
        data: {
          id: bookingId,
          accountId,
          serviceId: service.id,
          startTime: input.startTime,
          endTime: endOf(service, input.startTime),
          partySize: input.partySize,
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
      return { booking: created, event: 'booking.created', placesOf: [service.id] };
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

export async function updateBooking(context: Context, id: string, rawInput: unknown): Promise<Booking> {
  const accountId = accountOf(context);
  const input = parseInput(updateBookingSchema(context.services.clock()), rawInput);
  return commitChange(context, async (tx, now) => {
    const current = await lockBooking(tx, accountId, id);
    if (current.status === 'cancelled') throw new AppError('booking_cancelled', `Booking ${id} is cancelled; it cannot change.`);
    const next = {
      serviceId: input.serviceId ?? current.serviceId,
      startTime: input.startTime ?? current.startTime,
      partySize: input.partySize ?? current.partySize,
      customerName: input.customer?.name ?? current.customerName,
      customerEmail: input.customer?.email ?? current.customerEmail,
    };
    const slotChanges = next.serviceId !== current.serviceId || next.startTime.getTime() !== current.startTime.getTime();
    const placesChange = slotChanges || next.partySize !== current.partySize;
    const changes = placesChange || next.customerName !== current.customerName || next.customerEmail !== current.customerEmail;
    if (!changes) return { booking: current, event: null };
    let endTime = current.endTime;
    if (placesChange) {
      const service = await findServiceOrFail(tx, next.serviceId);
      if (slotChanges) {
        checkSlot(service, next.startTime, now);
        endTime = endOf(service, next.startTime);
      } else if (current.startTime.getTime() <= now.getTime()) {
        // A new party size in the booking's own slot, which stays valid even if the schedule moved on since.
        throw validationFailed([{ field: 'partySize', code: 'in_past', message: "The booking's slot has started; its party size cannot change." }]);
      }
      checkPartySize(service, next.partySize);
      await movePlaces(tx, current, service, next.startTime, next.partySize);
    }
    const updated = await tx.booking.update({ where: { id }, data: { ...next, endTime, updatedAt: now } });
    return { booking: updated, event: 'booking.updated', placesOf: placesChange ? [current.serviceId, next.serviceId] : [] };
  });
}

/** Cancels a confirmed booking; cancelling a cancelled one changes nothing and logs nothing. */
export async function cancelBooking(context: Context, id: string): Promise<Booking> {
  const accountId = accountOf(context);
  return commitChange(context, async (tx, now) => {
    const current = await lockBooking(tx, accountId, id);
    if (current.status === 'cancelled') return { booking: current, event: null };
    await releasePlaces(tx, current);
    const cancelled = await tx.booking.update({ where: { id }, data: { status: 'cancelled', cancelledAt: now, updatedAt: now } });
    return { booking: cancelled, event: 'booking.cancelled', placesOf: [current.serviceId] };
  });
}
