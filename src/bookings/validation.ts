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

export function createBookingSchema(now: Date) {
  return z.object({
    serviceId,
    startTime: startTimeSchema(now),
    partySize: partySize.default(1),
    customer: z.object({ name, email }),
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

export type CreateBookingInput = z.output<ReturnType<typeof createBookingSchema>>;
export type UpdateBookingInput = z.output<ReturnType<typeof updateBookingSchema>>;
