import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/shared/ids.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
let key: string;
/** The log's events, oldest first: about 12 MB of bodies, three times what the kernel's socket buffers hold on loopback. */
const eventIds = Array.from({ length: 1_200 }, () => newId('bookingEvent'));
const padding = 'x'.repeat(10_000);

beforeAll(async () => {
  server = await startTestServer();
  let accountId: string;
  ({ key, accountId } = await server.createKey({ scopes: ['bookings:read'] }));
  await server.prisma.bookingEvent.createMany({
    data: eventIds.map((id, index) => ({
      id,
      accountId,
      type: 'booking.created',
      payload: { id, event: 'booking.created', created: new Date().toISOString(), data: { id: `bk_backpressure${index}`, note: padding } },
    })),
  });
});
afterAll(() => server?.close());

/** Opens the account's booking events after the first one over SSE, without reading the answer yet. */
function openUnreadStream(): Promise<IncomingMessage> {
  const body = JSON.stringify({ query: 'subscription ($after: ID) { bookingEvents(after: $after) { id data } }', variables: { after: eventIds[0] } });
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const sent = httpRequest({
      port,
      host: '127.0.0.1',
      method: 'POST',
      path: '/graphql',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'text/event-stream', 'content-length': Buffer.byteLength(body) },
    });
    sent.on('response', resolve);
    sent.on('error', reject);
    sent.end(body);
  });
}

describe('an event stream whose client stops reading', () => {
  it('waits for the client instead of buffering in the server, and then sends every event in order', async () => {
    let streamed: ServerResponse | undefined;
    server.app.server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      if (request.headers.accept === 'text/event-stream') streamed = response;
    });
    const answer = await openUnreadStream();
    expect(answer.statusCode).toBe(200);

    // Unread, the answer fills the kernel's buffers; what the server then holds is its response's writableLength.
    let most = 0;
    let last = -1;
    let steadySince = Date.now();
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const held = streamed?.writableLength ?? 0;
      most = Math.max(most, held);
      if (held !== last) [last, steadySince] = [held, Date.now()];
      else if (held > 0 && Date.now() - steadySince > 500) break;
    }
    expect(most).toBeLessThan(256 * 1024);

    answer.setEncoding('utf8');
    const received: string[] = [];
    let buffered = '';
    await new Promise<void>((resolve) => {
      answer.on('data', (chunk: string) => {
        buffered += chunk;
        for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
          const data = /^data: (.*)$/m.exec(buffered.slice(0, end))?.[1];
          buffered = buffered.slice(end + 2);
          if (data) received.push((JSON.parse(data) as { data: { bookingEvents: { id: string } } }).data.bookingEvents.id);
        }
        if (received.length === eventIds.length - 1) resolve();
      });
    });
    answer.destroy();
    expect(received).toEqual(eventIds.slice(1));
  });
});
