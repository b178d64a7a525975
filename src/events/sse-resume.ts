import type { ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { BookingEvent } from '../generated/prisma/client.js';
import type { Context } from '../graphql/context.js';
import { eventStreamResponse } from '../server/event-stream.js';

/**
 * Server-sent events that can resume. Every event a booking-event subscription sends over SSE carries
 * `id: msg_…`; a client that reconnects sends it back as `Last-Event-ID`, and the stream replays the
 * log after it (see bookingEventStream), as EventSource and fetch-event-source clients expect.
 */

/**
 * The booking event each result carries, by result: no copy of the result per subscriber, and one
 * entry for a result shared by the subscribers of one event (useSubscriptionFanOut).
 */
const streamedEventIds = new WeakMap<ExecutionResult, string>();

/** Where a resuming SSE client left off: its Last-Event-ID header. graphql-ws contexts have no Fetch request. */
export function lastEventIdOf(request: Request | undefined): string | null {
  const value = request?.headers.get('last-event-id')?.trim();
  return value ? value : null;
}

/** Notes the event whose payload is being sent, for the SSE id line and the span of its sending (set by the subscription's resolver). */
export function noteStreamedEvent(context: Context, event: Pick<BookingEvent, 'id' | 'traceParent'>): void {
  context.streamedEventId = event.id;
  context.streamedEventTraceParent = event.traceParent;
}

/** A subscription's results as server-sent events, each booking event's with its `id:` line. */
export function serverSentEvents(results: AsyncIterable<ExecutionResult>): Response {
  return eventStreamResponse(results, (result) => {
    const id = streamedEventIds.get(result);
    return `${id ? `id: ${id}\n` : ''}event: next\ndata: ${JSON.stringify(result)}\n\n`;
  });
}

/** Tags each result with the booking event it carries; useHttpSubscriptionTransports sends it as SSE. */
export function useResumableServerSentEvents(): Plugin<Context> {
  return {
    onSubscribe: ({ args }) =>
      // Only a subscription over HTTP can become server-sent events; graphql-ws sockets skip this step per event.
      (args.contextValue as { request?: Request }).request === undefined
        ? undefined
        : {
            onSubscribeResult: () => ({
              onNext: ({ result }) => {
                const context = args.contextValue;
                if (!context.streamedEventId) return;
                streamedEventIds.set(result as ExecutionResult, context.streamedEventId);
                context.streamedEventId = undefined;
              },
            }),
          },
  };
}
