import { createHash } from 'node:crypto';
import { isUniqueViolation } from '../db/errors.js';
import type { Booking, IdempotencyKey, Prisma } from '../generated/prisma/client.js';
import type { Context } from '../graphql/context.js';
import { AppError, validationFailed } from '../shared/errors.js';
import { accountOf } from './service.js';
import type { Tx } from './transaction.js';
import type { CreateBookingInput } from './validation.js';

/**
 * Idempotency-Key on the creates (bookings, holds, waitlist entries): what a create with a key made,
 * kept for a day so a retry replays it instead of making another. Keys are the account's, across
 * the creates: a key sent again with another request (another create among them) is refused.
 */

export const idempotencyWindowMs = 24 * 3_600_000;

/** A request's fingerprint under a key: the create's name and its parsed input, in a fixed order. */
export function requestHash(create: string, fields: readonly unknown[]): string {
  return createHash('sha256')
    .update(JSON.stringify([create, ...fields]))
    .digest('hex');
}

/** A booking create's fingerprint, in the forms keys were stored with before the other creates took keys, so those still replay. */
export function bookingRequestHash(input: CreateBookingInput): string {
  const customer = input.customer ? [input.customer.name, input.customer.email] : [];
  if (input.holdId !== undefined) return requestHash('hold', [input.holdId, ...customer]);
  // A party of one hashes as before party sizes existed.
  const party = (input.partySize ?? 1) === 1 ? [] : [input.partySize];
  return createHash('sha256')
    .update(JSON.stringify([input.serviceId, input.startTime?.toISOString(), ...customer, ...party]))
    .digest('hex');
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

/** What a create does with its key, in its own transaction; nothing without a key. */
export interface KeyUse {
  /** Claims the key, first thing: a concurrent retry waits on its row, then replays what this create made. */
  claim(tx: Tx, now: Date): Promise<void>;
  /** Records what the create made: its id, and, where a replay answers as first sent (bookings), its row. */
  keep(tx: Tx, createdId: string, firstAnswer?: Prisma.InputJsonValue): Promise<void>;
}

const unkeyed: KeyUse = { claim: async () => undefined, keep: async () => undefined };

function stillInProgress(): AppError {
  return new AppError('idempotency_key_in_use', 'A request with this Idempotency-Key is still in progress.');
}

/** Thrown out of a create when its key was claimed meanwhile by a request that committed first. */
class KeyTakenMeanwhile extends Error {}

/**
 * The key as stored: an API key's as sent (keys are the account's), a widget token's under the
 * token's own name, so a public token can neither see what the account's servers made under a key
 * nor spoil a key they will send, nor another token's.
 */
function storedKey(context: Context, key: string): string {
  return context.principal?.kind === 'widget_token' ? `${context.principal.tokenId}:${key}` : key;
}

/** The record of an earlier request with `key` that still counts; 422 when it was another request, 409 while it has not finished. */
async function earlierRecord(context: Context, accountId: string, key: string, hash: string): Promise<IdempotencyKey | null> {
  const record = await context.prisma.idempotencyKey.findUnique({ where: { accountId_key: { accountId, key } } });
  if (!record) return null;
  if (record.expiresAt <= context.services.clock()) {
    await context.prisma.idempotencyKey.deleteMany({ where: { accountId, key, expiresAt: { lte: context.services.clock() } } });
    return null;
  }
  if (record.requestHash !== hash) {
    throw new AppError('idempotency_key_reused', 'This Idempotency-Key was used with a different request body.');
  }
  return record;
}

/**
 * Runs a create under an Idempotency-Key (as it is without one). The first request with a key runs
 * `create`, which claims the key and keeps what it made in its transaction (KeyUse); a later one with
 * the same request answers `replay` of that record, within a day; with another request, 422.
 */
export async function createWithKey<T>(
  context: Context,
  key: string | null,
  hash: string,
  replay: (record: IdempotencyKey) => Promise<T> | T,
  create: (key: KeyUse) => Promise<T>,
): Promise<{ created: T; replayed: boolean }> {
  if (key === null) return { created: await create(unkeyed), replayed: false };
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw validationFailed([{ field: 'idempotencyKey', code: 'invalid', message: 'Use 1 to 255 visible ASCII characters.' }]);
  }
  const accountId = accountOf(context);
  const stored = storedKey(context, key);
  const earlier = await earlierRecord(context, accountId, stored, hash);
  if (earlier) return { created: await replay(earlier), replayed: true };
  const use: KeyUse = {
    claim: async (tx, now) => {
      try {
        await tx.idempotencyKey.create({ data: { accountId, key: stored, requestHash: hash, expiresAt: new Date(now.getTime() + idempotencyWindowMs) } });
      } catch (error) {
        // Only this statement's unique violation is the key's: one elsewhere in the create is the create's own failure.
        throw isUniqueViolation(error) ? new KeyTakenMeanwhile() : error;
      }
    },
    keep: async (tx, createdId, firstAnswer) => {
      await tx.idempotencyKey.update({
        where: { accountId_key: { accountId, key: stored } },
        data: { createdId, ...(firstAnswer === undefined ? {} : { createdBooking: firstAnswer }) },
      });
    },
  };
  try {
    return { created: await create(use), replayed: false };
  } catch (error) {
    if (!(error instanceof KeyTakenMeanwhile)) throw error;
    const concurrent = await earlierRecord(context, accountId, stored, hash);
    if (concurrent) return { created: await replay(concurrent), replayed: true };
    throw stillInProgress();
  }
}

/** A replay that answers what the first request made as it is now, found by its id with `find`. */
export function replayingCreated<T>(find: (createdId: string) => Promise<T>): (record: IdempotencyKey) => Promise<T> {
  return (record) => (record.createdId === null ? Promise.reject(stillInProgress()) : find(record.createdId));
}

/** A booking's replay: the booking as the first request created it, whatever changed since. */
export function firstBookingAnswer(record: IdempotencyKey): Booking {
  if (!record.createdBooking) throw stillInProgress();
  return bookingFromStore(record.createdBooking as StoredBooking);
}
