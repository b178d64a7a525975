import type { Service } from '../generated/prisma/client.js';
import type { Context } from '../graphql/context.js';
import { AppError } from '../shared/errors.js';
import { heldPlacesAt, scheduleOf } from './availability.js';
import { dateOfDay, localDay, slotsBetween } from './schedule.js';

/**
 * Room for a party: which attractions have a slot, in a window of time, with at least that many
 * places left, and their soonest such slots. The directory filters on it (available_for); the places
 * are those Service.availability answers: capacity less confirmed bookings and unexpired holds.
 */

/** The longest window one search weighs: a week of slots. */
export const maxBookableWindowDays = 7;
/** The most places one party asks for. */
export const maxPartySize = 1000;
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

function invalid(field: string, message: string, code: string): AppError {
  return new AppError('invalid_parameter', message, { fieldErrors: [{ field, code, message }] });
}

/**
 * The window the arguments ask for (undefined without availableFor): from availableFrom (default
 * now) to availableTo (default a day later), at most a week; 400 naming the argument otherwise.
 */
export function bookableWindowOf(args: BookableArgs, now: Date): BookableWindow | undefined {
  const { availableFor, availableFrom, availableTo } = args;
  if (availableFor == null) {
    if (availableFrom != null) throw invalid('availableFrom', 'availableFrom needs availableFor: the size of the party.', 'needs_party');
    if (availableTo != null) throw invalid('availableTo', 'availableTo needs availableFor: the size of the party.', 'needs_party');
    return undefined;
  }
  if (!(Number.isInteger(availableFor) && availableFor >= 1 && availableFor <= maxPartySize)) {
    throw invalid('availableFor', `availableFor is a party size, a whole number from 1 to ${maxPartySize}.`, 'out_of_range');
  }
  const from = availableFrom ?? now;
  const to = availableTo ?? new Date(from.getTime() + 24 * hourMs);
  if (to.getTime() <= from.getTime()) throw invalid('availableTo', 'availableTo must be after availableFrom.', 'before_start');
  if (to.getTime() - from.getTime() > maxBookableWindowDays * 24 * hourMs) {
    throw invalid('availableTo', `availableTo is at most ${maxBookableWindowDays} days after availableFrom.`, 'out_of_range');
  }
  return { partySize: availableFor, from, to };
}

const placesTakenOfServicesRead = {
  name: 'hallowgate_places_taken_of_services',
  text: `SELECT service_id, (extract(epoch FROM start_time) * 1000)::float8 AS at, places_taken + ${heldPlacesAt('$4')} AS places FROM booking_slots
         WHERE service_id = ANY($1::text[]) AND start_time >= $2::timestamp AND start_time < $3::timestamp`,
};

/** The slots of `service` that start in the window and after `now`, from its schedule. */
function slotsInWindow(service: Service, window: BookableWindow, now: Date) {
  const schedule = scheduleOf(service);
  // An opening after midnight belongs to the day it opened on, so the day before the window counts too.
  const firstDay = dateOfDay(localDay(window.from, schedule.timezone) - 1);
  const lastDay = dateOfDay(localDay(window.to, schedule.timezone));
  const earliest = Math.max(window.from.getTime(), now.getTime() + 1);
  return slotsBetween(schedule, firstDay, lastDay).filter((slot) => slot.start.getTime() >= earliest && slot.start.getTime() < window.to.getTime());
}

/**
 * For each of `attractionIds`, its soonest slots in the window (at most nextSlotsPerAttraction, of any
 * of its services) with room for the party; attractions without one are absent. Two statements
 * whatever the number of attractions: their services, then the places taken in their slots.
 */
export async function roomForParty(context: Context, attractionIds: readonly string[], window: BookableWindow, now: Date): Promise<Map<string, BookableSlot[]>> {
  const found = new Map<string, BookableSlot[]>();
  if (attractionIds.length === 0) return found;
  const services = await context.prisma.service.findMany({ where: { attractionId: { in: [...attractionIds] }, capacity: { gte: window.partySize } } });
  const candidates = services.flatMap((service) => slotsInWindow(service, window, now).map((slot) => ({ service, slot })));
  if (candidates.length === 0) return found;
  const taken = await context.services.readRows<{ service_id: string; at: number; places: number }>({
    ...placesTakenOfServicesRead,
    values: [services.map((service) => service.id), window.from.toISOString(), window.to.toISOString(), now.getTime()],
  });
  const placesAt = new Map(taken.map((row) => [`${row.service_id} ${Number(row.at)}`, Number(row.places)]));
  candidates.sort((a, b) => a.slot.start.getTime() - b.slot.start.getTime() || (a.service.id < b.service.id ? -1 : 1));
  for (const { service, slot } of candidates) {
    const remaining = service.capacity - (placesAt.get(`${service.id} ${slot.start.getTime()}`) ?? 0);
    if (remaining < window.partySize) continue;
    let slots = found.get(service.attractionId);
    if (!slots) found.set(service.attractionId, (slots = []));
    if (slots.length < nextSlotsPerAttraction) slots.push({ serviceId: service.id, startTime: slot.start, endTime: slot.end, remaining });
  }
  return found;
}
