import { Prisma, type Booking, type Hold, type Service } from '../generated/prisma/client.js';
import { AppError, validationFailed } from '../shared/errors.js';
import { isoTimestamp } from '../shared/clock.js';
import { heldPlacesSql, scheduleOf } from './availability.js';
import { isSlot } from './schedule.js';
import type { Tx } from './transaction.js';

/** The places of a booking's slot: which slot a booking may take, and the places it holds in it. */

/** A booking must start at a slot of its service that has not started: 422 `in_past` or `not_a_slot` on startTime. */
export function checkSlot(service: Service, startTime: Date, now: Date): void {
  if (startTime.getTime() <= now.getTime()) {
    throw validationFailed([{ field: 'startTime', code: 'in_past', message: 'That slot has already started.' }]);
  }
  if (!isSlot(scheduleOf(service), startTime)) {
    const message = `${isoTimestamp(startTime)} is not a start time of service ${service.id}; its availability lists them.`;
    throw validationFailed([{ field: 'startTime', code: 'not_a_slot', message }]);
  }
}

/** A party takes places in one slot, so it can be at most the service's capacity: 422 `out_of_range` on partySize. */
export function checkPartySize(service: Service, partySize: number): void {
  if (partySize > service.capacity) {
    throw validationFailed([{ field: 'partySize', code: 'out_of_range', message: `partySize is at most the capacity of the service, ${service.capacity}.` }]);
  }
}

export const endOf = (service: Service, startTime: Date) => new Date(startTime.getTime() + service.durationMinutes * 60_000);

export async function findServiceOrFail(tx: Tx, id: string): Promise<Service> {
  const service = await tx.service.findUnique({ where: { id } });
  if (!service) {
    throw validationFailed([{ field: 'serviceId', code: 'unknown', message: `No service with id "${id}".` }]);
  }
  return service;
}

/** A hold's entry in its slot row: its places count until `until` (epoch milliseconds), and for nothing after. */
export interface SlotHold {
  id: string;
  places: number;
  until: number;
}

/** The slot row's holds that have not expired at `nowMs`, but `droppedId`, as a jsonb array: expired ones are dropped on every write. */
const keptHolds = (nowMs: number, droppedId = '') =>
  Prisma.sql`(SELECT coalesce(jsonb_agg(hold), '[]'::jsonb) FROM jsonb_array_elements(booking_slots.holds) AS hold
              WHERE (hold->>'until')::bigint > ${nowMs} AND hold->>'id' <> ${droppedId})`;

/**
 * Takes a party's places in a (service, start_time) slot in one atomic statement, for a booking or
 * for a hold: the slot row is created with them taken, or its count raised only while the party
 * still fits beside the confirmed places and the holds not expired at `now`. Concurrent bookings and
 * holds queue on the row lock, so a slot never holds more than `capacity` places, whatever the party
 * sizes; a hold past its expiry counts for nothing with no write at all. `timestamp` drops the Z:
 * the column holds UTC.
 */
export async function reservePlaces(tx: Tx, service: Service, startTime: Date, places: number, now: Date, hold?: SlotHold): Promise<void> {
  const nowMs = now.getTime();
  const confirmed = hold ? 0 : places;
  const added = JSON.stringify(hold ? [hold] : []);
  const taken =
    places <= service.capacity &&
    (await tx.$executeRaw`
      INSERT INTO booking_slots (service_id, start_time, places_taken, holds)
      VALUES (${service.id}, ${startTime.toISOString()}::timestamp, ${confirmed}, ${added}::jsonb)
      ON CONFLICT (service_id, start_time)
      DO UPDATE SET places_taken = booking_slots.places_taken + ${confirmed}, holds = ${keptHolds(nowMs)} || ${added}::jsonb
      WHERE booking_slots.places_taken + ${heldPlacesSql(nowMs)} + ${places} <= ${service.capacity}`) === 1;
  if (taken) return;
  const left = await freePlaces(tx, service, startTime, now);
  const where = `${service.name} at ${isoTimestamp(startTime)}`;
  const placesLeft = left === 1 ? 'Only 1 place is' : `Only ${left} places are`;
  throw new AppError('slot_full', left === 0 ? `${where} is full.` : `${placesLeft} left in ${where}; the party needs ${places}.`);
}

