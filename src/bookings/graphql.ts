import { Kind, type OperationDefinitionNode } from 'graphql';
import type { Booking } from '../generated/prisma/client.js';
import { queryFromInfo } from '@pothos/plugin-prisma';
import { resolveCursorConnection } from '@pothos/plugin-relay';
import { pageSizes, readsOwnCursors } from '../graphql/argument-checks.js';
import { hasScope, insufficientScope } from '../access/principal.js';
import { builder, listOfAtMost, nodeScope } from '../graphql/builder.js';
import { pageById } from '../graphql/keyset-pages.js';
import { upperCaseEnum } from '../graphql/enums.js';
import { AppError, notFound } from '../shared/errors.js';
import { inputRules } from '../graphql/input-coercion.js';
import { cachedUnderDataVersion } from '../response-cache/graphql-data-versions.js';
import type { BookableSlot } from './bookable.js';
import { availabilityOf, executionOf, maxAvailabilityDays, maxAvailableSlots, servicesDataVersion, type AvailableSlot } from './availability.js';
import { availabilityChanges } from './live-availability.js';
import { createService, maxOpeningHours, newServiceInput, updateService } from './operators.js';
import { beyondBookingListCursor, bookingListCursor, bookingListOrder, bookingListOrderBy } from './list.js';
import { maxSlotsPerDay } from './schedule.js';
import { cancelBookingSchema, createBookingSchema, updateBookingSchema } from './validation.js';
import type { OpeningHours } from './schedule.js';
import { bookingVersion, cancelBooking, createBooking, updateBooking } from './changes.js';
import { accountLogPositionPiggyback, bookingsDataVersion, bookingsLastChanged, findOwnBooking } from './service.js';

/** Whether the operation asks for a root field by name (fragments at the root are not looked into). */
const asksForRootField = (operation: OperationDefinitionNode, name: string) =>
  operation.selectionSet.selections.some((selection) => selection.kind === Kind.FIELD && selection.name.value === name);

/** Root fields over the account's bookings: answers are kept until the account's bookings change. */
const bookingsRootField = { authScopes: { scope: 'bookings:read' }, extensions: cachedUnderDataVersion(bookingsDataVersion) } as const;

/** Root fields over services: answers are kept until a service, the places of its slots or the minute change. */
const servicesRootField = { authScopes: { authenticated: true }, extensions: cachedUnderDataVersion(servicesDataVersion) } as const;

/**
 * A service's fields and its availability are public (a page shows them): API keys and every widget
 * token read any service, though only API keys list them.
 */
const serviceReaders = { authenticated: true, widgetToken: true } as const;

/** Availability, one answer or live: keys that read bookings, and every widget token. */
const availabilityReaders = { anyScope: ['bookings:read', 'bookings:book'], widgetToken: true } as const;

/** Who may create a booking: a booking widget token too, but only from a hold (bookings:book). */
const bookingWriters = ['bookings:write', 'bookings:book'] as const;

const BookingStatus = upperCaseEnum('BookingStatus', ['confirmed', 'cancelled'], 'CONFIRMED → CANCELLED is the only transition; CANCELLED is final.');

export const Customer = builder.objectRef<{ name: string; email: string }>('Customer').implement({
  fields: (t) => ({
    name: t.exposeString('name'),
    email: t.exposeString('email'),
  }),
});

export const OpeningHoursRef = builder.objectRef<OpeningHours>('OpeningHours').implement({
  description: "Weekly opening hours in the service's time zone; slots start every slotMinutes from opens while the visit ends by closes.",
  fields: (t) => ({
    weekday: t.exposeInt('weekday', { description: 'ISO weekday: 1 = Monday … 7 = Sunday; the day the opening opens on.' }),
    opens: t.exposeString('opens', { description: 'Local time, HH:MM.' }),
    closes: t.exposeString('closes', { description: 'Local time, HH:MM; earlier than opens means after midnight.' }),
  }),
});

const AvailableSlotRef = builder.objectRef<AvailableSlot>('AvailableSlot').implement({
  description: 'A slot that has not started, with the places confirmed bookings and unexpired holds left in it.',
  fields: (t) => ({
    serviceId: t.exposeID('serviceId'),
    startTime: t.expose('startTime', { type: 'DateTime' }),
    endTime: t.expose('endTime', { type: 'DateTime', description: 'startTime plus the duration of the service.' }),
    capacity: t.exposeInt('capacity'),
    remaining: t.exposeInt('remaining', { description: 'capacity minus the places (party sizes) of confirmed bookings and of holds not expired.' }),
  }),
});

