import type { Prisma, Service } from '../generated/prisma/client.js';
import type { Context } from '../graphql/context.js';
import { AppError } from '../shared/errors.js';
import { slotsBetween, type OpeningHours, type Schedule } from './schedule.js';

/** The most days one availability answer covers. */
export const maxAvailabilityDays = 31;
const dayMs = 86_400_000;
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
 * availability fingerprint sums. Rows are taken in ascending order (no deadlock between two
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
 * "Now" for everything one request reads: the fingerprint's minute and the slots that have not
 * started come from the same instant, so an answer is kept under the minute it was made for.
 */
const requestTimes = new WeakMap<Context, Date>();

function nowOf(context: Context): Date {
  let now = requestTimes.get(context);
  if (!now) requestTimes.set(context, (now = context.services.clock()));
  return now;
}

const servicesVersionRead = {
  name: 'hallowgate_services_version',
  // The catalogue version moves with every write to services (a trigger); the sum of the
  // availability counters with every commit that changes places, in any account.
  text: `SELECT (SELECT version::text FROM directory_version WHERE id = 1) AS catalogue,
                (SELECT coalesce(sum(version), 0)::text FROM availability_versions) AS places`,
  values: [],
};

/**
 * A fingerprint of every answer about services: their fields and schedules (the catalogue
 * version), the places taken in their slots (the availability counters, shared by all accounts),
 * and the current minute, since slots drop out of availability as they start (on whole minutes).
 * One statement over a primary key and a table of 64 rows.
 */
export async function servicesDataVersion(context: Context): Promise<string> {
  const [row] = await context.services.readRows<{ catalogue: string | null; places: string | null }>(servicesVersionRead);
  const minute = Math.floor(nowOf(context).getTime() / 60_000);
  return `${row?.catalogue ?? 'none'}.${row?.places ?? 0}.${minute}`;
}

// Without Prisma's per-row work: a month of a busy service is a thousand rows. `timestamp` drops the
// Z of the bounds (the column holds UTC), and the epoch of a UTC timestamp is its instant.
const placesTakenRead = {
  name: 'hallowgate_places_taken',
  text: `SELECT (extract(epoch FROM start_time) * 1000)::float8 AS at, places_taken AS places FROM booking_slots
         WHERE service_id = $1 AND start_time >= $2::timestamp AND start_time <= $3::timestamp`,
};

export interface AvailableSlot {
  startTime: Date;
  endTime: Date;
  capacity: number;
  remaining: number;
}

/**
 * The slots of `service` starting on the local days `startDate` … `endDate` (at most 31, UTC
 * midnights as the Date scalar gives them) that have not started, oldest first, with the places
 * confirmed bookings left in each: one statement over the slots' rows.
 */
export async function availabilityOf(context: Context, service: Service, startDate: Date, endDate: Date): Promise<AvailableSlot[]> {
  if (startDate.getTime() > endDate.getTime()) {
    const message = 'startDate must not be after endDate.';
    throw new AppError('invalid_parameter', message, { fieldErrors: [{ field: 'startDate', code: 'after_end_date', message }] });
  }
  if ((endDate.getTime() - startDate.getTime()) / dayMs + 1 > maxAvailabilityDays) {
    const message = `endDate is at most ${maxAvailabilityDays - 1} days after startDate (${maxAvailabilityDays} days in all).`;
    throw new AppError('invalid_parameter', message, { fieldErrors: [{ field: 'endDate', code: 'out_of_range', message }] });
  }
  const now = nowOf(context).getTime();
  const day = (date: Date) => date.toISOString().slice(0, 10);
  const slots = slotsBetween(scheduleOf(service), day(startDate), day(endDate)).filter((slot) => slot.start.getTime() > now);
  if (slots.length === 0) return [];
  const taken = await context.services.readRows<{ at: number; places: number }>({
    ...placesTakenRead,
    values: [service.id, slots[0]!.start.toISOString(), slots.at(-1)!.start.toISOString()],
  });
  const placesAt = new Map(taken.map((row) => [Number(row.at), Number(row.places)]));
  return slots.map((slot) => ({
    startTime: slot.start,
    endTime: slot.end,
    capacity: service.capacity,
    remaining: Math.max(0, service.capacity - (placesAt.get(slot.start.getTime()) ?? 0)),
  }));
}
