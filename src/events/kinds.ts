/** The kinds of message the events domain carries, apart from the modules that produce them. */

export const bookingEventTypes = ['booking.created', 'booking.updated', 'booking.cancelled'] as const;
export type BookingEventType = (typeof bookingEventTypes)[number];

/** Everything the account's durable log holds: booking changes, and offers of places to its waitlist entries. */
export const logEventTypes = [...bookingEventTypes, 'waitlist.offered'] as const;
export type LogEventType = (typeof logEventTypes)[number];

/** A log event type's name in the GraphQL enum BookingEventType: booking.created → CREATED (as before waitlists), waitlist.offered → WAITLIST_OFFERED. */
export const logEventEnumName = (type: LogEventType): string => (type.startsWith('booking.') ? type.slice('booking.'.length) : type.replace('.', '_')).toUpperCase();

/** Everything a webhook endpoint can subscribe to: the log, and usage alerts of the account's keys. */
export const webhookEventTypes = [...logEventTypes, 'api_key.usage_alert'] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];
