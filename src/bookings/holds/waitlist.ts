import { credentialIdOf } from '../../access/principal.js';
import type { Prisma, WaitlistEntry, WaitlistStatus } from '../../generated/prisma/client.js';
import type { Context } from '../../graphql/context.js';
import { AppError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { parseInput } from '../../shared/validation.js';
import { checkPartySize, checkSlot, findServiceOrFail, lockSlot } from '../places.js';
import { accountOf } from '../service.js';
import { inBookingTransaction, lockAccountQuotas } from '../transaction.js';
import { createWithKey, replayingCreated, requestHash } from '../idempotency.js';
import { createWaitlistEntrySchema } from '../validation.js';
import { holdStatus } from './hold.js';
import { holdOwnerOf, refuseHoldsPastCaps } from './holds.js';
import { endHold, offerFreedPlaces } from './offers.js';

/** The waitlist operations: join, read, list and withdraw; offers are made in offers.ts. */

/** Entries an account may have in lines at once (waiting for a slot that has not started, or offered). */
export const maxOpenWaitlistEntriesPerAccount = 1000;
/** Entries one booking widget token may have in lines at once: visitors of a public page cannot use up the account's. */
export const maxOpenWaitlistEntriesPerWidgetToken = 100;

/**
 * Adds an entry to a slot's line. Places free now are offered at once, in the same transaction, to
 * the earliest entries that fit (this one too, if none before it does): joining a line with room
 * answers an entry already offered a hold.
 */
export async function createWaitlistEntry(context: Context, rawInput: unknown, idempotencyKey: string | null): Promise<WaitlistEntry> {
  const owner = holdOwnerOf(context);
  const { accountId } = owner;
  const input = parseInput(createWaitlistEntrySchema(context.services.clock()), rawInput);
  const hash = requestHash('createWaitlistEntry', [
    input.serviceId,
    input.startTime.toISOString(),
    input.partySize,
    input.customer.name,
    input.customer.email,
    input.offerExpiresInSeconds,
  ]);
  const replay = replayingCreated((id) => findOwnWaitlistEntry(context, id));
  const { created } = await createWithKey(context, idempotencyKey, hash, replay, (key) =>
    inBookingTransaction(context, async (tx, now, record) => {
      await key.claim(tx, now);
      const service = await findServiceOrFail(tx, input.serviceId);
      checkSlot(service, input.startTime, now);
      checkPartySize(service, input.partySize);
      // Joined under the slot's lock: the place in line is drawn in the order joins take the lock, and
      // an entry before this one is committed, so offers made below see it.
      await lockSlot(tx, service.id, input.startTime);
      const { id } = await tx.waitlistEntry.create({
        data: {
          id: newId('waitlistEntry'),
          accountId,
          serviceId: service.id,
          startTime: input.startTime,
          partySize: input.partySize,
          customerName: input.customer.name,
          customerEmail: input.customer.email,
          offerSeconds: input.offerExpiresInSeconds,
          createdBy: credentialIdOf(context.principal!),
          createdAt: now,
          updatedAt: now,
        },
      });
      await offerFreedPlaces(tx, record, service.id, input.startTime, now);
      const entry = await tx.waitlistEntry.findUniqueOrThrow({ where: { id } });
      // An offer made at once is a hold of the caller's: the holds' caps apply to it as to one it placed.
      if (entry.status === 'offered') await refuseHoldsPastCaps(tx, owner, now);
      // Counted with this entry in, under the account's quota lock held to the commit (taken last, it
      // queues only the ends of racing creates): exactly those past the cap are refused.
      await lockAccountQuotas(tx, accountId);
      const open = { OR: [waitlistStatusWhere('waiting', now), waitlistStatusWhere('offered', now)] };
      const openInAccount = await tx.waitlistEntry.count({ where: { accountId, ...open } });
      if (openInAccount > maxOpenWaitlistEntriesPerAccount) {
        throw new AppError('too_many_waitlist_entries', `This account has ${openInAccount - 1} waitlist entries open, the most it may; withdraw some first.`);
      }
      if (owner.createdBy !== undefined) {
        const openByToken = await tx.waitlistEntry.count({ where: { createdBy: owner.createdBy, ...open } });
        if (openByToken > maxOpenWaitlistEntriesPerWidgetToken) {
          throw new AppError(
            'too_many_waitlist_entries',
            `This widget token has ${openByToken - 1} waitlist entries open, the most one may; try again once some are booked or their slots have started.`,
          );
        }
      }
      await key.keep(tx, id);
      return entry;
    }),
  );
  return created;
}

export async function findOwnWaitlistEntry(context: Context, id: string): Promise<WaitlistEntry> {
  const entry = await context.prisma.waitlistEntry.findFirst({ where: { id, accountId: accountOf(context) } });
  if (!entry) throw notFound('waitlist entry', id);
  return entry;
}

/**
 * The entries of a status as clients see it (hold.ts): the stored one, or one a time has passed
 * that no write has recorded yet (a slot that started, an offer's hold that expired).
 */
export function waitlistStatusWhere(status: WaitlistStatus, now: Date): Prisma.WaitlistEntryWhereInput {
  const slotStarted = { status: 'waiting' as const, startTime: { lte: now } };
  const offerLapsed = { status: 'offered' as const, hold: { status: 'held' as const, expiresAt: { lte: now } } };
  switch (status) {
    case 'waiting':
      return { status, startTime: { gt: now } };
    case 'offered':
      return { status, hold: { OR: [{ status: { not: 'held' } }, { expiresAt: { gt: now } }] } };
    case 'expired':
      return { OR: [{ status }, slotStarted, offerLapsed] };
    default:
      return { status };
  }
}

/**
 * Where a waiting entry stands in its slot's line: 1 + the entries of the slot still waiting that
 * joined before it (offered ones have left the line); null once it is not waiting.
 */
export async function placeInLine(context: Context, entry: Pick<WaitlistEntry, 'serviceId' | 'startTime' | 'position' | 'status'>): Promise<number | null> {
  const now = context.services.clock();
  if (entry.status !== 'waiting' || entry.startTime <= now) return null;
  const ahead = await context.prisma.waitlistEntry.count({
    where: { serviceId: entry.serviceId, startTime: entry.startTime, status: 'waiting', position: { lt: entry.position } },
  });
  return ahead + 1;
}

/**
 * Leaves the line: a waiting entry is withdrawn; an offered one is withdrawn and its hold released,
 * its places offered to the next entries. Withdrawing an entry that is no longer waiting or
 * offered (booked, expired, withdrawn) changes nothing.
 */
export async function withdrawWaitlistEntry(context: Context, id: string): Promise<WaitlistEntry> {
  const accountId = accountOf(context);
  return inBookingTransaction(context, async (tx, now, record) => {
    // The hold row before the entry's, in the order a booking, a release and the offers worker lock them.
    const offer = await tx.waitlistEntry.findFirst({ where: { id, accountId }, select: { holdId: true } });
    if (!offer) throw notFound('waitlist entry', id);
    if (offer.holdId) await tx.$executeRaw`SELECT 1 FROM holds WHERE id = ${offer.holdId} FOR UPDATE`;
    await tx.$executeRaw`SELECT 1 FROM waitlist_entries WHERE id = ${id} FOR UPDATE`;
    const entry = await tx.waitlistEntry.findUniqueOrThrow({ where: { id }, include: { hold: true } });
    const offeredHold = entry.status === 'offered' && entry.hold && holdStatus(entry.hold, now) === 'held' ? entry.hold : null;
    if (entry.status !== 'waiting' && !offeredHold) return entry;
    if (entry.status === 'waiting' && entry.startTime.getTime() <= now.getTime()) return entry;
    const withdrawn = await tx.waitlistEntry.update({ where: { id }, data: { status: 'withdrawn', updatedAt: now } });
    if (offeredHold) {
      // Offered since the first read: its hold is locked now, after the entry (rare, and a deadlock is run again).
      if (offeredHold.id !== offer.holdId) await tx.$executeRaw`SELECT 1 FROM holds WHERE id = ${offeredHold.id} FOR UPDATE`;
      // The entry is withdrawn already, so the ending finds no offered entry to change.
      await endHold(tx, record, offeredHold, { hold: 'released', entry: 'withdrawn' }, now);
    }
    return withdrawn;
  });
}
