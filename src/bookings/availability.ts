import type { GraphQLResolveInfo } from 'graphql';
import { Prisma, type Service } from '../generated/prisma/client.js';
import type { Context } from '../graphql/context.js';
import { stopPastTimeBudget } from '../graphql/limits.js';
import { AppError } from '../shared/errors.js';
import { dayMs, maxSlotsPerDay, slotsBetweenInSteps, type OpeningHours, type Schedule } from './schedule.js';

/** The most days one availability answer covers. */
export const maxAvailabilityDays = 31;
/** Rows of availability_versions; a service's changes bump the one its id hashes to. */
const stripes = 64;

/** A service row's schedule, as src/bookings/schedule.ts reads it; opening hours are validated when written. */
export function scheduleOf(service: Service): Schedule {
  return {
    timezone: service.timezone,
    slotMinutes: service.slotMinutes,
    durationMinutes: service.durationMinutes,
    seasonStart: service.seasonStart.toISOString().slice(0, 10),
    seasonEnd: service.seasonEnd.toISOString().slice(0, 10),
    openingHours: service.openingHours as unknown as OpeningHours[],
  };
}

/**
 * Places a slot row's holds take at the instant `nowMs` (SQL for epoch milliseconds): only those not
 * expired count. Most rows hold none, and for those the comparison spares a subquery per row.
 */
export const heldPlacesAt = (nowMs: string) =>
  `(CASE WHEN booking_slots.holds = '[]'::jsonb THEN 0 ELSE (SELECT coalesce(sum((hold->>'places')::int), 0) FROM jsonb_array_elements(booking_slots.holds) AS hold WHERE (hold->>'until')::bigint > ${nowMs}) END)`;

/** heldPlacesAt for a statement of Prisma's: `nowMs` is a whole number, written into the text. */
export const heldPlacesSql = (nowMs: number) => Prisma.raw(heldPlacesAt(String(Math.trunc(nowMs))));

/** FNV-1a of the id: the same stripe on every instance and every run. */
function stripeOf(serviceId: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < serviceId.length; index++) {
    hash ^= serviceId.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % stripes;
}

/**
 * Bumps, in the transaction that changed the places of these services' slots, the counters the
 * availability data version sums. Rows are taken in ascending order (no deadlock between two
 * reschedules across the same services), and last in the transaction, so each is held only until commit.
 */
export async function bumpAvailability(tx: Prisma.TransactionClient, serviceIds: readonly string[]): Promise<void> {
  for (const stripe of [...new Set(serviceIds.map(stripeOf))].sort((a, b) => a - b)) {
    await tx.$executeRaw`
      INSERT INTO availability_versions (stripe, version) VALUES (${stripe}, 1)
      ON CONFLICT (stripe) DO UPDATE SET version = availability_versions.version + 1`;
  }
}

/**
 * "Now" for everything one request reads: the data version's minute and the slots that have not
 * started come from the same instant, so an answer is kept under the minute it was made for.
 */
const requestTimes = new WeakMap<object, Date>();

export function nowOf(context: Context, execution: object = context): Date {
  let now = requestTimes.get(execution);
  if (!now) requestTimes.set(execution, (now = context.services.clock()));
  return now;
}

/**
 * What one execution shares (its "now", its availability answers): the request, or the event for a
 * subscription, which runs its selection again for each event with the same context.
 */
export function executionOf(context: Context, info: GraphQLResolveInfo): object {
  const root: unknown = info.rootValue;
  return typeof root === 'object' && root !== null ? root : context;
}

const servicesVersionRead = {
  name: 'hallowgate_services_version',
  // The catalogue version moves with every write to services (a trigger); the sum of the
  // availability counters with every commit that changes places, in any account; the count of holds
  // past their expiry that the offers worker has not recorded yet, when a hold expires (a change of
  // places that no write makes).
  text: `SELECT (SELECT version::text FROM directory_version WHERE id = 1) AS catalogue,
                (SELECT coalesce(sum(version), 0)::text FROM availability_versions) AS places,
                (SELECT count(*)::text FROM holds WHERE status = 'held' AND expires_at <= $1::timestamp) AS lapsed`,
};

/**
 * A data version of every answer about services: their fields and schedules (the catalogue
 * version), the places taken in their slots (the availability counters, shared by all accounts, and
 * the holds that lapsed since), and the current minute, since slots drop out of availability as they
 * start (on whole minutes). One statement over a primary key, a table of 64 rows and an index.
 */
export async function servicesDataVersion(context: Context): Promise<string> {
  const now = nowOf(context);
  const [row] = await context.services.readRows<{ catalogue: string | null; places: string | null; lapsed: string | null }>({
    ...servicesVersionRead,
    values: [now.toISOString()],
  });
  const minute = Math.floor(now.getTime() / 60_000);
  return `${row?.catalogue ?? 'none'}.${row?.places ?? 0}.${row?.lapsed ?? 0}.${minute}`;
}

