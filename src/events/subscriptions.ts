import type { BookingEvent, PrismaClient } from '../generated/prisma/client.js';
import { builder } from '../graphql/builder.js';
import type { Context } from '../graphql/context.js';
import { BookingEventRef, BookingEventTypeEnum, logPositionOf } from './graphql.js';
import { noteStreamedEvent } from './sse-resume.js';
import type { LogEventType } from './kinds.js';

const replayPage = 500;

/**
 * Log reads under way, per database, by account and position: the subscribers of one account that
 * are at the same place in the log when a commit is announced share one query.
 */
const readsUnderWay = new WeakMap<PrismaClient, Map<string, Promise<BookingEvent[]>>>();

function readLogPage(prisma: PrismaClient, accountId: string, afterSeq: bigint): Promise<BookingEvent[]> {
  let reads = readsUnderWay.get(prisma);
  if (!reads) readsUnderWay.set(prisma, (reads = new Map()));
  const key = `${accountId}:${afterSeq}`;
  const underWay = reads.get(key);
  if (underWay) return underWay;
  const read = Promise.resolve(prisma.bookingEvent.findMany({ where: { accountId, seq: { gt: afterSeq } }, orderBy: { seq: 'asc' }, take: replayPage }));
  reads.set(key, read);
  const forget = () => reads.delete(key);
  read.then(forget, forget);
  return read;
}

/**
 * Where a stream starts: after an event a client names (`after`, SSE's Last-Event-ID, or the later of both), found
 * before the stream begins so that naming none of the account's is refused as the request's error
 * (400 over HTTP, the operation's one result over graphql-ws). Without one, at the end of the log as it is
 * when the subscription is made, not when its first event is asked for: an event committed in
 * between is still sent.
 */
async function streamStart(context: Context, afterEventId: string | null): Promise<bigint> {
  const named = [
    ...(afterEventId ? [logPositionOf(context, afterEventId, 'after')] : []),
    ...(context.lastEventId ? [logPositionOf(context, context.lastEventId, 'Last-Event-ID')] : []),
  ];
  // With both, the later: an EventSource started `after` an event reconnects with the last one it got,
  // and resumes there rather than from `after` again (each reconnect would repeat what it had).
  if (named.length > 0) return (await Promise.all(named)).reduce((later, position) => (position > later ? position : later));
  const { _max } = await context.prisma.bookingEvent.aggregate({ where: { accountId: context.principal!.accountId }, _max: { seq: true } });
  return _max.seq ?? 0n;
}

/**
 * The account's log events after a point of the log, then live ones. The bus is joined before
 * the log is read, and every notice is answered by reading the log past the last event sent, so no
 * event falls between replay and live, none comes twice, and order is the log's.
 */
async function* bookingEventStream(context: Context, afterSeq: bigint, types: LogEventType[] | null): AsyncGenerator<BookingEvent> {
  const accountId = context.principal!.accountId;
  const notices = context.services.bookingEventBus.subscribe(accountId)[Symbol.asyncIterator]();
  try {
    let lastSeq = afterSeq;
    // The newest position a notice announced, and how many reads to the end of the log were made for it.
    let announced: bigint | undefined;
    let readsForNotice = 0;
    for (;;) {
      const page = await readLogPage(context.prisma, accountId, lastSeq);
      for (const event of page) {
        lastSeq = event.seq;
        if (types?.length && !types.includes(event.type as LogEventType)) continue;
        // Noted here, for this subscriber: the result sent may be one executed for another (useSubscriptionFanOut).
        noteStreamedEvent(context, event);
        yield event;
      }
      if (page.length === replayPage) continue;
      // A shared read may have begun before the announced commit; if it fell short, one more read (begun
      // after the notice, so after the commit) reaches it. Bounded, in case the event is gone.
      if (announced !== undefined && announced > lastSeq && ++readsForNotice < 2) continue;
      for (;;) {
        const next = await notices.next();
        if (next.done) return;
        announced = BigInt(next.value.seq);
        if (announced > lastSeq) break;
      }
      readsForNotice = 0;
    }
  } finally {
    await notices.return?.();
  }
}

builder.subscriptionFields((t) => ({
  bookingEvents: t.field({
    type: BookingEventRef,
    authScopes: { scope: 'bookings:read' },
    description:
      "Replays the account's log after `after` (a msg_… id), then streams new events live. Over SSE, it resumes after the Last-Event-ID header, or after `after` if that is later.",
    args: {
      types: t.arg({ type: [BookingEventTypeEnum] }),
      after: t.arg.id(),
    },
    subscribe: async (_root, args, context) => bookingEventStream(context, await streamStart(context, args.after ? String(args.after) : null), args.types ?? null),
    resolve: (event) => event,
  }),
  ...Object.fromEntries(
    (
      [
        ['bookingCreated', 'booking.created'],
        ['bookingUpdated', 'booking.updated'],
        ['bookingCancelled', 'booking.cancelled'],
        ['waitlistOffered', 'waitlist.offered'],
      ] as const
    ).map(([field, type]) => [
      field,
      t.field({
        type: BookingEventRef,
        authScopes: { scope: 'bookings:read' },
        description: `New ${type} events of the account (over SSE, resumes after Last-Event-ID).`,
        subscribe: async (_root, _args, context) => bookingEventStream(context, await streamStart(context, null), [type]),
        resolve: (event) => event,
      }),
    ]),
  ),
}));
