import { z } from 'zod';
import { credentialIdOf } from '../../access/principal.js';
import { bookingRepresentation } from '../../bookings/representation.js';
import { isoTimestamp } from '../../shared/clock.js';
import { usageAlertPayload } from '../../analytics/alerts.js';
import type { Booking, Hold, Prisma, UsageAlert, WaitlistEntry, WebhookDelivery, WebhookEndpoint } from '../../generated/prisma/client.js';
import { waitlistEntryRepresentation } from '../../bookings/holds/hold.js';
import type { Context } from '../../graphql/context.js';
import { AppError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { parseInput } from '../../shared/validation.js';
import { webhookEventTypes, type BookingEventType, type WebhookEventType } from '../kinds.js';
import { bookingEventPayload, type BookingEventDetails, type LogEventPayload } from '../log.js';
import { findOwnEndpoint, requireScopeForEvents } from './endpoints.js';
import { nextMessagePosition } from './fanout.js';
import { attemptDelivery, attemptOptionsOf, leaseMarginMs, takeDeliveryTurn } from './worker.js';
import { currentTraceParent } from '../../tracing/tracing.js';

const hourMs = 3_600_000;
const dayMs = 24 * hourMs;

const testInput = z.object({
  event: z.enum(webhookEventTypes, { error: `event is one of ${webhookEventTypes.join(', ')}.` }).default('booking.created'),
});

/** A booking that could have caused `type`, with fresh ids that name no record. */
function exampleBooking(accountId: string, type: WebhookEventType, now: Date): Booking {
  const start = new Date(Math.floor(now.getTime() / dayMs) * dayMs + 7 * dayMs + 19 * hourMs);
  return {
    id: newId('booking'),
    accountId,
    serviceId: newId('service'),
    status: type === 'booking.cancelled' ? 'cancelled' : 'confirmed',
    startTime: start,
    endTime: new Date(start.getTime() + hourMs),
    partySize: 2,
    customerName: 'Test Customer',
    customerEmail: 'test.customer@example.com',
    createdAt: type === 'booking.created' ? now : new Date(now.getTime() - hourMs),
    updatedAt: now,
    cancelledAt: type === 'booking.cancelled' ? now : null,
  };
}

/** What a real event of `type` says besides the booking: an example booking.updated moved the visit an hour later. */
function exampleDetails(context: Context, type: BookingEventType, now: Date): BookingEventDetails {
  if (type === 'booking.cancelled') return { cancellation: { by: credentialIdOf(context.principal!), reason: 'Example reason: plans changed.' } };
  if (type !== 'booking.updated') return {};
  const booking = bookingRepresentation(exampleBooking(context.principal!.accountId, type, now));
  const earlier = (time: string) => isoTimestamp(new Date(Date.parse(time) - hourMs));
  return { previous_attributes: { start_time: earlier(booking.start_time), end_time: earlier(booking.end_time), updated_at: booking.created_at } };
}

/** An offer to a made-up waitlist entry of a party of 2, whose hold lasts 10 minutes. */
function exampleOffer(messageId: string, accountId: string, now: Date): LogEventPayload {
  const booking = exampleBooking(accountId, 'waitlist.offered', now);
  const entry: WaitlistEntry = {
    id: newId('waitlistEntry'),
    accountId,
    serviceId: booking.serviceId,
    startTime: booking.startTime,
    partySize: booking.partySize,
    customerName: booking.customerName,
    customerEmail: booking.customerEmail,
    status: 'offered',
    position: 0n,
    offerSeconds: 600,
    holdId: newId('hold'),
    createdBy: null,
    createdAt: new Date(now.getTime() - hourMs),
    updatedAt: now,
  };
  const hold: Hold = {
    id: entry.holdId!,
    accountId,
    createdBy: null,
    serviceId: entry.serviceId,
    startTime: entry.startTime,
    endTime: booking.endTime,
    partySize: entry.partySize,
    status: 'held',
    expiresAt: new Date(now.getTime() + entry.offerSeconds * 1000),
    bookingId: null,
    createdAt: now,
    updatedAt: now,
  };
  return { id: messageId, event: 'waitlist.offered', created: isoTimestamp(now), data: waitlistEntryRepresentation(entry, hold, now) };
}

/** A daily_requests alert of the calling key (or of a made-up one) reaching its threshold today. */
function exampleUsageAlert(context: Context, now: Date): UsageAlert {
  const principal = context.principal!;
  const windowStart = new Date(Math.floor(now.getTime() / dayMs) * dayMs);
  return {
    id: newId('usageAlert'),
    ruleId: newId('alertRule'),
    apiKeyId: principal.kind === 'api_key' ? principal.keyId : newId('apiKey'),
    accountId: principal.accountId,
    metric: 'daily_requests',
    threshold: 10_000,
    value: 10_000,
    windowStart,
    windowEnd: new Date(windowStart.getTime() + dayMs),
    createdAt: now,
  };
}

/**
 * The body of a test event: what a real event of `type` carries, built by the same code, with
 * example data and `"test": true` (inside the signed body, so a receiver can trust the marker).
 */
function testEventBody(context: Context, type: WebhookEventType, messageId: string, now: Date): Prisma.InputJsonObject {
  const real =
    type === 'api_key.usage_alert'
      ? usageAlertPayload(messageId, exampleUsageAlert(context, now), 1440)
      : type === 'waitlist.offered'
        ? exampleOffer(messageId, context.principal!.accountId, now)
        : bookingEventPayload(messageId, type, exampleBooking(context.principal!.accountId, type, now), now, exampleDetails(context, type, now));
  return { ...(real as unknown as Prisma.InputJsonObject), test: true };
}

function receives(endpoint: WebhookEndpoint, type: WebhookEventType): boolean {
  return endpoint.events.length === 0 || endpoint.events.includes(type);
}

/**
 * Sends an endpoint a signed test event of a chosen kind now, through the delivery code real events
 * take (signature, address guards, deadline, answer bound), and records it as one of the endpoint's
 * deliveries. It never enters the booking log: no other endpoint or subscriber sees it. A test is
 * attempted once, never retried, so it cannot hold up the endpoint's real deliveries.
 */
export async function sendTestEvent(context: Context, endpointId: string, rawInput: unknown): Promise<WebhookDelivery> {
  const { event: type } = parseInput(testInput, rawInput ?? {});
  const endpoint = await findOwnEndpoint(context, endpointId);
  requireScopeForEvents(context, [type]);
  if (!receives(endpoint, type)) {
    const message = `This endpoint does not receive ${type} (its events are ${endpoint.events.join(', ')}); send one of those, or add ${type} to its events.`;
    throw new AppError('validation_failed', message, { fieldErrors: [{ field: 'event', code: 'invalid', message }] });
  }
  const { services } = context;
  const messageId = newId('bookingEvent');
  const delivery = await context.prisma.$transaction(async (tx) => {
    // As a claim would: an endpoint receives one delivery at a time.
    await takeDeliveryTurn(tx);
    // Leased from here (after the wait for the turn), so no worker claims it while it is being sent.
    const now = services.clock();
    const lockedUntil = new Date(now.getTime() + services.config.WEBHOOK_TIMEOUT_MS + leaseMarginMs);
    const sending = await tx.webhookDelivery.count({ where: { endpointId: endpoint.id, status: 'pending', lockedUntil: { gt: now } } });
    if (sending > 0) {
      throw new AppError('endpoint_busy', 'A delivery to this endpoint is being sent, and an endpoint receives one at a time; send the test once it is answered.');
    }
    return tx.webhookDelivery.create({
      data: {
        id: newId('webhookDelivery'),
        endpointId: endpoint.id,
        messageId,
        eventType: type,
        // A fresh position, after the endpoint's queued deliveries: it never stands before them.
        seq: await nextMessagePosition(tx),
        payload: testEventBody(context, type, messageId, now),
        attemptCount: 1,
        nextAttemptAt: now,
        lockedUntil,
        createdAt: now,
      },
    });
  });
  await attemptDelivery(attemptOptionsOf(services.config, { prisma: context.prisma, logger: services.logger, clock: services.clock, secrets: services.secrets }), {
    id: delivery.id,
    endpoint_id: endpoint.id,
    message_id: messageId,
    payload: delivery.payload,
    attempt_count: 1,
    locked_until: delivery.lockedUntil!,
    trace_parent: currentTraceParent(context.requestTrace),
  });
  return delivery;
}