export const BookableSlotRef = builder.objectRef<BookableSlot>('BookableSlot').implement({
  description: "A slot with room for the party a directory search asked for (availableFor), in the search's window.",
  fields: (t) => ({
    serviceId: t.exposeID('serviceId', { description: 'The service that books it (Service.availability has the rest of its slots).' }),
    startTime: t.expose('startTime', { type: 'DateTime' }),
    endTime: t.expose('endTime', { type: 'DateTime' }),
    remaining: t.exposeInt('remaining', { description: 'Places left: at least the party size asked for.' }),
  }),
});

builder.prismaNode('Service', {
  id: { field: 'id' },
  nullable: true,
  description: 'A bookable offering, such as a timed entry to a haunted house.',
  authScopes: serviceReaders,
  fields: (t) => ({
    name: t.exposeString('name'),
    attractionId: t.exposeID('attractionId'),
    durationMinutes: t.exposeInt('durationMinutes'),
    capacity: t.exposeInt('capacity', { description: 'Places (party sizes of confirmed bookings and unexpired holds) per slot.' }),
    timezone: t.exposeString('timezone', { description: "The attraction's IANA time zone; opening hours and season are in its local time." }),
    slotMinutes: t.exposeInt('slotMinutes', { description: 'Minutes between two slot starts.' }),
    seasonStart: t.expose('seasonStart', { type: 'Date', description: 'First day of the season, local, inclusive.' }),
    seasonEnd: t.expose('seasonEnd', { type: 'Date', description: 'Last day of the season, local, inclusive.' }),
    openingHours: t.field({
      type: [OpeningHoursRef],
      complexity: listOfAtMost(maxOpeningHours),
      resolve: (service) => service.openingHours as unknown as OpeningHours[],
    }),
    availability: t.field({
      type: [AvailableSlotRef],
      authScopes: availabilityReaders,
      description: 'The slots starting on the local days startDate … endDate (at most 31) that have not started, oldest first.',
      args: { startDate: t.arg({ type: 'Date', required: true }), endDate: t.arg({ type: 'Date', required: true }) },
      // Weighed by the slots the range can hold, its work and its answer, before anything runs.
      complexity: listOfAtMost(maxAvailabilityDays * maxSlotsPerDay, maxAvailableSlots),
      // Places of every account and the clock: responses that include it are cached under the services data version too.
      extensions: cachedUnderDataVersion(servicesDataVersion),
      resolve: (service, args, context, info) => availabilityOf(context, executionOf(context, info), service, args.startDate, args.endDate),
    }),
  }),
});

