import { credentialIdOf, grantedScopes } from '../access/principal.js';
import type { Booking } from '../generated/prisma/client.js';
import type { Context } from '../graphql/context.js';
import { previousAttributes } from '../events/log.js';
import { entityTag } from '../rest/conditional.js';
import { AppError, notFound, validationFailed } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { parseInput } from '../shared/validation.js';
import { bookingRequestHash, createWithKey, firstBookingAnswer, storedBooking } from './idempotency.js';
import { checkPartySize, checkSlot, endOf, findServiceOrFail, movePlaces, releasePlaces, reservePlaces } from './places.js';
import { bookingRepresentation } from './representation.js';
import { accountOf } from './service.js';
import { holdOwnerOf, recordHoldBooked, takeHold } from './holds/holds.js';
import { offerFreedPlaces } from './holds/offers.js';
import { commitChange, type Tx } from './transaction.js';
import { cancelBookingSchema, createBookingSchema, updateBookingSchema } from './validation.js';

/** The booking writes: create, update and cancel, each a change committed with its event. */

/**
 * The booking's version: the opaque value of the strong ETag GET /v1/bookings/{id} answers, which is
 * over the same bytes (BookingFields answers the representation's keys in its order).
 */
export function bookingVersion(booking: Booking): string {
  return entityTag(JSON.stringify(bookingRepresentation(booking))).slice(1, -1);
}

/**
 * Whether `condition` holds for the booking's version: `*`, a version, or an If-Match list of
 * quoted ETags, compared strongly (RFC 9110 §13.1.1: a weak tag never matches).
 */
function versionMatches(condition: string, version: string): boolean {
  return condition.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || tag === version || tag === `"${version}"`;
  });
}

/**
 * Row lock on the booking, so concurrent changes to one booking apply one after the other; with
 * `expectedVersion`, the booking as locked must still be at it, so the check and the write are one
 * step: of two writers that read the same version, the second sees the first's change and is refused.
 */
async function lockBooking(tx: Tx, accountId: string, id: string, expectedVersion: string | null = null): Promise<Booking> {
  await tx.$executeRaw`SELECT 1 FROM bookings WHERE id = ${id} AND account_id = ${accountId} FOR UPDATE`;
  const booking = await tx.booking.findFirst({ where: { id, accountId } });
  if (!booking) throw notFound('booking', id);
  if (expectedVersion !== null && !versionMatches(expectedVersion, bookingVersion(booking))) {
    throw new AppError('precondition_failed', `Booking ${id} changed since that version; read it again and retry with its new version.`);
  }
  return booking;
}

/** Who a change is made by, as booking.cancelled names it: the calling key, or `operator` for an admin key (the CLI's and operators' tools). */
function actorOf(context: Context): string {
  const principal = context.principal!;
  return grantedScopes(principal).includes('admin') ? 'operator' : credentialIdOf(principal);
}

export async function createBooking(context: Context, rawInput: unknown, idempotencyKey: string | null): Promise<{ booking: Booking; replayed: boolean }> {
  const accountId = accountOf(context);
  const input = parseInput(createBookingSchema(context.services.clock()), rawInput);
  const { created, replayed } = await createWithKey(context, idempotencyKey, bookingRequestHash(input), firstBookingAnswer, (key) =>
    commitChange(context, async (tx, now, record) => {
      await key.claim(tx, now);
      const held = input.holdId === undefined ? undefined : await takeHold(tx, holdOwnerOf(context), input.holdId, now);
      const slot = held ? held.hold : { serviceId: input.serviceId!, startTime: input.startTime!, partySize: input.partySize ?? 1 };
      const service = await findServiceOrFail(tx, slot.serviceId);
      if (!held) {
        checkSlot(service, slot.startTime, now);
        checkPartySize(service, slot.partySize);
        await reservePlaces(tx, service, slot.startTime, slot.partySize, now);
      }
      const customer = input.customer ?? held?.customer;
      if (!customer) throw validationFailed([{ field: 'customer', code: 'required', message: 'customer is required: this hold was not offered to a waitlist entry.' }]);
      const booking = await tx.booking.create({
        data: {
          id: newId('booking'),
          accountId,
          serviceId: service.id,
          startTime: slot.startTime,
          // The hold's end: a later change of the service moves no place it kept.
          endTime: held ? held.hold.endTime : endOf(service, slot.startTime),
          partySize: slot.partySize,
          customerName: customer.name,
          customerEmail: customer.email,
          createdAt: now,
          updatedAt: now,
        },
      });
      if (held) await recordHoldBooked(tx, record, held.hold, booking, now);
      await key.keep(tx, booking.id, storedBooking(booking));
      return { booking, event: 'booking.created', placesOf: [service.id] };
    }),
  );
  return { booking: created, replayed };
}

