import { bookingsDataVersion } from '../bookings/service.js';
import { builder, nodeScope } from '../graphql/builder.js';
import { answersKeptUnder } from '../graphql/kept-answers.js';
import type { Context } from '../graphql/context.js';
import { AppError, echoed } from '../shared/errors.js';
import { bookingEventTypes } from './kinds.js';
import type { BookingEventPayload } from './log.js';

export const BookingEventTypeEnum = builder.enumType('BookingEventType', {
  values: Object.fromEntries(bookingEventTypes.map((type) => [type.replace('booking.', '').toUpperCase(), { value: type }])) as Record<
    'CREATED' | 'UPDATED' | 'CANCELLED',
    { value: (typeof bookingEventTypes)[number] }
  >,
});

export const BookingEventRef = builder.prismaNode('BookingEvent', {
  id: { field: 'id' },
  description: 'One booking change from the durable log; the same body webhooks deliver.',
  extensions: nodeScope('bookings:read'),
  nullable: true,
  findUnique: (id, context) => ({ id, accountId: context.principal?.accountId ?? '' }),
  fields: (t) => ({
    event: t.exposeString('type', { description: 'booking.created, booking.updated or booking.cancelled, as in webhooks.' }),
    created: t.expose('createdAt', { type: 'DateTime' }),
    data: t.field({
      type: 'JSON',
      description: 'The booking as it was after the change (snake_case, as in webhooks).',
      select: { payload: true },
      resolve: (row) => (row.payload as unknown as BookingEventPayload).data,
    }),
    booking: t.relation('booking', { description: 'The booking as it is now.' }),
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
    // Booking events are the log the bookings fingerprint reads.
    extensions: answersKeptUnder(bookingsDataVersion),
    description: "The account's booking events, oldest first.",
    args: {
      afterEvent: t.arg.id({ description: 'Only events logged after this msg_… id.' }),
      types: t.arg({ type: [BookingEventTypeEnum] }),
    },
    resolve: async (query, _root, args, context) => {
      const afterSeq = args.afterEvent ? await logPositionOf(context, String(args.afterEvent), 'afterEvent') : undefined;
      return context.prisma.bookingEvent.findMany({
        ...query,
        where: {
          accountId: context.principal!.accountId,
          ...(afterSeq !== undefined ? { seq: { gt: afterSeq } } : {}),
          ...(args.types?.length ? { type: { in: args.types } } : {}),
        },
        orderBy: { seq: 'asc' },
      });
    },
  }),
);
