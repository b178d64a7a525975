import type { Hold } from '../../generated/prisma/client.js';
import { freePlaces, lockSlot, releaseHeldPlaces } from '../places.js';
import type { ChangeRecord, Tx } from '../transaction.js';
import { placeHold, waitlistEntryRepresentation } from './hold.js';

/**
 * Offers one transaction makes, and entries of the line it reads: a slot with many places freed at
 * once (a capacity raised) keeps its row locked for a bounded time, and the offers worker makes the
 * rest on its next polls.
 */
const maxOffersPerTransaction = 50;
const lineReadPerOffer = 500;

/**
 * Offers a slot's free places to its waitlist, in the transaction that freed them (a cancellation,
 * a reschedule or smaller party, a hold released or expired), so every freed place is offered or
 * left free exactly once. The fairness rule: entries are taken in the order they joined
 * (`position`, drawn under the slot's lock); each one whose party fits in the places free at that moment gets an offer,
 * a hold of its own for its offer lifetime, announced as waitlist.offered in its account's log. An
 * entry larger than what is free keeps its place in line: later entries that fit are offered the
 * places meanwhile (they would otherwise stay empty), and it is offered first once enough are free.
 */
export async function offerFreedPlaces(tx: Tx, record: ChangeRecord, serviceId: string, startTime: Date, now: Date): Promise<void> {
  if (startTime.getTime() <= now.getTime()) return;
  // Locked before the line is read, so an entry committed before the lock is seen, and none can be offered twice.
  await lockSlot(tx, serviceId, startTime);
  const waiting = await tx.waitlistEntry.findMany({ where: { serviceId, startTime, status: 'waiting' }, orderBy: { position: 'asc' }, take: lineReadPerOffer });
  if (waiting.length === 0) return;
  const service = await tx.service.findUniqueOrThrow({ where: { id: serviceId } });
  let free = await freePlaces(tx, service, startTime, now);
  let offers = 0;
  for (const entry of waiting) {
    if (free === 0 || offers === maxOffersPerTransaction) break;
    if (entry.partySize > free) continue;
    // Only while still waiting: an entry withdrawn since the line was read is passed over.
    const { count } = await tx.waitlistEntry.updateMany({ where: { id: entry.id, status: 'waiting' }, data: { status: 'offered', updatedAt: now } });
    if (count === 0) continue;
    const hold = await placeHold(
      tx,
      record,
      // The entry's credential's: a booking widget token's offers count in its holds, and it may book or release them.
      { accountId: entry.accountId, createdBy: entry.createdBy, service, startTime, partySize: entry.partySize, lifetimeSeconds: entry.offerSeconds },
      now,
    );
    const offered = await tx.waitlistEntry.update({ where: { id: entry.id }, data: { holdId: hold.id } });
    record.log({ accountId: entry.accountId, type: 'waitlist.offered', subject: { waitlistEntryId: entry.id }, data: waitlistEntryRepresentation(offered, hold, now) });
    free -= entry.partySize;
    offers++;
  }
}

/**
 * Ends a hold still held, before it is booked (released by its holder, or past its expiry): its
 * places go back and are offered to the slot's line, and the waitlist entry it was offered to, if
 * any, ends with it. The hold's row is locked by the caller.
 */
export async function endHold(tx: Tx, record: ChangeRecord, hold: Hold, ending: { hold: 'released' | 'expired'; entry: 'withdrawn' | 'expired' }, now: Date): Promise<Hold> {
  await releaseHeldPlaces(tx, hold, now);
  record.placesMoved(hold.serviceId);
  const ended = await tx.hold.update({ where: { id: hold.id }, data: { status: ending.hold, updatedAt: now } });
  await tx.waitlistEntry.updateMany({ where: { holdId: hold.id, status: 'offered' }, data: { status: ending.entry, updatedAt: now } });
  await offerFreedPlaces(tx, record, hold.serviceId, hold.startTime, now);
  return ended;
}
