import { LRUCache } from 'lru-cache';
import type { Context } from '../graphql/context.js';
import { latestTime } from '../shared/clock.js';
import { invalidParameter } from '../shared/errors.js';
import { heldPlacesAt } from './availability.js';
import { dateOfDay, localDay, slotsBetween, type OpeningHours, type Schedule } from './schedule.js';
import { isInRange, type NumberRange } from '../graphql/argument-range.js';

/**
 * Room for a party: which attractions have a slot, in a window of time, with at least that many
 * places left, and their soonest such slots. The directory filters on it (available_for); the places
 * are those Service.availability answers: capacity less confirmed bookings and unexpired holds.
 */

/** The longest window one search weighs: a week of slots. */
export const maxBookableWindowDays = 7;
/** The places one party asks for. */
export const partySizeRange: NumberRange = { minimum: 1, maximum: 1000 };
/** The soonest matching slots answered per attraction. */
export const nextSlotsPerAttraction = 5;

const hourMs = 3_600_000;

export interface BookableArgs {
  availableFor?: number | null;
  availableFrom?: Date | null;
  availableTo?: Date | null;
}

export interface BookableWindow {
  partySize: number;
  from: Date;
  to: Date;
}

export interface BookableSlot {
  serviceId: string;
  startTime: Date;
  endTime: Date;
  remaining: number;
}

/**
 * The window the arguments ask for (undefined without availableFor): from availableFrom (default
 * now) to availableTo (default a day later), at most a week; 400 naming the argument otherwise.
 */
export function bookableWindowOf(args: BookableArgs, now: Date): BookableWindow | undefined {
  const { availableFor, availableFrom, availableTo } = args;
  if (availableFor == null) {
    if (availableFrom != null) throw invalidParameter('availableFrom', 'availableFrom needs availableFor: the size of the party.', 'needs_party');
    if (availableTo != null) throw invalidParameter('availableTo', 'availableTo needs availableFor: the size of the party.', 'needs_party');
    return undefined;
  }
  if (!(Number.isInteger(availableFor) && isInRange(availableFor, partySizeRange))) {
    const { minimum, maximum } = partySizeRange;
    throw invalidParameter('availableFor', `availableFor is a party size, a whole number from ${minimum} to ${maximum}.`, 'out_of_range');
  }
  const from = availableFrom ?? now;
  if (availableTo == null && from.getTime() >= latestTime) {
    throw invalidParameter('availableFrom', 'availableFrom leaves no window: it is the last time there is (9999-12-31T23:59:59.999Z).', 'out_of_range');
  }
  // A day later, or the last time there is for a window that starts on the last day.
  const to = availableTo ?? new Date(Math.min(from.getTime() + 24 * hourMs, latestTime));
  if (to.getTime() <= from.getTime()) {
    throw invalidParameter('availableTo', `availableTo must be after availableFrom${availableFrom == null ? ' (now, when it is not given)' : ''}.`, 'before_start');
  }
  // What is weighed is what has not started: a window that began earlier is read, and measured, from now.
  const ahead = new Date(Math.max(from.getTime(), now.getTime()));
  if (to.getTime() - ahead.getTime() > maxBookableWindowDays * 24 * hourMs) {
    throw invalidParameter('availableTo', `availableTo is at most ${maxBookableWindowDays} days after availableFrom, or after now for a window that has begun.`, 'out_of_range');
  }
  return { partySize: availableFor, from: ahead, to };
}

/**
 * The services of some attractions that can hold the party, each with the places taken in its slots
 * of the window (confirmed and held, as availability counts them): one statement, without Prisma's
 * per-row work, since a search reads it for every batch of candidates. Schedules are read apart,
 * once per version of each (slotStartsOn).
 */
const servicesWithPlacesRead = {
  name: 'hallowgate_services_with_places',
  text: `SELECT s.id, s.attraction_id, s.capacity, s.timezone, s.duration_minutes, (extract(epoch FROM s.updated_at) * 1000)::float8 AS updated_at,
                (SELECT coalesce(json_agg(json_build_array((extract(epoch FROM booking_slots.start_time) * 1000)::float8,
                                                           booking_slots.places_taken + ${heldPlacesAt('$5')})), '[]')
                   FROM booking_slots
                  WHERE booking_slots.service_id = s.id AND booking_slots.start_time >= $2::timestamp AND booking_slots.start_time < $3::timestamp) AS taken
         FROM services AS s WHERE s.attraction_id = ANY($1::text[]) AND s.capacity >= $4`,
};

const schedulesRead = {
  name: 'hallowgate_service_schedules',
  text: `SELECT id, (extract(epoch FROM updated_at) * 1000)::float8 AS updated_at, timezone, slot_minutes, duration_minutes,
                season_start::text AS season_start, season_end::text AS season_end, opening_hours
         FROM services WHERE id = ANY($1::text[])`,
};

