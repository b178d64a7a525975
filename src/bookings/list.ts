import type { Prisma } from '../generated/prisma/client.js';
import { decodeKeysetCursor, encodeKeysetCursor } from '../graphql/argument-checks.js';
import { AppError } from '../shared/errors.js';

/**
 * The orders the bookings list pages in, and its cursors. A cursor names its order and the values
 * of the order's key in the last row sent (keyset paging): the next page starts after those values
 * even if that row changed since, which an update-ordered re-sync needs (a changed row moves to the
 * end). A cursor is refused under another order than its own, rather than answering an unrelated page.
 */

export type BookingListOrder = 'start_time' | 'updated_at';

const orderKeys = { start_time: 'startTime', updated_at: 'updatedAt' } as const;

/** The order a list's arguments ask for: by update when the client re-syncs with updatedSince, by start time otherwise. */
export const bookingListOrder = (updatedSince: Date | null | undefined): BookingListOrder => (updatedSince ? 'updated_at' : 'start_time');

export function bookingListOrderBy(order: BookingListOrder, backwards: boolean): Prisma.BookingOrderByWithRelationInput[] {
  const direction = backwards ? 'desc' : 'asc';
  return [{ [orderKeys[order]]: direction }, { id: direction }];
}

export function bookingListCursor(order: BookingListOrder, booking: { id: string; startTime: Date; updatedAt: Date }): string {
  return encodeKeysetCursor({ order, at: booking[orderKeys[order]], id: booking.id });
}

/**
 * The rows after (or, `backwards`, before) a cursor in its order, as a where clause; 400
 * invalid_parameter naming the argument for a cursor of another list, or made in another order.
 */
export function beyondBookingListCursor(cursor: string, argument: 'after' | 'before', order: BookingListOrder, backwards: boolean): Prisma.BookingWhereInput {
  const decoded = decodeKeysetCursor(cursor);
  if (decoded?.order !== order) {
    const how = decoded?.order === 'updated_at' ? 'with updatedSince' : decoded?.order === 'start_time' ? 'without updatedSince' : undefined;
    const message = how
      ? `${argument} pages bookings by ${decoded!.order}: send it ${how}, as the page that answered it was asked.`
      : `${argument} is not a cursor of the bookings list; send the cursor one of its pages answered.`;
    throw new AppError('invalid_parameter', message, { fieldErrors: [{ field: argument, code: 'invalid_cursor', message }] });
  }
  const key = orderKeys[order];
  const beyond = backwards ? 'lt' : 'gt';
  return { OR: [{ [key]: { [beyond]: decoded.at } }, { [key]: decoded.at, id: { [beyond]: decoded.id } }] };
}
