import type { Logger } from 'pino';
import { Prisma } from '../../generated/prisma/client.js';
import { heldPlacesSql } from '../availability.js';
import { inBookingTransaction, type TransactionScope } from '../transaction.js';
import { pollingLoop } from '../../shared/polling.js';
import { endHold, offerFreedPlaces } from './offers.js';

/**
 * The offers worker: what no request does when time alone frees places. Capacity never waits for
 * it (an expired hold counts for nothing from its expiry on); it makes the offers those places are
 * owed. Every instance runs one: each step locks the rows it changes and checks them again, so two
 * instances never settle a hold or offer a place twice, and what one misses (a crash) the next
 * poll of any instance does, from the database.
 */

/**
 * Begins the statements of a poll that finds nothing to do, every WAITLIST_POLL_MS on every instance:
 * what counts a request's statements (tests, bench/statement-recorder.ts) leaves them out by it.
 */
export const offersWorkerPollComment = '/* offers worker poll */';
const pollTag = Prisma.raw(offersWorkerPollComment);

/** Rows each step takes per poll; the rest wait for the next one. */
const batch = 50;

export interface OffersWorkerOptions extends TransactionScope {
  logger: Logger;
  pollMs: number;
}

export function createOffersWorker(options: OffersWorkerOptions) {
  const { prisma, logger } = options;
  const clock = options.services.clock;

  /** Holds past their expiry still recorded as held: recorded expired, and their places offered to the slot's line. */
  async function settleExpiredHolds(): Promise<void> {
    const due = await prisma.$queryRaw<{ id: string }[]>`${pollTag}
      SELECT id FROM holds WHERE status = 'held' AND expires_at <= ${clock().toISOString()}::timestamp ORDER BY expires_at LIMIT ${batch}`;
    for (const { id } of due) {
      await inBookingTransaction(options, async (tx, now, record) => {
        await tx.$executeRaw`SELECT 1 FROM holds WHERE id = ${id} FOR UPDATE`;
        const hold = await tx.hold.findUnique({ where: { id } });
        // Another instance settled it, or it was booked or released just before it expired.
        if (!hold || hold.status !== 'held' || hold.expiresAt.getTime() > now.getTime()) return;
        await endHold(tx, record, hold, { hold: 'expired', entry: 'expired' }, now);
      });
    }
  }

  /**
   * Slots whose line has an entry that fits in the places free now, though nothing freed them in a
   * transaction that offers (an operator raised the capacity, or an offer was missed): offered now.
   * Read without locks first, so a poll with nothing owed writes nothing.
   */
  async function offerWhereRoom(): Promise<void> {
    const now = clock();
    const owed = await prisma.$queryRaw<{ service_id: string; start_time: Date }[]>`${pollTag}
      SELECT line.service_id, line.start_time FROM (
        SELECT service_id, start_time, min(party_size) AS smallest FROM waitlist_entries
        WHERE status = 'waiting' AND start_time > ${now.toISOString()}::timestamp
        GROUP BY service_id, start_time) line
      JOIN services ON services.id = line.service_id
      LEFT JOIN booking_slots ON booking_slots.service_id = line.service_id AND booking_slots.start_time = line.start_time
      WHERE services.capacity - coalesce(booking_slots.places_taken + ${heldPlacesSql(now.getTime())}, 0) >= line.smallest
      LIMIT ${batch}`;
    for (const slot of owed) {
      await inBookingTransaction(options, (tx, at, record) => offerFreedPlaces(tx, record, slot.service_id, slot.start_time, at));
    }
  }

  async function pollOnce(): Promise<void> {
    try {
      await settleExpiredHolds();
      await offerWhereRoom();
    } catch (error) {
      logger.warn({ err: error }, 'offers worker: poll failed; the next one tries again');
    }
  }

  const loop = pollingLoop(options.pollMs, pollOnce);
  return { start: loop.start, stop: loop.stop };
}

export type OffersWorker = ReturnType<typeof createOffersWorker>;
