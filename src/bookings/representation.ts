import type { Booking } from '../generated/prisma/client.js';
import { isoTimestamp } from '../shared/clock.js';
import { snakeCased, type SnakeCased } from '../shared/naming.js';

/**
 * A booking as REST answers it and webhooks deliver it (booking.created, .updated, .cancelled and the
 * event log): the Booking GraphQL type's fields in snake_case, times as the DateTime scalar writes
 * them, the status in lowercase, as stored. The REST operations' BookingFields fragment answers this
 * shape (src/rest/openapi checks it at compile time); the key order is the one webhooks have always signed.
 */
export type BookingRepresentation = SnakeCased<{
  id: string;
  status: Booking['status'];
  startTime: string;
  endTime: string;
  partySize: number;
  serviceId: string;
  customer: { name: string; email: string };
  createdAt: string;
  updatedAt: string;
  cancelledAt: string | null;
}>;

export function bookingRepresentation(booking: Booking): BookingRepresentation {
  return snakeCased({
    id: booking.id,
    status: booking.status,
    startTime: isoTimestamp(booking.startTime),
    endTime: isoTimestamp(booking.endTime),
    partySize: booking.partySize,
    serviceId: booking.serviceId,
    customer: { name: booking.customerName, email: booking.customerEmail },
    createdAt: isoTimestamp(booking.createdAt),
    updatedAt: isoTimestamp(booking.updatedAt),
    cancelledAt: booking.cancelledAt ? isoTimestamp(booking.cancelledAt) : null,
  });
}