/** The places of a slot neither confirmed nor held at `now`. */
export async function freePlaces(tx: Tx, service: Service, startTime: Date, now: Date): Promise<number> {
  const [slot] = await tx.$queryRaw<{ used: number }[]>`
    SELECT (places_taken + ${heldPlacesSql(now.getTime())})::int AS used FROM booking_slots
    WHERE service_id = ${service.id} AND start_time = ${startTime.toISOString()}::timestamp`;
  return Math.max(service.capacity - (slot?.used ?? 0), 0);
}

/**
 * Locks a slot's row until commit (making it when the slot has none yet): what runs after it sees
 * every booking and hold committed in that slot before, and none can commit in it meanwhile.
 */
export async function lockSlot(tx: Tx, serviceId: string, startTime: Date): Promise<void> {
  await tx.$executeRaw`
    INSERT INTO booking_slots (service_id, start_time) VALUES (${serviceId}, ${startTime.toISOString()}::timestamp)
    ON CONFLICT (service_id, start_time) DO UPDATE SET places_taken = booking_slots.places_taken`;
}

/**
 * Turns an unexpired hold's places into confirmed ones in one statement, with no capacity check that
 * could fail: they were already counted. False when the hold is no longer in its slot (it expired).
 */
export async function confirmHeldPlaces(tx: Tx, hold: Pick<Hold, 'id' | 'serviceId' | 'startTime' | 'partySize'>, now: Date): Promise<boolean> {
  const nowMs = now.getTime();
  const converted = await tx.$executeRaw`
    UPDATE booking_slots SET places_taken = places_taken + ${hold.partySize}, holds = ${keptHolds(nowMs, hold.id)}
    WHERE service_id = ${hold.serviceId} AND start_time = ${hold.startTime.toISOString()}::timestamp
      AND EXISTS (SELECT 1 FROM jsonb_array_elements(booking_slots.holds) AS entry WHERE entry->>'id' = ${hold.id} AND (entry->>'until')::bigint > ${nowMs})`;
  return converted === 1;
}

/** Gives a hold's places back at once (a release); expired holds are dropped too. */
export async function releaseHeldPlaces(tx: Tx, hold: Pick<Hold, 'id' | 'serviceId' | 'startTime'>, now: Date): Promise<void> {
  await tx.$executeRaw`
    UPDATE booking_slots SET holds = ${keptHolds(now.getTime(), hold.id)}
    WHERE service_id = ${hold.serviceId} AND start_time = ${hold.startTime.toISOString()}::timestamp`;
}

export async function releasePlaces(tx: Tx, booking: Pick<Booking, 'serviceId' | 'startTime' | 'partySize'>): Promise<void> {
  await tx.$executeRaw`
    UPDATE booking_slots SET places_taken = greatest(places_taken - ${booking.partySize}, 0)
    WHERE service_id = ${booking.serviceId} AND start_time = ${booking.startTime.toISOString()}::timestamp`;
}

/**
 * Frees the booking's places and takes those of its new slot or party size (the same slot when only
 * the party changes). Slot rows are locked in key order, so two bookings moving in opposite
 * directions cannot deadlock.
 */
export async function movePlaces(tx: Tx, current: Booking, service: Service, startTime: Date, partySize: number, now: Date): Promise<void> {
  const from = `${current.serviceId}|${current.startTime.toISOString()}`;
  const to = `${service.id}|${startTime.toISOString()}`;
  if (from <= to) {
    await releasePlaces(tx, current);
    await reservePlaces(tx, service, startTime, partySize, now);
  } else {
    await reservePlaces(tx, service, startTime, partySize, now);
    await releasePlaces(tx, current);
  }
}