export const BookingRef = builder.prismaNode('Booking', {
  id: { field: 'id' },
  // A key that writes bookings sees what it wrote (and may change any of them), so either scope shows one.
  // A booking widget token sees the booking it made in createBooking's answer, and never another.
  extensions: nodeScope(['bookings:read', 'bookings:write'], ['bookings:book']),
  nullable: true,
  // node(id:) must not reveal another account's booking.
  findUnique: (id, context) => ({ id, accountId: context.principal?.accountId ?? '' }),
  fields: (t) => ({
    status: t.expose('status', { type: BookingStatus }),
    startTime: t.expose('startTime', { type: 'DateTime' }),
    endTime: t.expose('endTime', { type: 'DateTime', description: 'startTime plus the duration of the service when the slot was booked.' }),
    partySize: t.exposeInt('partySize', { description: 'Places the booking takes in its slot.' }),
    serviceId: t.exposeID('serviceId'),
    // A booking that no query loaded (a mutation's answer, or the stored first answer an idempotent
    // replay gives) is answered from its own fields: loading them again would show it as it is now.
    // A service changes with its operator's writes, not the account's bookings: responses through it are cached under its data version too.
    service: t.relation('service', {
      extensions: cachedUnderDataVersion(servicesDataVersion),
      resolve: (query, booking, _args, context) => context.prisma.service.findUniqueOrThrow({ ...query, where: { id: booking.serviceId } }),
    }),
    customer: t.field({
      type: Customer,
      resolve: (booking) => ({ name: booking.customerName, email: booking.customerEmail }),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    cancelledAt: t.expose('cancelledAt', { type: 'DateTime', nullable: true }),
    version: t.string({
      description:
        'Changes whenever any other field does: the opaque value of the ETag GET /v1/bookings/{id} answers. Send it as `version` to updateBooking or cancelBooking to change the booking only if nobody changed it since.',
      select: {
        id: true,
        status: true,
        startTime: true,
        endTime: true,
        partySize: true,
        serviceId: true,
        customerName: true,
        customerEmail: true,
        createdAt: true,
        updatedAt: true,
        cancelledAt: true,
      },
      resolve: (booking) => bookingVersion(booking as Booking),
    }),
  }),
});

builder.subscriptionField('availabilityChanged', (t) =>
  t.field({
    type: AvailableSlotRef,
    authScopes: availabilityReaders,
    description:
      'The live availability of a service on the local days startDate … endDate (at most 31): first every slot of the range that has not started, as Service.availability lists it, then each slot whose remaining changes, as the change commits (bookings, cancels, reschedules, holds placed, released, booked or expired, waitlist offers, an operator changing the service). A slot an operator takes out of the schedule is sent once with remaining 0. Resuming after a reconnect is subscribing again: the first slots are the current state. Over SSE, the last slot of each change carries an id; sent back as Last-Event-ID, nothing is sent first while the state is still the one it names.',
    args: {
      serviceId: t.arg.id({ required: true }),
      startDate: t.arg({ type: 'Date', required: true }),
      endDate: t.arg({ type: 'Date', required: true }),
    },
    // The work of each read and the first answers: the slots of the range, as for Service.availability.
    complexity: listOfAtMost(maxAvailabilityDays * maxSlotsPerDay, maxAvailableSlots),
    subscribe: (_root, args, context) => availabilityChanges(context, String(args.serviceId), args.startDate, args.endDate),
    resolve: (slot) => slot,
  }),
);

builder.queryFields((t) => ({
  bookings: t.connection({
    type: BookingRef,
    ...bookingsRootField,
    extensions: { ...bookingsRootField.extensions, [readsOwnCursors]: true },
    description:
      "The account's bookings whose start_time falls on the given UTC days (both inclusive), by start time; with updatedSince, by updatedAt (then id), to re-sync what changed since. A cursor pages in the order it was made in.",
    args: {
      startDate: t.arg({ type: 'Date' }),
      endDate: t.arg({ type: 'Date' }),
      status: t.arg({ type: BookingStatus }),
      serviceId: t.arg.id(),
      updatedSince: t.arg({ type: 'DateTime', description: 'Only bookings changed (updatedAt) at or after this time; orders the list by updatedAt, then id.' }),
      createdSince: t.arg({ type: 'DateTime', description: 'Only bookings created at or after this time.' }),
    },
    resolve: (_root, args, context, info) => {
      if (args.startDate && args.endDate && args.startDate > args.endDate) {
        throw new AppError('invalid_parameter', 'startDate must not be after endDate.', {
          fieldErrors: [{ field: 'startDate', code: 'after_end_date', message: 'startDate must not be after endDate.' }],
        });
      }
      const endExclusive = args.endDate ? new Date(args.endDate.getTime() + 86_400_000) : undefined;
      const order = bookingListOrder(args.updatedSince);
      return resolveCursorConnection<Promise<Booking[]>>(
        { args, toCursor: (booking: Booking) => bookingListCursor(order, booking), defaultSize: pageSizes.default, maxSize: pageSizes.max },
        ({ before, after, limit, inverted }): Promise<Booking[]> =>
          context.services.directReads.findMany(
            context.prisma.booking,
            'Booking',
            {
              ...queryFromInfo({ context, info, path: ['edges', 'node'], typeName: 'Booking' }),
              where: {
                accountId: context.principal!.accountId,
                startTime: { ...(args.startDate ? { gte: args.startDate } : {}), ...(endExclusive ? { lt: endExclusive } : {}) },
                ...(args.status ? { status: args.status } : {}),
                ...(args.serviceId ? { serviceId: String(args.serviceId) } : {}),
                ...(args.updatedSince ? { updatedAt: { gte: args.updatedSince } } : {}),
                ...(args.createdSince ? { createdAt: { gte: args.createdSince } } : {}),
                // One AND for both cursors: two spreads of it would keep only the second's.
                ...(after || before
                  ? {
                      AND: [...(after ? [beyondBookingListCursor(after, 'after', order, false)] : []), ...(before ? [beyondBookingListCursor(before, 'before', order, true)] : [])],
                    }
                  : {}),
              },
              orderBy: bookingListOrderBy(order, inverted),
              take: limit,
            },
            asksForRootField(info.operation, 'bookingsLastModified') ? accountLogPositionPiggyback(context) : undefined,
          ),
      );
    },
  }),
  bookingsLastModified: t.field({
    type: 'DateTime',
    nullable: true,
    ...bookingsRootField,
    description: 'When any booking of the account last changed (null before the first): Last-Modified for every list of them.',
    resolve: (_root, _args, context) => bookingsLastChanged(context),
  }),
  bookingsVersion: t.string({
    authScopes: { scope: 'bookings:read' },
    description: "Changes whenever any answer about the account's bookings could change; a cheap validator for caches.",
    resolve: (_root, _args, context) => bookingsDataVersion(context),
  }),
  booking: t.prismaField({
    type: 'Booking',
    ...bookingsRootField,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, context) => {
      const booking = await findOwnBooking(context, String(args.id));
      return context.prisma.booking.findUniqueOrThrow({ ...query, where: { id: booking.id } });
    },
  }),
  services: t.prismaConnection({
    type: 'Service',
    cursor: 'id',
    ...servicesRootField,
    args: { attractionId: t.arg.id() },
    resolve: async (query, _root, args, context) => {
      // Ordered by id, the cursor's own key: a service stays in its attraction's list, so a cursor names one of it.
      const listed = args.attractionId ? { attractionId: String(args.attractionId) } : {};
      const page = await pageById(query, listed, (where) => context.prisma.service.findFirst({ where, select: { id: true } }));
      return context.services.directReads.findMany(context.prisma.service, 'Service', page);
    },
  }),
  service: t.prismaField({
    type: 'Service',
    ...servicesRootField,
    authScopes: serviceReaders,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, context) => {
      const service = await context.services.directReads.findUnique(context.prisma.service, 'Service', { ...query, where: { id: String(args.id) } });
      if (!service) throw notFound('service', String(args.id));
      return service;
    },
  }),
}));

