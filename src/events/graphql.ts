import { bookingsDataVersion } from '../bookings/service.js';
import { builder, nodeScope } from '../graphql/builder.js';
import { keysetPage } from '../graphql/keyset-pages.js';
import { cachedUnderDataVersion, neverCached } from '../response-cache/graphql-data-versions.js';
import type { Context } from '../graphql/context.js';
import { AppError, echoed } from '../shared/errors.js';
import { logEventEnumName, logEventTypes, type LogEventType } from './kinds.js';
import type { LogEventPayload } from './log.js';

export const BookingEventTypeEnum = builder.enumType('BookingEventType', {
  values: Object.fromEntries(logEventTypes.map((type) => [logEventEnumName(type), { value: type }])) as Record<
    'CREATED' | 'UPDATED' | 'CANCELLED' | 'WAITLIST_OFFERED',
    { value: LogEventType }
  >,
});

export const BookingEventRef = builder.prismaNode('BookingEvent', {
  id: { field: 'id' },
  description: "One event of the account's durable log (a booking change, or a waitlist offer); the same body webhooks deliver.",
  extensions: nodeScope('bookings:read'),
  nullable: true,
  findUnique: (id, context) => ({ id, accountId: context.principal?.accountId ?? '' }),
  fields: (t) => ({
    event: t.exposeString('type', { description: 'booking.created, booking.updated, booking.cancelled or waitlist.offered, as in webhooks.' }),
    created: t.expose('createdAt', { type: 'DateTime' }),
    data: t.field({
      type: 'JSON',
      description: 'The booking as it was after the change, or the waitlist entry as offered (snake_case, as in webhooks).',
      select: { payload: true },
      resolve: (row) => (row.payload as unknown as LogEventPayload).data,
    }),
    booking: t.relation('booking', { nullable: true, description: 'The booking as it is now (booking.* events).' }),
    // Its status changes with time and with writes that log nothing (a withdrawal, an expiry).
    waitlistEntry: t.relation('waitlistEntry', { nullable: true, description: 'The waitlist entry as it is now (waitlist.offered).', extensions: neverCached() }),
  }),
});

/** Position in the log of an event of the caller's account, for `after=msg_…`. */
export async function logPositionOf(context: Context, eventId: string, argument: string): Promise<bigint> {
  const event = await context.prisma.bookingEvent.findFirst({
    where: { id: eventId, accountId: context.principal!.accountId },
    select: { seq: true },
  });
  if (!event) {
    throw new AppError('invalid_parameter', `${argument} names no event of this account: "${echoed(eventId)}".`, {
      fieldErrors: [{ field: argument, code: 'unknown', message: 'Use the id of an event this account received.' }],
    });
  }
  return event.seq;
}

builder.queryField('bookingEvents', (t) =>
  t.prismaConnection({
    type: 'BookingEvent',
    cursor: 'id',
    authScopes: { scope: 'bookings:read' },
    // Booking events are the log the bookings data version reads.
    extensions: cachedUnderDataVersion(bookingsDataVersion),
    description: "The account's booking events, oldest first.",
    args: {
      afterEvent: t.arg.id({ description: 'Only events logged after this msg_… id.' }),
      types: t.arg({ type: [BookingEventTypeEnum] }),
    },
    resolve: async (query, _root, args, context) => {
      const accountId = context.principal!.accountId;
      const afterSeq = args.afterEvent ? await logPositionOf(context, String(args.afterEvent), 'afterEvent') : undefined;
      const { page, past } = await keysetPage(query, async (id) => (await context.prisma.bookingEvent.findFirst({ where: { id, accountId }, select: { seq: true } }))?.seq);
      return context.prisma.bookingEvent.findMany({
        ...page,
        where: {
          accountId,
          AND: [afterSeq !== undefined ? { seq: { gt: afterSeq } } : {}, past ? { seq: past } : {}],
          ...(args.types?.length ? { type: { in: args.types } } : {}),
        },
        orderBy: { seq: 'asc' },
      });
    },
  }),
);
