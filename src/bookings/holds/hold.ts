import type { Hold, HoldStatus, Service, WaitlistEntry, WaitlistStatus } from '../../generated/prisma/client.js';
import { isoTimestamp } from '../../shared/clock.js';
import { notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { snakeCased, type SnakeCased } from '../../shared/naming.js';
import { endOf, reservePlaces } from '../places.js';
import type { ChangeRecord, Tx } from '../transaction.js';

/** Holds: a slot's places kept for a while, for a checkout or a waitlist offer; what holds, waitlists and offers share. */

/** A hold's status as clients see it: one still `held` past its expiry is expired, whether or not the offers worker has settled it. */
export function holdStatus(hold: Pick<Hold, 'status' | 'expiresAt'>, now: Date): HoldStatus {
  return hold.status === 'held' && hold.expiresAt.getTime() <= now.getTime() ? 'expired' : hold.status;
}

/** A waitlist entry's status as clients see it: waiting for a slot that has started, or offered a hold that expired, is expired. */
export function waitlistEntryStatus(entry: Pick<WaitlistEntry, 'status' | 'startTime'>, hold: Pick<Hold, 'status' | 'expiresAt'> | null, now: Date): WaitlistStatus {
  if (entry.status === 'waiting' && entry.startTime.getTime() <= now.getTime()) return 'expired';
  if (entry.status === 'offered' && hold && holdStatus(hold, now) === 'expired') return 'expired';
  return entry.status;
}

/**
 * A waitlist entry as REST answers it and waitlist.offered carries it: the WaitlistEntry GraphQL
 * type's fields in snake_case (the REST operations' WaitlistEntryFields fragment answers this shape).
 */
export type WaitlistEntryRepresentation = SnakeCased<{
  id: string;
  serviceId: string;
  startTime: string;
  partySize: number;
  customer: { name: string; email: string };
  status: WaitlistStatus;
  offer: { holdId: string; expiresAt: string } | null;
  createdAt: string;
}>;

export function waitlistEntryRepresentation(entry: WaitlistEntry, hold: Hold | null, now: Date): WaitlistEntryRepresentation {
  return snakeCased({
    id: entry.id,
    serviceId: entry.serviceId,
    startTime: isoTimestamp(entry.startTime),
    partySize: entry.partySize,
    customer: { name: entry.customerName, email: entry.customerEmail },
    status: waitlistEntryStatus(entry, hold, now),
    offer: hold ? { holdId: hold.id, expiresAt: isoTimestamp(hold.expiresAt) } : null,
    createdAt: isoTimestamp(entry.createdAt),
  });
}

export interface HoldRequest {
  accountId: string;
  /** The credential making it, or, for a waitlist offer, the one that joined the line (null for an entry older than that record). */
  createdBy: string | null;
  service: Service;
  startTime: Date;
  partySize: number;
  lifetimeSeconds: number;
}

/** Makes a hold and takes its places in the slot, as a booking would (409 slot_full when they are not free). */
export async function placeHold(tx: Tx, record: ChangeRecord, request: HoldRequest, now: Date): Promise<Hold> {
  const id = newId('hold');
  // A hold lasts at most until its slot starts: its places cannot be booked after that.
  const expiresAt = new Date(Math.min(now.getTime() + request.lifetimeSeconds * 1000, request.startTime.getTime()));
  await reservePlaces(tx, request.service, request.startTime, request.partySize, now, { id, places: request.partySize, until: expiresAt.getTime() });
  record.placesMoved(request.service.id);
  return tx.hold.create({
    data: {
      id,
      accountId: request.accountId,
      createdBy: request.createdBy,
      serviceId: request.service.id,
      startTime: request.startTime,
      endTime: endOf(request.service, request.startTime),
      partySize: request.partySize,
      expiresAt,
      createdAt: now,
      updatedAt: now,
    },
  });
}

/**
 * The holds a caller may use: its account's, or, for a widget token (public, on pages anyone opens),
 * only those it made, so a visitor cannot release or book another's hold whose id it learned.
 */
export interface HoldOwner {
  accountId: string;
  createdBy?: string;
}

/** A hold of the owner, locked until commit; anyone else's hold is "not found". */
export async function lockHold(tx: Tx, owner: HoldOwner, id: string): Promise<Hold> {
  await tx.$executeRaw`SELECT 1 FROM holds WHERE id = ${id} AND account_id = ${owner.accountId} FOR UPDATE`;
  const hold = await tx.hold.findFirst({ where: { id, ...owner } });
  if (!hold) throw notFound('hold', id);
  return hold;
}
