import type { Booking } from '../generated/prisma/client.js';
import { builder } from '../graphql/builder.js';
import { AppError } from '../shared/errors.js';
import { answersKeptUnder } from '../graphql/kept-answers.js';
import { bookingsDataVersion, cancelBooking, createBooking, findOwnBooking, updateBooking } from './service.js';

/** Root fields over the account's bookings: answers are kept until the account's bookings change. */
const bookingsRootField = { authScopes: { scope: 'bookings:read' }, extensions: answersKeptUnder(bookingsDataVersion) } as const;

const BookingStatus = builder.enumType('BookingStatus', {
  values: ['confirmed', 'cancelled'] as const,
  description: 'confirmed → cancelled is the only transition; cancelled is final.',
});

const Customer = builder.objectRef<{ name: string; email: string }>('Customer').implement({
  fields: (t) => ({
    name: t.exposeString('name'),
    email: t.exposeString('email'),
  }),
});

builder.prismaNode('Service', {
  id: { field: 'id' },
  nullable: true,
  description: 'A bookable offering, such as a timed entry to a haunted house.',
  authScopes: { authenticated: true },
  fields: (t) => ({
    name: t.exposeString('name'),
    attractionId: t.exposeID('attractionId'),
    durationMinutes: t.exposeInt('durationMinutes'),
    capacity: t.exposeInt('capacity', { description: 'Confirmed bookings allowed per start time.' }),
  }),
});

export const BookingRef = builder.prismaNode('Booking', {
  id: { field: 'id' },
  authScopes: { scope: 'bookings:read' },
  nullable: true,
  // node(id:) must not reveal another account's booking.
  findUnique: (id, context) => ({ id, accountId: context.principal?.accountId ?? '' }),
  fields: (t) => ({
    status: t.expose('status', { type: BookingStatus }),
    startTime: t.expose('startTime', { type: 'DateTime' }),
    serviceId: t.exposeID('serviceId'),
    // A booking that no query loaded (a mutation's answer, or the stored first answer an idempotent
    // replay gives) is answered from its own fields: loading them again would show it as it is now.
    service: t.relation('service', {
      resolve: (query, booking, _args, context) => context.prisma.service.findUniqueOrThrow({ ...query, where: { id: booking.serviceId } }),
    }),
    customer: t.field({
      type: Customer,
      resolve: (booking) => ({ name: booking.customerName, email: booking.customerEmail }),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    cancelledAt: t.expose('cancelledAt', { type: 'DateTime', nullable: true }),
  }),
});

builder.queryFields((t) => ({
  bookings: t.prismaConnection({
    type: 'Booking',
    cursor: 'id',
    ...bookingsRootField,
    description: "The account's bookings whose start_time falls on the given UTC days (both inclusive), by start time.",
    args: {
      startDate: t.arg({ type: 'Date' }),
      endDate: t.arg({ type: 'Date' }),
      status: t.arg({ type: BookingStatus }),
      serviceId: t.arg.id(),
    },
    resolve: (query, _root, args, context) => {
      if (args.startDate && args.endDate && args.startDate > args.endDate) {
        throw new AppError('invalid_parameter', 'startDate must not be after endDate.', {
          fieldErrors: [{ field: 'startDate', code: 'after_end_date', message: 'startDate must not be after endDate.' }],
        });
      }
      const endExclusive = args.endDate ? new Date(args.endDate.getTime() + 86_400_000) : undefined;
      return context.prisma.booking.findMany({
        ...query,
        where: {
          accountId: context.principal!.accountId,
          startTime: { ...(args.startDate ? { gte: args.startDate } : {}), ...(endExclusive ? { lt: endExclusive } : {}) },
          ...(args.status ? { status: args.status } : {}),
          ...(args.serviceId ? { serviceId: String(args.serviceId) } : {}),
        },
        orderBy: [{ startTime: 'asc' }, { id: 'asc' }],
      });
    },
  }),
  bookingsLastModified: t.field({
    type: 'DateTime',
    nullable: true,
    ...bookingsRootField,
    description: 'When any booking of the account last changed (null before the first): Last-Modified for every list of them.',
    // Every change logs an event stamped with the booking's updatedAt, so the newest event dates the
    // newest change; one step down the (account, seq) index instead of a scan of every booking.
    resolve: async (_root, _args, context) =>
      (
        await context.prisma.bookingEvent.findFirst({
          where: { accountId: context.principal!.accountId },
          orderBy: { seq: 'desc' },
          select: { createdAt: true },
        })
      )?.createdAt ?? null,
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
    authScopes: { authenticated: true },
    args: { attractionId: t.arg.id() },
    resolve: (query, _root, args, context) =>
      context.prisma.service.findMany({
        ...query,
        where: args.attractionId ? { attractionId: String(args.attractionId) } : {},
        orderBy: { id: 'asc' },
      }),
  }),
  service: t.prismaField({
    type: 'Service',
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, context) => {
      const service = await context.prisma.service.findUnique({ ...query, where: { id: String(args.id) } });
      if (!service) throw new AppError('not_found', `No service with id "${args.id}".`);
      return service;
    },
  }),
}));

const CustomerInput = builder.inputType('CustomerInput', {
  fields: (t) => ({
    name: t.string(),
    email: t.string(),
  }),
});

// Fields are nullable so that a missing one reaches the shared validation and comes back as a
// 422 field error, as it does over REST, instead of a schema error.
const CreateBookingInput = builder.inputType('CreateBookingInput', {
  fields: (t) => ({
    serviceId: t.string(),
    startTime: t.string({ description: 'ISO 8601 UTC, e.g. 2026-10-31T19:00:00Z.' }),
    customer: t.field({ type: CustomerInput }),
  }),
});

const UpdateBookingInput = builder.inputType('UpdateBookingInput', {
  fields: (t) => ({
    serviceId: t.string(),
    startTime: t.string(),
    customer: t.field({ type: CustomerInput }),
  }),
});

// Payloads carry the row the transaction returned; relations a client selects load on demand.
const CreateBookingPayload = builder.objectRef<{ replayed: boolean; booking: Booking }>('CreateBookingPayload').implement({
  fields: (t) => ({
    replayed: t.exposeBoolean('replayed', {
      description: 'True when an earlier request with the same idempotency key made this booking.',
    }),
    booking: t.field({ type: BookingRef, resolve: (payload) => payload.booking }),
  }),
});

builder.mutationFields((t) => ({
  createBooking: t.field({
    type: CreateBookingPayload,
    authScopes: { scope: 'bookings:write' },
    args: {
      input: t.arg({ type: CreateBookingInput, required: true }),
      idempotencyKey: t.arg.string({ description: 'Replays the first result for 24 h when sent again with the same input.' }),
    },
    resolve: (_root, args, context) => createBooking(context, args.input, args.idempotencyKey ?? null),
  }),
  updateBooking: t.field({
    type: BookingRef,
    authScopes: { scope: 'bookings:write' },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateBookingInput, required: true }) },
    resolve: (_root, args, context) => updateBooking(context, String(args.id), args.input),
  }),
  cancelBooking: t.field({
    type: BookingRef,
    authScopes: { scope: 'bookings:write' },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, context) => cancelBooking(context, String(args.id)),
  }),
}));
