/** The kinds of message the events domain carries, apart from the modules that produce them. */

export const bookingEventTypes = ['booking.created', 'booking.updated', 'booking.cancelled'] as const;
export type BookingEventType = (typeof bookingEventTypes)[number];

/** Everything a webhook endpoint can subscribe to: the booking log, and usage alerts of the account's keys. */
export const webhookEventTypes = [...bookingEventTypes, 'api_key.usage_alert'] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];
