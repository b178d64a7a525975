import { createClient } from 'graphql-ws';
import { webSocketFrom } from './websocket.js';

/** One slot as a live availability stream sends it, in either naming (GraphQL camelCase, REST snake_case). */
export interface StreamedSlot {
  serviceId: string;
  startTime: string;
  endTime: string;
  capacity: number;
  remaining: number;
}

/** What a stream sent that was not a slot: a GraphQL error's code, or a REST problem's. */
export class StreamRefusal extends Error {
  constructor(
    readonly code: string,
    readonly status: number | undefined,
    detail: string,
  ) {
    super(`${code}: ${detail}`);
  }
}

/** A live availability subscriber: the slots received, in order, read one at a time. */
export interface AvailabilityFeed {
  received: StreamedSlot[];
  /** Over SSE, the `id:` each received slot came with, if any. */
  receivedIds: (string | undefined)[];
  /** Over SSE, the last `id:` received, which EventSource sends back as Last-Event-ID when it reconnects (none when empty). */
  lastEventId(): string | undefined;
  /** The next slot not read yet, once it has come (or the stream's refusal). */
  next(): Promise<StreamedSlot>;
  /** The next `count` slots. */
  take(count: number): Promise<StreamedSlot[]>;
  close(): void;
}

export type Transport = 'graphql-ws' | 'graphql-sse' | 'rest-sse';

export interface FeedRequest {
  baseUrl: string;
  credential: string;
  serviceId: string;
  startDate: string;
  endDate: string;
  /** Sent as a browser page on that origin would (widget tokens work only from their allowed origins). */
  origin?: string;
  /** How long next() waits before failing. */
  timeoutMs?: number;
  /** Over SSE, sent as the Last-Event-ID header, as a reconnecting EventSource does. */
  lastEventId?: string;
}

export const availabilitySubscription = `subscription Live($serviceId: ID!, $startDate: Date!, $endDate: Date!) {
  availabilityChanged(serviceId: $serviceId, startDate: $startDate, endDate: $endDate) { serviceId startTime endTime capacity remaining }
}`;