export const CustomerInput = builder.inputType('CustomerInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    email: t.string({ required: true }),
  }),
});

const CustomerChangeInput = builder.inputType('CustomerChangeInput', {
  description: 'The customer fields to change; those left out stay.',
  fields: (t) => ({
    name: t.string(),
    email: t.string(),
  }),
});

const CreateBookingInput = builder.inputType('CreateBookingInput', {
  extensions: inputRules((context) => createBookingSchema(context.services.clock())),
  description: 'A slot (serviceId, startTime, partySize) and a customer; or holdId alone, whose places it takes, and the customer unless the hold is a waitlist offer.',
  fields: (t) => ({
    holdId: t.id({ description: 'A hold of the account: the booking takes its slot and places with no new capacity check; hold_expired when it is no longer held.' }),
    serviceId: t.id({ description: 'Required without holdId.' }),
    startTime: t.field({ type: 'DateTime', description: 'A slot of the service that has not started (Service.availability lists them); required without holdId.' }),
    partySize: t.int({ description: 'Places to take in the slot: 1 (the default) up to the capacity of the service.' }),
    customer: t.field({ type: CustomerInput, description: "Required, but with a waitlist offer's hold: its entry's customer." }),
  }),
});

const UpdateBookingInput = builder.inputType('UpdateBookingInput', {
  extensions: inputRules((context) => updateBookingSchema(context.services.clock())),
  description: 'At least one field; those left out stay.',
  fields: (t) => ({
    serviceId: t.id(),
    startTime: t.field({ type: 'DateTime', description: 'A slot of the service that has not started.' }),
    partySize: t.int({ description: 'Places to take instead, up to the capacity of the service.' }),
    customer: t.field({ type: CustomerChangeInput }),
  }),
});

const CancelBookingInput = builder.inputType('CancelBookingInput', {
  extensions: inputRules(() => cancelBookingSchema),
  fields: (t) => ({
    reason: t.string({ description: 'Why, in at most 500 characters; booking.cancelled carries it.' }),
  }),
});

/** The `version` argument of the booking writes: the same condition as REST's If-Match. */
const versionArgument = {
  description: "The booking's version as last read: if the booking changed since, nothing changes and the answer is the error precondition_failed. `*` matches any version.",
};

const OpeningHoursInput = builder.inputType('OpeningHoursInput', {
  description: "Weekly opening hours in the service's time zone.",
  fields: (t) => ({
    weekday: t.int({ required: true, description: 'ISO weekday: 1 = Monday … 7 = Sunday.' }),
    opens: t.string({ required: true, description: 'Local time, HH:MM.' }),
    closes: t.string({ required: true, description: 'Local time, HH:MM; earlier than opens means after midnight.' }),
  }),
});

