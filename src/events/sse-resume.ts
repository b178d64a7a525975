import type { ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { BookingEvent } from '../generated/prisma/client.js';
import type { Context } from '../graphql/context.js';
import { eventIdLine, eventStreamResponse } from '../server/event-stream.js';

/**
 * Server-sent events that can resume. Every event a booking-event subscription sends over SSE carries
 * `id: msg_…`; a client that reconnects sends it back as `Last-Event-ID`, and the stream replays the
 * log after it (see bookingEventStream), as EventSource and fetch-event-source clients expect. Live
 * availability marks the last slot of each read with the id of the state it leaves the client with
 * (src/bookings/live-availability.ts).
 */

/**
 * The booking event each result carries, by result: no copy of the result per subscriber, and one
 * entry for a result shared by the subscribers of one event (useSubscriptionFanOut).
 */
const streamedEventIds = new WeakMap<ExecutionResult, string>();

/** Where a resuming SSE client left off: its Last-Event-ID header's value, if any (graphql-ws contexts have no request). */
export function lastEventIdOf(header: string | string[] | null | undefined): string | null {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  return value ? value : null;
}

/** The SSE `id:` of a result: the booking event it carries, or the availability state it leaves the client with. */
export const streamedIdOf = (result: ExecutionResult): string | undefined => streamedEventIds.get(result);

/** Notes the event whose payload is being sent, for the SSE id line and the span of its sending (set by the subscription's resolver). */
export function noteStreamedEvent(context: Context, event: Pick<BookingEvent, 'id' | 'traceParent'>): void {
  context.streamedEventId = event.id;
  context.streamedEventTraceParent = event.traceParent;
}

/** Notes the SSE id of a payload that is no booking event: none, or an empty one that makes the client forget the id it had. */
export function noteStreamedId(context: Context, id: string | undefined): void {
  context.streamedEventId = id;
  context.streamedEventTraceParent = null;
}

/** A subscription's results as server-sent events, each booking event's with its `id:` line. */
export function serverSentEvents(results: AsyncIterable<ExecutionResult>): Response {
  return eventStreamResponse(results, (result) => {
    const id = streamedIdOf(result);
    return `${eventIdLine(id)}event: next\ndata: ${JSON.stringify(result)}\n\n`;
  });
}

/** Tags each result with its SSE id (streamedIdOf); useHttpSubscriptionTransports and REST event streams send it. */
export function useResumableServerSentEvents(): Plugin<Context> {
  return {
    onSubscribe: ({ args }) =>
      // Only a subscription over HTTP (GraphQL's or a REST event stream) can become server-sent events;
      // graphql-ws sockets skip this step per event.
      'socket' in args.contextValue
        ? undefined
        : {
            onSubscribeResult: () => ({
              onNext: ({ result }) => {
                const context = args.contextValue;
                if (context.streamedEventId === undefined) return;
                streamedEventIds.set(result as ExecutionResult, context.streamedEventId);
                context.streamedEventId = undefined;
              },
            }),
          },
  };
}
