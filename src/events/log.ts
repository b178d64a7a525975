import type { Booking, BookingEvent, Prisma } from '../generated/prisma/client.js';
import type { BookingFieldsFragment } from '../rest/__generated__/graphql.js';
import { isoTimestamp as iso } from '../shared/clock.js';
import { newId } from '../shared/ids.js';
import type { BookingEventType } from './kinds.js';
import { enqueueDeliveries } from './webhooks/fanout.js';

/** The event body exactly as webhooks deliver it and subscriptions expose it. */
export interface BookingEventPayload {
  id: string;
  event: BookingEventType;
  created: string;
  /**
   * The booking in the shape REST answers with: the type of its GraphQL fragment, so a field added
   * to, dropped from or renamed in either one fails to compile in payloadFor. REST sends enum
   * values in lowercase, as stored.
   */
  data: Omit<BookingFieldsFragment, 'status'> & { status: Booking['status'] };
}

function payloadFor(eventId: string, type: BookingEventType, booking: Booking, created: Date): BookingEventPayload {
  return {
    id: eventId,
    event: type,
    created: iso(created),
    // An object literal, so TypeScript refuses any field the fragment lacks as well as a missing one.
    data: {
      id: booking.id,
      status: booking.status,
      start_time: iso(booking.startTime),
      end_time: iso(booking.endTime),
      party_size: booking.partySize,
      service_id: booking.serviceId,
      customer: { name: booking.customerName, email: booking.customerEmail },
      created_at: iso(booking.createdAt),
      updated_at: iso(booking.updatedAt),
      cancelled_at: booking.cancelledAt ? iso(booking.cancelledAt) : null,
    },
  };
}

/**
 * Appends a booking change to the durable log and queues its webhook deliveries. Call it with the
 * transaction client that made the change, so the event exists if and only if the change commits.
 */
export async function appendBookingEvent(tx: Prisma.TransactionClient, booking: Booking, type: BookingEventType, now: Date): Promise<BookingEvent> {
  const id = newId('bookingEvent');
  const event = await tx.bookingEvent.create({
    data: {
      id,
      accountId: booking.accountId,
      bookingId: booking.id,
      type,
      payload: payloadFor(id, type, booking, now) as unknown as Prisma.InputJsonValue,
      createdAt: now,
    },
  });
  await enqueueDeliveries(tx, {
    accountId: event.accountId,
    messageId: event.id,
    type,
    seq: event.seq,
    payload: event.payload as Prisma.InputJsonValue,
    createdAt: event.createdAt,
  });
  return event;
}