/** Changes a booking; with `expectedVersion` (If-Match, GraphQL `version`), only while it is still at that version. */
export async function updateBooking(context: Context, id: string, rawInput: unknown, expectedVersion: string | null = null): Promise<Booking> {
  const accountId = accountOf(context);
  const input = parseInput(updateBookingSchema(context.services.clock()), rawInput);
  return commitChange(context, async (tx, now, record) => {
    const current = await lockBooking(tx, accountId, id, expectedVersion);
    if (current.status === 'cancelled') throw new AppError('booking_cancelled', `Booking ${id} is cancelled; it cannot change.`);
    const next = {
      serviceId: input.serviceId ?? current.serviceId,
      startTime: input.startTime ?? current.startTime,
      partySize: input.partySize ?? current.partySize,
      customerName: input.customer?.name ?? current.customerName,
      customerEmail: input.customer?.email ?? current.customerEmail,
    };
    const slotChanges = next.serviceId !== current.serviceId || next.startTime.getTime() !== current.startTime.getTime();
    const placesChange = slotChanges || next.partySize !== current.partySize;
    const changes = placesChange || next.customerName !== current.customerName || next.customerEmail !== current.customerEmail;
    if (!changes) return { booking: current, event: null };
    let endTime = current.endTime;
    if (placesChange) {
      const service = await findServiceOrFail(tx, next.serviceId);
      if (slotChanges) {
        checkSlot(service, next.startTime, now);
        endTime = endOf(service, next.startTime);
      } else if (current.startTime.getTime() <= now.getTime()) {
        // A new party size in the booking's own slot, which stays valid even if the schedule moved on since.
        throw validationFailed([{ field: 'partySize', code: 'in_past', message: "The booking's slot has started; its party size cannot change." }]);
      }
      checkPartySize(service, next.partySize);
      await movePlaces(tx, current, service, next.startTime, next.partySize, now);
      // Places the booking left in its old slot (a move, or a smaller party) go to that slot's waitlist.
      await offerFreedPlaces(tx, record, current.serviceId, current.startTime, now);
    }
    const updated = await tx.booking.update({ where: { id }, data: { ...next, endTime, updatedAt: now } });
    return {
      booking: updated,
      event: 'booking.updated',
      details: { previous_attributes: previousAttributes(bookingRepresentation(current), bookingRepresentation(updated)) },
      placesOf: placesChange ? [current.serviceId, next.serviceId] : [],
    };
  });
}

/**
 * Cancels a confirmed booking, with the client's reason if it gives one; cancelling a cancelled one
 * changes nothing and logs nothing. With `expectedVersion`, only while it is still at that version.
 */
export async function cancelBooking(context: Context, id: string, rawInput: unknown = {}, expectedVersion: string | null = null): Promise<Booking> {
  const accountId = accountOf(context);
  const input = parseInput(cancelBookingSchema, rawInput ?? {});
  return commitChange(context, async (tx, now, record) => {
    const current = await lockBooking(tx, accountId, id, expectedVersion);
    if (current.status === 'cancelled') return { booking: current, event: null };
    await releasePlaces(tx, current);
    await offerFreedPlaces(tx, record, current.serviceId, current.startTime, now);
    const cancelled = await tx.booking.update({ where: { id }, data: { status: 'cancelled', cancelledAt: now, updatedAt: now } });
    return {
      booking: cancelled,
      event: 'booking.cancelled',
      details: { cancellation: { by: actorOf(context), reason: input.reason ?? null } },
      placesOf: [current.serviceId],
    };
  });
}
