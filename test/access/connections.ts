import { createClient, type Client } from 'graphql-ws';
import { webSocketFrom } from '../support/websocket.js';
import { bearer } from './requests.js';

/** Real graphql-ws and SSE clients that record how their connections end, for the revocation tests. */

export type Payload = { data?: unknown; errors?: { extensions?: { code?: string } }[] };

export const eventsQuery = 'subscription { bookingEvents { id } }';

/** What the connections opened below leave to close; a test file runs them after its tests (closeOpenConnections). */
const cleanups: (() => unknown)[] = [];

export async function closeOpenConnections(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
}

/** A graphql-ws connection, acknowledged, that records how its socket closed and what its subscriptions received. */
export async function openSocket(baseUrl: string, credential: string, origin?: string) {
  const socket = {
    client: undefined as unknown as Client,
    payloads: [] as Payload[],
    /** What subscriptions failed with (graphql-ws sends a subscription's failure as its error message). */
    failures: [] as unknown[],
    closeCode: undefined as number | undefined,
    closedAt: 0,
    /** Subscribes; returns the function that completes the subscription. */
    subscribe(query = eventsQuery, variables: Record<string, unknown> = {}) {
      return socket.client.subscribe(
        { query, variables },
        { next: (payload) => void socket.payloads.push(payload as Payload), error: (failure) => void socket.failures.push(failure), complete: () => undefined },
      );
    },
  };
  const connected = new Promise<void>((resolve, reject) => {
    socket.client = createClient({
      url: `${baseUrl.replace('http', 'ws')}/graphql`,
      webSocketImpl: webSocketFrom(origin),
      connectionParams: { authorization: `Bearer ${credential}` },
      lazy: false,
      retryAttempts: 0,
      onNonLazyError: () => undefined,
      on: {
        connected: () => resolve(),
        closed: (event) => {
          socket.closeCode = (event as { code: number }).code;
          socket.closedAt = Date.now();
          reject(new Error(`closed with ${socket.closeCode} before it was acknowledged`));
        },
      },
    });
  });
  cleanups.push(() => socket.client.dispose());
  await connected;
  return socket;
}

/** A subscription over SSE, read in the background: its `next` payloads, and when its stream ended. */
export async function openEventStream(baseUrl: string, credential: string | null, query = eventsQuery, variables: Record<string, unknown> = {}) {
  const controller = new AbortController();
  const response = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    signal: controller.signal,
    headers: { ...(credential ? bearer(credential) : {}), 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query, variables }),
  });
  const stream = { response, payloads: [] as Payload[], endedAt: 0, close: () => controller.abort() };
  cleanups.push(stream.close);
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    // Refused before any stream: the answer is the one payload, a GraphQL response in JSON.
    stream.payloads.push((await response.json()) as Payload);
    stream.endedAt = Date.now();
    return stream;
  }
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  void (async () => {
    for (;;) {
      const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (chunk.done) {
        stream.endedAt = Date.now();
        return;
      }
      buffered += decoder.decode(chunk.value, { stream: true });
      for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const data = /^data: (.+)$/m.exec(block);
        if (/^event: next$/m.test(block) && data) stream.payloads.push(JSON.parse(data[1]!));
      }
    }
  })();
  return stream;
}
