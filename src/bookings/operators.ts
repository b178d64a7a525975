import { z } from 'zod';
import { Prisma, type PrismaClient, type Service } from '../generated/prisma/client.js';
import { notFound, validationFailed, type FieldError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { parseInput } from '../shared/validation.js';
import { isTimeZone, localTimeMinutes, minSlotMinutes, openingMinutes, wallClockStarts, type OpeningHours } from './schedule.js';

/**
 * Operator rules for services and their schedules: one place, used by the GraphQL mutations (and
 * so by the REST admin routes and the CLI). A schedule change only changes which slots are offered
 * from now on: confirmed bookings keep their slot, end time and places.
 */

// Messages name fields as GraphQL does; REST renames them to its snake_case names.
const localTime = (field: string) =>
  z.string().refine((text) => localTimeMinutes(text) !== null, { message: `${field} must be a local time HH:MM from 00:00 to 23:59.`, params: { code: 'invalid' } });

const opening = z
  .object({
    weekday: z.number().int().min(1, 'weekday is 1 (Monday) to 7 (Sunday).').max(7, 'weekday is 1 (Monday) to 7 (Sunday).'),
    opens: localTime('opens'),
    closes: localTime('closes'),
  })
  .refine((hours) => hours.opens !== hours.closes, {
    path: ['closes'],
    message: 'closes must differ from opens; a closing time earlier than the opening time is after midnight.',
    params: { code: 'invalid' },
  });

/** Openings one service may have. */
export const maxOpeningHours = 100;

const fields = {
  attractionId: z.string().regex(/^at_[A-Za-z0-9]{1,64}$/, 'attractionId must be an at_… id.'),
  name: z.string().trim().min(1, 'name must not be empty.').max(200, 'name is at most 200 characters.'),
  durationMinutes: z.number().int().min(1, 'durationMinutes is at least 1.').max(1440, 'durationMinutes is at most 1440 (a day).'),
  capacity: z.number().int().min(1, 'capacity is at least 1.').max(100_000, 'capacity is at most 100,000.'),
  timezone: z.string().refine(isTimeZone, { message: 'timezone must be an IANA time zone name such as America/Chicago.', params: { code: 'unknown_time_zone' } }),
  slotMinutes: z.number().int().min(minSlotMinutes, `slotMinutes is at least ${minSlotMinutes}.`).max(1440, 'slotMinutes is at most 1440 (a day).'),
  seasonStart: z.date(),
  seasonEnd: z.date(),
  openingHours: z.array(opening).max(maxOpeningHours, `openingHours has at most ${maxOpeningHours} openings.`),
};

/** The rules of a new service's fields (CreateServiceInput's, so one answer names type and rule errors together). */
export const newServiceInput = z.object(fields);

const serviceChange = z
  .object({
    attractionId: fields.attractionId.optional(),
    name: fields.name.optional(),
    durationMinutes: fields.durationMinutes.optional(),
    capacity: fields.capacity.optional(),
    timezone: fields.timezone.optional(),
    slotMinutes: fields.slotMinutes.optional(),
    seasonStart: fields.seasonStart.optional(),
    seasonEnd: fields.seasonEnd.optional(),
    openingHours: fields.openingHours.optional(),
  })
  .refine((input) => Object.values(input).some((value) => value !== undefined), { message: 'Send at least one field to change.' });

type ServiceFields = z.output<typeof newServiceInput>;

/**
 * Rules across fields, on the service as it would be: the season ends on or after its first day,
 * and every opening is long enough for one visit (else it could never hold a slot). An opening too
 * short is blamed on the field the request changed: the opening, or the duration.
 */
function checkSchedule(service: ServiceFields, given: Partial<ServiceFields>): void {
  const errors: FieldError[] = [];
  if (service.seasonEnd.getTime() < service.seasonStart.getTime()) {
    if (given.seasonEnd !== undefined || given.seasonStart === undefined) {
      errors.push({ field: 'seasonEnd', code: 'before_season_start', message: 'seasonEnd must not be before seasonStart.' });
    } else {
      errors.push({ field: 'seasonStart', code: 'after_season_end', message: 'seasonStart must not be after seasonEnd.' });
    }
  }
  service.openingHours.forEach((hours, index) => {
    const minutes = openingMinutes(hours);
    if (minutes === null || minutes >= service.durationMinutes) return;
    if (given.openingHours !== undefined) {
      errors.push({
        field: `openingHours.${index}`,
        code: 'shorter_than_duration',
        message: `This opening lasts ${minutes} minutes, less than one visit (durationMinutes ${service.durationMinutes}): it could hold no slot.`,
      });
    } else if (!errors.some((error) => error.field === 'durationMinutes')) {
      errors.push({
        field: 'durationMinutes',
        code: 'longer_than_opening',
        message: `A visit of ${service.durationMinutes} minutes is longer than the opening on weekday ${hours.weekday} (${minutes} minutes).`,
      });
    }
  });
  // Openings that overlap at an offset would start slots closer together than any slotMinutes may:
  // what bounds the slots of a day, and so the cost of availability (src/bookings/schedule.ts).
  for (const [weekday, starts] of wallClockStarts(service.openingHours, service.slotMinutes, service.durationMinutes)) {
    const close = starts.findIndex((start, index) => index > 0 && start - starts[index - 1]! < minSlotMinutes);
    if (close === -1) continue;
    errors.push({
      field: 'openingHours',
      code: 'slots_too_close',
      message: `On weekday ${weekday} the openings start slots at ${clockTime(starts[close - 1]!)} and ${clockTime(starts[close]!)}: slots of one day start at least ${minSlotMinutes} minutes apart.`,
    });
    break;
  }
  if (errors.length) throw validationFailed(errors);
}

const clockTime = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

async function requireAttraction(tx: Prisma.TransactionClient, attractionId: string): Promise<void> {
  const attraction = await tx.attraction.findUnique({ where: { id: attractionId }, select: { id: true } });
  if (!attraction) throw validationFailed([{ field: 'attractionId', code: 'unknown', message: `No attraction with id "${attractionId}".` }]);
}

const asJson = (openings: OpeningHours[]) => openings.map(({ weekday, opens, closes }) => ({ weekday, opens, closes }));

export async function createService(prisma: PrismaClient, input: unknown): Promise<Service> {
  const parsed = parseInput(newServiceInput, input);
  checkSchedule(parsed, parsed);
  await requireAttraction(prisma, parsed.attractionId);
  return prisma.service.create({ data: { id: newId('service'), ...parsed, openingHours: asJson(parsed.openingHours) } });
}

/**
 * Changes a service; the fields left out keep their values, and the rules apply to the result. The
 * row is locked while it is read and written, so two changes apply one after the other.
 */
export async function updateService(prisma: PrismaClient, id: string, input: unknown): Promise<Service> {
  const change = parseInput(serviceChange, input);
  const given = Object.fromEntries(Object.entries(change).filter(([, value]) => value !== undefined)) as Partial<ServiceFields>;
  return prisma.$transaction(async (tx) => {
    // NO KEY: the bookings and holds that reference the row (whose inserts share-lock it) do not hold it back.
    await tx.$executeRaw`SELECT 1 FROM services WHERE id = ${id} FOR NO KEY UPDATE`;
    const current = await tx.service.findUnique({ where: { id } });
    if (!current) throw notFound('service', id);
    const next: ServiceFields = {
      attractionId: current.attractionId,
      name: current.name,
      durationMinutes: current.durationMinutes,
      capacity: current.capacity,
      timezone: current.timezone,
      slotMinutes: current.slotMinutes,
      seasonStart: current.seasonStart,
      seasonEnd: current.seasonEnd,
      openingHours: current.openingHours as unknown as OpeningHours[],
      ...given,
    };
    checkSchedule(next, given);
    if (given.attractionId !== undefined) await requireAttraction(tx, given.attractionId);
    return tx.service.update({ where: { id }, data: { ...given, ...(given.openingHours ? { openingHours: asJson(given.openingHours) } : {}) } });
  });
}
