import type { Booking, Hold } from '../../generated/prisma/client.js';
import { credentialIdOf } from '../../access/principal.js';
import type { Context } from '../../graphql/context.js';
import { AppError, notFound } from '../../shared/errors.js';
import { parseInput } from '../../shared/validation.js';
import { checkPartySize, checkSlot, confirmHeldPlaces, findServiceOrFail } from '../places.js';
import { accountOf } from '../service.js';
import { inBookingTransaction, lockAccountQuotas, type ChangeRecord, type Tx } from '../transaction.js';
import { createWithKey, replayingCreated, requestHash } from '../idempotency.js';
import { createHoldSchema } from '../validation.js';
import { holdStatus, lockHold, placeHold, type HoldOwner } from './hold.js';
import { endHold } from './offers.js';

/** The hold operations: create, read, release, and the conversion a booking made with one does. */

/** The caller's holds: its account's, or a widget token's own (HoldOwner). */
export function holdOwnerOf(context: Context): HoldOwner {
  const accountId = accountOf(context);
  return context.principal?.kind === 'widget_token' ? { accountId, createdBy: context.principal.tokenId } : { accountId };
}

/** Holds an account may have held at once, its waitlist offers' included: so one key cannot keep a catalogue's slots from everyone else. */
export const maxHeldHoldsPerAccount = 1000;
/** Holds one booking widget token may have held at once: visitors of a public page cannot use up the account's. */
export const maxHeldHoldsPerWidgetToken = 100;

/**
 * Refuses the hold just placed (or offered to the entry just made) when it takes its account, or its widget token, past its cap: counted
 * with it, under the account's quota lock held to the commit, so that of creates racing, exactly those
 * past the cap are refused. Taken last, the lock queues only the ends of those transactions.
 */
export async function refuseHoldsPastCaps(tx: Tx, owner: HoldOwner, now: Date): Promise<void> {
  await lockAccountQuotas(tx, owner.accountId);
  const held = await tx.hold.count({ where: { accountId: owner.accountId, status: 'held', expiresAt: { gt: now } } });
  if (held > maxHeldHoldsPerAccount) {
    throw new AppError('too_many_holds', `This account holds ${held - 1} slots' places already, the most it may; book or release some first.`);
  }
  if (owner.createdBy === undefined) return;
  const heldByToken = await tx.hold.count({ where: { createdBy: owner.createdBy, status: 'held', expiresAt: { gt: now } } });
  if (heldByToken > maxHeldHoldsPerWidgetToken) {
    throw new AppError('too_many_holds', `This widget token holds ${heldByToken - 1} slots' places already, the most one may; try again once some are booked or have expired.`);
  }
}

/** Places a hold; a retry with the create's Idempotency-Key answers the hold the first request placed, as it is now. */
export async function createHold(context: Context, rawInput: unknown, idempotencyKey: string | null): Promise<Hold> {
  const owner = holdOwnerOf(context);
  const input = parseInput(createHoldSchema(context.services.clock()), rawInput);
  const hash = requestHash('createHold', [input.serviceId, input.startTime.toISOString(), input.partySize, input.expiresInSeconds]);
  const replay = replayingCreated((id) => findOwnHold(context, id));
  const { created } = await createWithKey(context, idempotencyKey, hash, replay, (key) =>
    inBookingTransaction(context, async (tx, now, record) => {
      await key.claim(tx, now);
      const service = await findServiceOrFail(tx, input.serviceId);
      checkSlot(service, input.startTime, now);
      checkPartySize(service, input.partySize);
      const hold = await placeHold(
        tx,
        record,
        {
          accountId: owner.accountId,
          createdBy: credentialIdOf(context.principal!),
          service,
          startTime: input.startTime,
          partySize: input.partySize,
          lifetimeSeconds: input.expiresInSeconds,
        },
        now,
      );
      await refuseHoldsPastCaps(tx, owner, now);
      await key.keep(tx, hold.id);
      return hold;
    }),
  );
  return created;
}

export async function findOwnHold(context: Context, id: string): Promise<Hold> {
  const hold = await context.prisma.hold.findFirst({ where: { id, ...holdOwnerOf(context) } });
  if (!hold) throw notFound('hold', id);
  return hold;
}

/**
 * Gives a held hold's places back at once, offered to the slot's waitlist in the same transaction;
 * declining an offer this way withdraws its waitlist entry. A hold no longer held (released, expired
 * or converted) is answered as it is: releasing again changes nothing.
 */
export async function releaseHold(context: Context, id: string): Promise<Hold> {
  const owner = holdOwnerOf(context);
  return inBookingTransaction(context, async (tx, now, record) => {
    const hold = await lockHold(tx, owner, id);
    if (holdStatus(hold, now) !== 'held') return hold;
    return endHold(tx, record, hold, { hold: 'released', entry: 'withdrawn' }, now);
  });
}

/** What a booking made with a hold takes from it: its slot and party, and the customer of the waitlist entry it was offered to. */
export interface HeldBooking {
  hold: Hold;
  customer: { name: string; email: string } | null;
}

/**
 * Converts the caller's hold into confirmed places, with no capacity check that could fail: 409
 * hold_expired when it is no longer held (expired, released, or already booked).
 */
export async function takeHold(tx: Tx, owner: HoldOwner, holdId: string, now: Date): Promise<HeldBooking> {
  const hold = await lockHold(tx, owner, holdId);
  const status = holdStatus(hold, now);
  if (status !== 'held' || !(await confirmHeldPlaces(tx, hold, now))) {
    const why = status === 'converted' ? 'was booked already' : `is ${status === 'held' ? 'expired' : status}`;
    throw new AppError('hold_expired', `Hold ${holdId} ${why}: its places are no longer kept. Hold the slot again.`);
  }
  const entry = await tx.waitlistEntry.findUnique({ where: { holdId } });
  return { hold, customer: entry && { name: entry.customerName, email: entry.customerEmail } };
}

/** Marks the hold a booking was made with as converted, and its waitlist entry as booked. */
export async function recordHoldBooked(tx: Tx, record: ChangeRecord, hold: Hold, booking: Booking, now: Date): Promise<void> {
  await tx.hold.update({ where: { id: hold.id }, data: { status: 'converted', bookingId: booking.id, updatedAt: now } });
  await tx.waitlistEntry.updateMany({ where: { holdId: hold.id, status: 'offered' }, data: { status: 'booked', updatedAt: now } });
  record.placesMoved(hold.serviceId);
}