interface ServiceWithPlaces {
  id: string;
  attraction_id: string;
  capacity: number;
  timezone: string;
  duration_minutes: number;
  updated_at: number;
  /** [start in epoch milliseconds, places taken] of the slots with a row. */
  taken: [number, number][];
}

interface ScheduleRow {
  id: string;
  updated_at: number;
  timezone: string;
  slot_minutes: number;
  duration_minutes: number;
  season_start: string;
  season_end: string;
  opening_hours: OpeningHours[];
}

/** A service's schedule as of a version of the service (its updated_at). */
const scheduleKey = (id: string, updatedAt: number) => `${id} ${updatedAt}`;

/**
 * Schedules, and the slot starts (epoch milliseconds) of each on some local days, kept per version
 * of the service: the grid is a pure function of the schedule, and working it out through the zone
 * database is most of a search's time.
 */
const schedules = new LRUCache<string, Schedule>({ max: 50_000 });
const slotGrids = new LRUCache<string, readonly number[]>({ max: 50_000 });

/** Reads the schedules not kept yet of these services (one statement, or none). */
async function keepSchedules(context: Context, services: readonly ServiceWithPlaces[]): Promise<void> {
  const missing = services.filter((service) => !schedules.has(scheduleKey(service.id, service.updated_at)));
  if (missing.length === 0) return;
  for (const row of await context.services.readRows<ScheduleRow>({ ...schedulesRead, values: [missing.map((service) => service.id)] })) {
    schedules.set(scheduleKey(row.id, row.updated_at), {
      timezone: row.timezone,
      slotMinutes: row.slot_minutes,
      durationMinutes: row.duration_minutes,
      seasonStart: row.season_start,
      seasonEnd: row.season_end,
      openingHours: row.opening_hours,
    });
  }
}

/** The slot starts of the service on the local days firstDay … lastDay; none when its schedule changed since it was read. */
function slotStartsOn(service: ServiceWithPlaces, firstDay: string, lastDay: string): readonly number[] {
  const key = `${scheduleKey(service.id, service.updated_at)} ${firstDay} ${lastDay}`;
  let starts = slotGrids.get(key);
  if (!starts) {
    const schedule = schedules.get(scheduleKey(service.id, service.updated_at));
    // Changed between the two reads: its slots are weighed by the next search.
    if (!schedule) return [];
    starts = slotsBetween(schedule, firstDay, lastDay).map((slot) => slot.start.getTime());
    slotGrids.set(key, starts);
  }
  return starts;
}

/**
 * For each of `attractionIds`, its soonest slots in the window (at most nextSlotsPerAttraction, of any
 * of its services) with room for the party; attractions without one are absent. One statement
 * whatever the number of attractions (and one more for schedules not read before).
 */
export async function roomForParty(context: Context, attractionIds: readonly string[], window: BookableWindow, now: Date): Promise<Map<string, BookableSlot[]>> {
  const found = new Map<string, BookableSlot[]>();
  if (attractionIds.length === 0) return found;
  const services = await context.services.readRows<ServiceWithPlaces>({
    ...servicesWithPlacesRead,
    values: [[...attractionIds], window.from.toISOString(), window.to.toISOString(), window.partySize, now.getTime()],
  });
  await keepSchedules(context, services);
  const earliest = Math.max(window.from.getTime(), now.getTime() + 1);
  const latest = window.to.getTime();
  const candidates: { service: ServiceWithPlaces; start: number; remaining: number }[] = [];
  // The local days of the window in each zone: an opening after midnight belongs to the day it
  // opened on, so the day before the window's first counts too.
  const daysIn = new Map<string, [string, string]>();
  for (const service of services) {
    let days = daysIn.get(service.timezone);
    if (!days) daysIn.set(service.timezone, (days = [dateOfDay(localDay(window.from, service.timezone) - 1), dateOfDay(localDay(window.to, service.timezone))]));
    const placesAt = new Map(service.taken.map(([start, places]) => [start, places]));
    for (const start of slotStartsOn(service, ...days)) {
      if (start < earliest || start >= latest) continue;
      const remaining = service.capacity - (placesAt.get(start) ?? 0);
      if (remaining >= window.partySize) candidates.push({ service, start, remaining });
    }
  }
  candidates.sort((a, b) => a.start - b.start || (a.service.id < b.service.id ? -1 : 1));
  for (const { service, start, remaining } of candidates) {
    let slots = found.get(service.attraction_id);
    if (!slots) found.set(service.attraction_id, (slots = []));
    if (slots.length < nextSlotsPerAttraction) {
      slots.push({ serviceId: service.id, startTime: new Date(start), endTime: new Date(start + service.duration_minutes * 60_000), remaining });
    }
  }
  return found;
}
