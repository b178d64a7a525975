import { createHash } from 'node:crypto';
import { Prisma, type Booking } from '../generated/prisma/client.js';
import type { Context } from '../graphql/context.js';
import { AppError } from '../shared/errors.js';
import type { CreateBookingInput } from './validation.js';

/** Idempotency-Key: what a create with a key answered, kept for a day so a retry replays it. */

export const idempotencyWindowMs = 24 * 3_600_000;

export function requestHashOf(input: CreateBookingInput): string {
  const customer = input.customer ? [input.customer.name, input.customer.email] : [];
  if (input.holdId !== undefined)
    return createHash('sha256')
      .update(JSON.stringify(['hold', input.holdId, ...customer]))
      .digest('hex');
  // A party of one hashes as before party sizes existed, so keys sent across the upgrade still replay.
  const party = (input.partySize ?? 1) === 1 ? [] : [input.partySize];
  return createHash('sha256')
    .update(JSON.stringify([input.serviceId, input.startTime?.toISOString(), ...customer, ...party]))
    .digest('hex');
}

export function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002';
}

/** A booking row as JSON (how an idempotency record keeps it): its dates are ISO strings. */
type StoredBooking = {
  [Field in keyof Booking]: Booking[Field] extends Date ? string : Booking[Field] extends Date | null ? string | null : Booking[Field];
};

export function storedBooking(booking: Booking): StoredBooking {
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
export async function earlierAttempt(context: Context, accountId: string, key: string, requestHash: string): Promise<Booking | null> {
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
