import type { Booking, BookingEvent, Prisma } from '../generated/prisma/client.js';
import { bookingRepresentation, type BookingRepresentation } from '../bookings/representation.js';
import { isoTimestamp as iso } from '../shared/clock.js';
import { newId } from '../shared/ids.js';
import type { BookingEventType, LogEventType } from './kinds.js';
import { enqueueDeliveries } from './webhooks/fanout.js';
import { currentTraceParent, inSpan } from '../tracing/tracing.js';

/** Who cancelled a booking: the `key_…` id of the API key that asked, or `operator` for a change made without one. */
export interface Cancellation {
  by: string;
  reason: string | null;
}

/**
 * What an event says besides the booking: `previous_attributes` on booking.updated (the fields that
 * changed, with their values before, in the booking's REST names, as Stripe's events do) and
 * `cancellation` on booking.cancelled.
 */
export interface BookingEventDetails {
  previous_attributes?: Partial<BookingRepresentation>;
  cancellation?: Cancellation;
}

/** The booking in the shape REST answers with, and the event's details after its fields. */
export type BookingEventData = BookingRepresentation & BookingEventDetails;

/** The event body exactly as webhooks deliver it and subscriptions expose it. */
export interface LogEventPayload<Type extends LogEventType = LogEventType, Data = object> {
  id: string;
  event: Type;
  created: string;
  data: Data;
}

export type BookingEventPayload = LogEventPayload<BookingEventType, BookingEventData>;

/** A booking event's data: the booking as REST answers it, then what the event says besides. */
export function bookingEventData(booking: Booking, details: BookingEventDetails = {}): BookingEventData {
  return { ...bookingRepresentation(booking), ...details };
}

/** The body of `booking`'s event `type`: the one builder of real events and of test events alike. */
export function bookingEventPayload(eventId: string, type: BookingEventType, booking: Booking, created: Date, details: BookingEventDetails = {}): BookingEventPayload {
  return { id: eventId, event: type, created: iso(created), data: bookingEventData(booking, details) };
}

/**
 * The fields of `before` whose values `after` changed, with their values in `before`; a nested
 * object (the customer) keeps only its fields that changed.
 */
export function previousAttributes(before: BookingRepresentation, after: BookingRepresentation): Partial<BookingRepresentation> {
  const changed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(before) as [keyof BookingRepresentation, unknown][]) {
    const next: unknown = after[key];
    if (value !== null && typeof value === 'object' && next !== null && typeof next === 'object') {
      const nested = Object.fromEntries(Object.entries(value).filter(([field, old]) => (next as Record<string, unknown>)[field] !== old));
      if (Object.keys(nested).length) changed[key] = nested;
    } else if (value !== next) {
      changed[key] = value;
    }
  }
  return changed as Partial<BookingRepresentation>;
}

/** What appendLogEvent writes: an event of an account's log, about a booking or a waitlist entry. */
export interface LogEventInput {
  accountId: string;
  type: LogEventType;
  subject: { bookingId: string } | { waitlistEntryId: string };
  data: object;
}

/**
 * Appends an event to the account's durable log and queues its webhook deliveries. Call it with the
 * transaction client that made the change, so the event exists if and only if the change commits.
 */
export async function appendLogEvent(tx: Prisma.TransactionClient, input: LogEventInput, now: Date): Promise<BookingEvent> {
  const id = newId('bookingEvent');
  return inSpan('booking log append', { 'hallowgate.event.id': id, 'hallowgate.event.type': input.type }, async () => {
    const payload: LogEventPayload = { id, event: input.type, created: iso(now), data: input.data };
    const event = await tx.bookingEvent.create({
      data: {
        id,
        accountId: input.accountId,
        ...input.subject,
        type: input.type,
        payload: payload as unknown as Prisma.InputJsonValue,
        createdAt: now,
        // This span's, so the event's deliveries and the subscribers it reaches link back to it.
        traceParent: currentTraceParent(),
      },
    });
    await enqueueDeliveries(tx, {
      accountId: event.accountId,
      messageId: event.id,
      type: input.type,
      seq: event.seq,
      payload: event.payload as Prisma.InputJsonValue,
      createdAt: event.createdAt,
      traceParent: event.traceParent,
    });
    return event;
  });
}
