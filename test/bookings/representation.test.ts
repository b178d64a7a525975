import { describe, expect, it } from 'vitest';
import { bookingEventPayload } from '../../src/events/log.js';
import type { Booking } from '../../src/generated/prisma/client.js';

const booking: Booking = {
  id: 'bkg_1',
  accountId: 'acc_1',
  serviceId: 'svc_1',
  status: 'confirmed',
  startTime: new Date('2026-10-31T19:00:00Z'),
  endTime: new Date('2026-10-31T19:45:00Z'),
  partySize: 3,
  customerName: 'Ada',
  customerEmail: 'ada@example.com',
  createdAt: new Date('2026-10-01T08:00:00.123Z'),
  updatedAt: new Date('2026-10-02T09:30:00Z'),
  cancelledAt: null,
};

describe('the booking representation in a webhook body', () => {
  // Standard Webhooks signatures cover these bytes: the keys, their order and the time format stay.
  it('is the bytes receivers have always verified', () => {
    expect(JSON.stringify(bookingEventPayload('bevt_1', 'booking.created', booking, new Date('2026-10-01T08:00:00.123Z')))).toBe(
      '{"id":"bevt_1","event":"booking.created","created":"2026-10-01T08:00:00.123Z","data":{"id":"bkg_1","status":"confirmed",' +
        '"start_time":"2026-10-31T19:00:00Z","end_time":"2026-10-31T19:45:00Z","party_size":3,"service_id":"svc_1",' +
        '"customer":{"name":"Ada","email":"ada@example.com"},"created_at":"2026-10-01T08:00:00.123Z","updated_at":"2026-10-02T09:30:00Z","cancelled_at":null}}',
    );
  });

  it('dates a cancellation', () => {
    const cancelled = { ...booking, status: 'cancelled' as const, cancelledAt: new Date('2026-10-03T10:00:00Z') };
    const { data } = bookingEventPayload('bevt_2', 'booking.cancelled', cancelled, cancelled.cancelledAt);
    expect(data).toMatchObject({ status: 'cancelled', cancelled_at: '2026-10-03T10:00:00Z' });
    expect(Object.keys(data).at(-1)).toBe('cancelled_at');
  });
});
