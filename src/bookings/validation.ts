import { z } from 'zod';
import { parseUtcTimestamp } from '../graphql/scalars.js';

/** How far ahead a booking may start; further is almost certainly a typo in the year. */
const maxDaysAhead = 731;
/** Clock skew tolerated for a start time "now". */
const pastToleranceMs = 5 * 60_000;

function startTimeSchema(now: Date) {
  return z
    .string({ error: 'start_time is required: an ISO 8601 UTC timestamp such as 2026-10-31T19:00:00Z.' })
    .transform((value, context) => {
      const date = parseUtcTimestamp(value);
      if (!date) {
        context.addIssue({ code: 'custom', message: 'Use an ISO 8601 UTC timestamp ending in Z, such as 2026-10-31T19:00:00Z.' });
        return z.NEVER;
      }
      if (date.getTime() < now.getTime() - pastToleranceMs) {
        context.addIssue({ code: 'custom', message: 'start_time is in the past.' });
        return z.NEVER;
      }
      if (date.getTime() > now.getTime() + maxDaysAhead * 86_400_000) {
        context.addIssue({ code: 'custom', message: `start_time is more than ${maxDaysAhead} days ahead.` });
        return z.NEVER;
      }
      return date;
    });
}

const serviceId = z.string({ error: 'service_id is required.' }).regex(/^svc_[A-Za-z0-9]{1,64}$/, 'service_id must be a svc_… id.');
const name = z.string({ error: 'customer.name is required.' }).trim().min(1, 'customer.name must not be empty.').max(200);
const email = z.email({ error: 'customer.email must be an email address.' }).max(254);

export function createBookingSchema(now: Date) {
  return z.object({
    serviceId,
    startTime: startTimeSchema(now),
    customer: z.object({ name, email }, { error: 'customer is required: { name, email }.' }),
  });
}

export function updateBookingSchema(now: Date) {
  return z
    .object({
      serviceId: serviceId.optional(),
      startTime: startTimeSchema(now).optional(),
      customer: z.object({ name: name.optional(), email: email.optional() }).optional(),
    })
    .refine((input) => input.serviceId !== undefined || input.startTime !== undefined || input.customer !== undefined, {
      message: 'Send at least one of start_time, service_id or customer.',
    });
}

export type CreateBookingInput = z.output<ReturnType<typeof createBookingSchema>>;
export type UpdateBookingInput = z.output<ReturnType<typeof updateBookingSchema>>;
