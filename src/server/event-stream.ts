/** How often an idle event stream sends a comment, so clients and proxies see it alive. */
const pingIntervalMs = 12_000;

/** An event's `id:` line: none for no id, and an empty one (which makes the client forget the last) for ''. */
export function eventIdLine(id: string | undefined): string {
  return id === undefined ? '' : `id: ${id}\n`;
}

/**
 * Items as a `text/event-stream` body: `message` writes each one's event block, a comment opens the
 * stream and keeps it alive, and `event: complete` ends it when the items run out. `failure`, when
 * given, writes the last block of a stream whose items failed (else the body fails with them).
 */
export function eventStreamResponse<Item>(items: AsyncIterable<Item>, message: (item: Item) => string, failure?: (error: unknown) => string): Response {
  const encoder = new TextEncoder();
  const iterator = items[Symbol.asyncIterator]();
  let ping: ReturnType<typeof setInterval> | undefined;
  const end = (controller: ReadableStreamDefaultController<Uint8Array>, block: string) => {
    clearInterval(ping);
    controller.enqueue(encoder.encode(block));
    controller.close();
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // A comment first: some clients wait for the first bytes before they report the stream open.
      controller.enqueue(encoder.encode(':\n\n'));
      ping = setInterval(() => {
        if ((controller.desiredSize ?? 0) > 0) controller.enqueue(encoder.encode(':\n\n'));
      }, pingIntervalMs);
    },
    async pull(controller) {
      let next: IteratorResult<Item>;
      try {
        next = await iterator.next();
      } catch (error) {
        if (!failure) throw error;
        end(controller, failure(error));
        // What the items came from is let go of, as when the client leaves.
        await iterator.return?.();
        return;
      }
      if (next.done) end(controller, 'event: complete\ndata:\n\n');
      else controller.enqueue(encoder.encode(message(next.value)));
    },
    async cancel() {
      clearInterval(ping);
      await iterator.return?.();
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'content-encoding': 'none' } });
}