/** A queue of what a stream delivers, read in order by next(). */
function feedOf(close: () => void, timeoutMs: number) {
  const received: StreamedSlot[] = [];
  const receivedIds: (string | undefined)[] = [];
  let read = 0;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const feed: AvailabilityFeed = {
    received,
    receivedIds,
    lastEventId: () => receivedIds.findLast((id) => id !== undefined),
    async next() {
      const deadline = Date.now() + timeoutMs;
      while (read >= received.length) {
        if (failure) throw failure;
        const remaining = deadline - Date.now();
        if (remaining <= 0) throw new Error(`no slot came within ${timeoutMs} ms (${received.length} received)`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, remaining);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      return received[read++]!;
    },
    async take(count) {
      const slots: StreamedSlot[] = [];
      for (let index = 0; index < count; index++) slots.push(await feed.next());
      return slots;
    },
    close,
  };
  return {
    feed,
    push(slot: StreamedSlot, id?: string) {
      received.push(slot);
      receivedIds.push(id);
      wake?.();
    },
    fail(error: Error) {
      failure = error;
      wake?.();
    },
  };
}

const restSlot = (item: Record<string, unknown>): StreamedSlot => ({
  serviceId: String(item['service_id']),
  startTime: String(item['start_time']),
  endTime: String(item['end_time']),
  capacity: Number(item['capacity']),
  remaining: Number(item['remaining']),
});

type GraphQLPayload = { data?: { availabilityChanged: StreamedSlot } | null; errors?: { message: string; extensions?: { code?: string } }[] };

/** Opens a live availability subscription over `transport`; resolves once the server accepted it (or refused it, for HTTP). */
export async function openFeed(transport: Transport, request: FeedRequest): Promise<AvailabilityFeed> {
  const timeoutMs = request.timeoutMs ?? 15_000;
  const variables = { serviceId: request.serviceId, startDate: request.startDate, endDate: request.endDate };
  /** A GraphQL payload's slot, or its refusal with the status the response had (over HTTP). */
  const fromGraphQL = (payload: GraphQLPayload, status?: number): StreamedSlot | StreamRefusal => {
    const error = payload.errors?.[0];
    if (error || !payload.data) return new StreamRefusal(error?.extensions?.code ?? 'unknown', status, error?.message ?? 'no data');
    return payload.data.availabilityChanged;
  };

  if (transport === 'graphql-ws') {
    const client = createClient({
      url: `${request.baseUrl.replace('http', 'ws')}/graphql`,
      webSocketImpl: webSocketFrom(request.origin),
      connectionParams: { authorization: `Bearer ${request.credential}` },
      retryAttempts: 0,
      lazy: false,
      // The subscription's own sink hears a socket that fails; graphql-ws would also print it.
      onNonLazyError: () => undefined,
    });
    const { feed, push, fail } = feedOf(() => void client.dispose(), timeoutMs);
    client.subscribe<GraphQLPayload['data']>(
      { query: availabilitySubscription, variables },
      {
        next: (payload) => {
          const slot = fromGraphQL(payload as GraphQLPayload);
          if (slot instanceof StreamRefusal) fail(slot);
          else push(slot);
        },
        error: (error) => {
          const errors = error as { message?: string; extensions?: { code?: string } }[];
          fail(Array.isArray(errors) ? new StreamRefusal(errors[0]?.extensions?.code ?? 'unknown', undefined, errors[0]?.message ?? '') : new Error(String(error)));
        },
        complete: () => fail(new Error('the subscription completed')),
      },
    );
    return feed;
  }

  const controller = new AbortController();
  const rest = transport === 'rest-sse';
  const query = new URLSearchParams({ start_date: request.startDate, end_date: request.endDate });
  const response = await fetch(rest ? `${request.baseUrl}/v1/services/${encodeURIComponent(request.serviceId)}/availability?${query.toString()}` : `${request.baseUrl}/graphql`, {
    method: rest ? 'GET' : 'POST',
    signal: controller.signal,
    headers: {
      authorization: `Bearer ${request.credential}`,
      accept: 'text/event-stream',
      ...(request.origin ? { origin: request.origin } : {}),
      ...(request.lastEventId ? { 'last-event-id': request.lastEventId } : {}),
      ...(rest ? {} : { 'content-type': 'application/json' }),
    },
    ...(rest ? {} : { body: JSON.stringify({ query: availabilitySubscription, variables }) }),
  });
  const { feed, push, fail } = feedOf(() => controller.abort(), timeoutMs);
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    const body = (await response.json()) as { code?: string; detail?: string; errors?: { message: string; extensions?: { code?: string } }[] };
    const code = body.code ?? body.errors?.[0]?.extensions?.code ?? 'unknown';
    fail(new StreamRefusal(code, response.status, body.detail ?? body.errors?.[0]?.message ?? ''));
    return feed;
  }
  void (async () => {
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let buffered = '';
    try {
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) return fail(new Error('the stream ended'));
        buffered += decoder.decode(chunk.value, { stream: true });
        for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
          const lines = buffered.slice(0, end).split('\n');
          buffered = buffered.slice(end + 2);
          const field = (name: string) =>
            lines
              .find((line) => line.startsWith(`${name}:`))
              ?.slice(name.length + 1)
              .trim();
          const data = field('data');
          // Comments (heartbeats) and the end of the stream carry no slot.
          if (!data) continue;
          const parsed = JSON.parse(data) as Record<string, unknown>;
          if (field('event') === 'error') return fail(new StreamRefusal(String(parsed['code']), Number(parsed['status']), String(parsed['detail'])));
          const slot = rest ? restSlot(parsed) : fromGraphQL(parsed as GraphQLPayload, response.status);
          if (slot instanceof StreamRefusal) return fail(slot);
          push(slot, field('id'));
        }
      }
    } catch (error) {
      fail(error instanceof Error ? error : new Error(String(error)));
    }
  })();
  return feed;
}
