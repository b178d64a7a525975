import { z } from 'zod';

/** How far ahead a booking may start; further is almost certainly a typo in the year. */
const maxDaysAhead = 731;
/** A slot that has started is past: it can no longer be booked or moved to. */
function startTimeSchema(now: Date) {
  return z.date().superRefine((date, context) => {
    if (date.getTime() <= now.getTime()) {
      context.addIssue({ code: 'custom', message: 'startTime is in the past.', params: { code: 'in_past' } });
    } else if (date.getTime() > now.getTime() + maxDaysAhead * 86_400_000) {
      context.addIssue({ code: 'custom', message: `startTime is more than ${maxDaysAhead} days ahead.`, params: { code: 'too_far_ahead' } });
    }
  });
}

// Messages name fields as GraphQL does; REST renames them to its snake_case names.
const serviceId = z.string().regex(/^svc_[A-Za-z0-9]{1,64}$/, 'serviceId must be a svc_… id.');
const name = z.string().trim().min(1, 'customer.name must not be empty.').max(200, 'customer.name is at most 200 characters.');
const email = z.email({ error: 'customer.email must be an email address.' }).max(254, 'customer.email is at most 254 characters.');
// At most the service's capacity, which the booking's transaction checks.
const partySize = z.number().int('partySize must be a whole number.').min(1, 'partySize is at least 1.');

const customer = z.object({ name, email });
/** A rule over several fields runs even when a field failed on its own, so one answer names every problem. */
const everyErrorAtOnce = { when: () => true };
const holdId = z.string().regex(/^hold_[A-Za-z0-9]{1,64}$/, 'holdId must be a hold_… id.');
/** The fields a hold fixes: a booking made with one takes them from it. */
const heldFields = ['serviceId', 'startTime', 'partySize'] as const;

/**
 * A booking of a slot (serviceId, startTime, partySize, customer), or of a hold (holdId, and the
 * customer, which a waitlist offer's hold already has).
 */
export function createBookingSchema(now: Date) {
  return z
    .object({
      holdId: holdId.optional(),
      serviceId: serviceId.optional(),
      startTime: startTimeSchema(now).optional(),
      partySize: partySize.optional(),
      customer: customer.optional(),
    })
    .superRefine((input, context) => {
      if (input.holdId !== undefined) {
        for (const field of heldFields.filter((field) => input[field] !== undefined)) {
          context.addIssue({ code: 'custom', path: [field], message: `${field} comes from the hold: send holdId without it.`, params: { code: 'not_with_hold' } });
        }
        return;
      }
      for (const field of ['serviceId', 'startTime', 'customer'] as const) {
        if (input[field] === undefined) context.addIssue({ code: 'custom', path: [field], message: `${field} is required (or holdId, for a hold's places).` });
      }
    }, everyErrorAtOnce);
}

/** How long a hold lasts, in seconds: the client chooses within these bounds. */
export const holdLifetime = { min: 60, max: 1800, default: 600 } as const;
const lifetimeSeconds = (field: string) =>
  z
    .number()
    .int(`${field} must be a whole number.`)
    .min(holdLifetime.min, `${field} is at least ${holdLifetime.min}.`)
    .max(holdLifetime.max, `${field} is at most ${holdLifetime.max}.`)
    .default(holdLifetime.default);

export function createHoldSchema(now: Date) {
  return z.object({ serviceId, startTime: startTimeSchema(now), partySize: partySize.default(1), expiresInSeconds: lifetimeSeconds('expiresInSeconds') });
}

/** A place in line for a slot; an offer makes a hold for offerExpiresInSeconds. */
export function createWaitlistEntrySchema(now: Date) {
  return z.object({
    serviceId,
    startTime: startTimeSchema(now),
    partySize: partySize.default(1),
    customer,
    offerExpiresInSeconds: lifetimeSeconds('offerExpiresInSeconds'),
  });
}

export function updateBookingSchema(now: Date) {
  return z
    .object({
      serviceId: serviceId.optional(),
      startTime: startTimeSchema(now).optional(),
      partySize: partySize.optional(),
      customer: z.object({ name: name.optional(), email: email.optional() }).optional(),
    })
    .refine((input) => input.serviceId !== undefined || input.startTime !== undefined || input.partySize !== undefined || input.customer !== undefined, {
      message: 'Send at least one of startTime, serviceId, partySize or customer.',
    });
}

/** Why a booking is cancelled, as the client says it; events carry it to receivers. */
export const cancelBookingSchema = z.object({
  reason: z.string().max(500, 'reason is at most 500 characters.').nullish(),
});

export type CreateBookingInput = z.output<ReturnType<typeof createBookingSchema>>;
export type CreateHoldInput = z.output<ReturnType<typeof createHoldSchema>>;
export type CreateWaitlistEntryInput = z.output<ReturnType<typeof createWaitlistEntrySchema>>;
export type UpdateBookingInput = z.output<ReturnType<typeof updateBookingSchema>>;