// Without Prisma's per-row work: a month of a busy service is a thousand rows. `timestamp` drops the
// Z of the bounds (the column holds UTC), and the epoch of a UTC timestamp is its instant.
const placesTakenRead = {
  name: 'hallowgate_places_taken',
  text: `SELECT (extract(epoch FROM start_time) * 1000)::float8 AS at, places_taken + ${heldPlacesAt('$4')} AS places FROM booking_slots
         WHERE service_id = $1 AND start_time >= $2::timestamp AND start_time <= $3::timestamp`,
};

export interface AvailableSlot {
  serviceId: string;
  startTime: Date;
  endTime: Date;
  capacity: number;
  remaining: number;
}

/** Days of the range `startDate` … `endDate` (UTC midnights, as the Date scalar gives them), both included. */
const daysOf = (startDate: Date, endDate: Date) => (endDate.getTime() - startDate.getTime()) / dayMs + 1;

/** The most slots one availability answer can hold for the range: its days (at most 31) times the most slots a day can have. */
export function maxAvailableSlots(range: { startDate: Date; endDate: Date }): number {
  const days = daysOf(range.startDate, range.endDate);
  return Number.isFinite(days) ? Math.max(0, Math.min(days, maxAvailabilityDays)) * maxSlotsPerDay : 0;
}

/** Answers already under way in an execution, by service and range: a service reached through many bookings is worked out once. */
const executionAvailability = new WeakMap<object, Map<string, Promise<AvailableSlot[]>>>();

/** Between two days of the slot grid: other requests run, and an operation past its time budget stops. */
async function betweenDays(context: Context): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  stopPastTimeBudget(context);
}

/**
 * The slots of `service` starting on the local days `startDate` … `endDate` (at most 31, UTC
 * midnights as the Date scalar gives them) that have not started, oldest first, with the places
 * confirmed bookings and unexpired holds left in each: one statement over the slots' rows, once per execution
 * (executionOf) for each service and range.
 */
export function availabilityOf(context: Context, execution: object, service: Service, startDate: Date, endDate: Date): Promise<AvailableSlot[]> {
  let answers = executionAvailability.get(execution);
  if (!answers) executionAvailability.set(execution, (answers = new Map()));
  const key = `${service.id} ${startDate.getTime()} ${endDate.getTime()}`;
  let answer = answers.get(key);
  if (!answer) answers.set(key, (answer = workOutAvailability(context, execution, service, startDate, endDate)));
  return answer;
}

/** The range rules of every availability answer: startDate not after endDate, at most 31 days in all. */
export function checkAvailabilityRange(startDate: Date, endDate: Date): void {
  if (startDate.getTime() > endDate.getTime()) {
    const message = 'startDate must not be after endDate.';
    throw new AppError('invalid_parameter', message, { fieldErrors: [{ field: 'startDate', code: 'after_end_date', message }] });
  }
  if (daysOf(startDate, endDate) > maxAvailabilityDays) {
    const message = `endDate is at most ${maxAvailabilityDays - 1} days after startDate (${maxAvailabilityDays} days in all).`;
    throw new AppError('invalid_parameter', message, { fieldErrors: [{ field: 'endDate', code: 'out_of_range', message }] });
  }
}

async function workOutAvailability(context: Context, execution: object, service: Service, startDate: Date, endDate: Date): Promise<AvailableSlot[]> {
  checkAvailabilityRange(startDate, endDate);
  return availabilityAt(context, service, startDate, endDate, nowOf(context, execution).getTime());
}

/**
 * The slots of `service` starting on the local days `startDate` … `endDate` after the instant `now`,
 * oldest first, with the places confirmed bookings and holds unexpired then leave in each: one
 * statement over the slots' rows. The caller bounds the days.
 */
export async function availabilityAt(context: Context, service: Service, startDate: Date, endDate: Date, now: number): Promise<AvailableSlot[]> {
  const day = (date: Date) => date.toISOString().slice(0, 10);
  const grid = await slotsBetweenInSteps(scheduleOf(service), day(startDate), day(endDate), () => betweenDays(context));
  const slots = grid.filter((slot) => slot.start.getTime() > now);
  if (slots.length === 0) return [];
  const taken = await context.services.readRows<{ at: number; places: number }>({
    ...placesTakenRead,
    values: [service.id, slots[0]!.start.toISOString(), slots.at(-1)!.start.toISOString(), now],
  });
  const placesAt = new Map(taken.map((row) => [Number(row.at), Number(row.places)]));
  return slots.map((slot) => ({
    serviceId: service.id,
    startTime: slot.start,
    endTime: slot.end,
    capacity: service.capacity,
    remaining: Math.max(0, service.capacity - (placesAt.get(slot.start.getTime()) ?? 0)),
  }));
}
