import type { ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../graphql/context.js';

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

const pingIntervalMs = 12_000;

/** Where a resuming SSE client left off: its Last-Event-ID header. graphql-ws contexts have no Fetch request. */
export function lastEventIdOf(request: Request | undefined): string | null {
  const value = request?.headers.get('last-event-id')?.trim();
  return value ? value : null;
}

/** Notes the event whose payload is being sent, for the SSE id line (set by the subscription's resolver). */
export function noteStreamedEvent(context: Context, eventId: string): void {
  context.streamedEventId = eventId;
}

/** A subscription's results as server-sent events, each booking event's with its `id:` line. */
export function serverSentEvents(results: AsyncIterable<ExecutionResult>): Response {
  const encoder = new TextEncoder();
  const iterator = results[Symbol.asyncIterator]();
  let ping: ReturnType<typeof setInterval> | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // A comment first: some clients wait for the first bytes before they report the stream open.
      controller.enqueue(encoder.encode(':\n\n'));
      ping = setInterval(() => {
        if ((controller.desiredSize ?? 0) > 0) controller.enqueue(encoder.encode(':\n\n'));
      }, pingIntervalMs);
    },
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) {
        clearInterval(ping);
        controller.enqueue(encoder.encode('event: complete\ndata:\n\n'));
        controller.close();
        return;
      }
      const result = next.value;
      const id = streamedEventIds.get(result);
      controller.enqueue(encoder.encode(`${id ? `id: ${id}\n` : ''}event: next\ndata: ${JSON.stringify(result)}\n\n`));
    },
    async cancel() {
      clearInterval(ping);
      await iterator.return?.();
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'content-encoding': 'none' } });
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