const CreateServiceInput = builder.inputType('CreateServiceInput', {
  extensions: inputRules(() => newServiceInput),
  fields: (t) => ({
    attractionId: t.id({ required: true }),
    name: t.string({ required: true }),
    durationMinutes: t.int({ required: true, description: 'Length of one visit; every opening must be at least this long.' }),
    capacity: t.int({ required: true, description: 'Places per slot.' }),
    timezone: t.string({ required: true, description: "The attraction's IANA time zone, such as America/Chicago." }),
    slotMinutes: t.int({ required: true, description: 'Minutes between two slot starts, 5 to 1440.' }),
    seasonStart: t.field({ type: 'Date', required: true, description: 'First local day of the season.' }),
    seasonEnd: t.field({ type: 'Date', required: true, description: 'Last local day of the season, not before seasonStart.' }),
    openingHours: t.field({ type: [OpeningHoursInput], required: true }),
  }),
});

const UpdateServiceInput = builder.inputType('UpdateServiceInput', {
  description: 'At least one field; those left out stay. Confirmed bookings keep their slot whatever changes.',
  fields: (t) => ({
    attractionId: t.id(),
    name: t.string(),
    durationMinutes: t.int(),
    capacity: t.int(),
    timezone: t.string(),
    slotMinutes: t.int(),
    seasonStart: t.field({ type: 'Date' }),
    seasonEnd: t.field({ type: 'Date' }),
    openingHours: t.field({ type: [OpeningHoursInput], description: 'Replaces every opening.' }),
  }),
});

// Payloads carry the row the transaction returned; relations a client selects load on demand.
const CreateBookingPayload = builder.objectRef<{ replayed: boolean; booking: Booking }>('CreateBookingPayload').implement({
  extensions: nodeScope('bookings:write', ['bookings:book']),
  fields: (t) => ({
    replayed: t.exposeBoolean('replayed', {
      description: 'True when an earlier request with the same idempotency key made this booking.',
    }),
    booking: t.field({ type: BookingRef, resolve: (payload) => payload.booking }),
  }),
});

builder.mutationFields((t) => ({
  createService: t.prismaField({
    type: 'Service',
    authScopes: { scope: 'admin' },
    description: 'A new bookable service (operators).',
    args: { input: t.arg({ type: CreateServiceInput, required: true }) },
    resolve: (_query, _root, args, context) => createService(context.prisma, args.input),
  }),
  updateService: t.prismaField({
    type: 'Service',
    authScopes: { scope: 'admin' },
    description: 'Changes a service and its schedule (operators); confirmed bookings are never cancelled or moved.',
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateServiceInput, required: true }) },
    resolve: async (_query, _root, args, context) => {
      const service = await updateService(context.prisma, String(args.id), args.input);
      // After commit: its capacity or schedule may have changed the places of its slots.
      context.services.availabilityBus.publish(service.id);
      return service;
    },
  }),
  createBooking: t.field({
    type: CreateBookingPayload,
    authScopes: { anyScope: bookingWriters },
    args: {
      input: t.arg({ type: CreateBookingInput, required: true }),
      idempotencyKey: t.arg.string({ description: 'Replays the first result for 24 h when sent again with the same input.' }),
    },
    resolve: (_root, args, context) => {
      // bookings:book books a hold for the customer it names: it never books a slot outright, nor takes a waitlist entry's customer.
      if (!hasScope(context.principal, 'bookings:write') && (!args.input.holdId || !args.input.customer)) {
        throw insufficientScope(['bookings:write'], 'A booking widget token books a hold (holdId) for the customer it names.');
      }
      return createBooking(context, args.input, args.idempotencyKey ?? null);
    },
  }),
  updateBooking: t.field({
    type: BookingRef,
    authScopes: { scope: 'bookings:write' },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateBookingInput, required: true }), version: t.arg.string(versionArgument) },
    resolve: (_root, args, context) => updateBooking(context, String(args.id), args.input, args.version ?? null),
  }),
  cancelBooking: t.field({
    type: BookingRef,
    authScopes: { scope: 'bookings:write' },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: CancelBookingInput }), version: t.arg.string(versionArgument) },
    resolve: (_root, args, context) => cancelBooking(context, String(args.id), args.input ?? {}, args.version ?? null),
  }),
}));
