import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/shared/ids.js';
import { startFaultProxy } from '../faults/proxy.js';
import { openService } from '../support/bookable.js';
import { subscriptionsActive } from '../support/metrics.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { requireService } from '../support/services.js';

const redisUrl = await requireService('redis');

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
    const noteStream = (request: IncomingMessage, response: ServerResponse) => {
      if (request.headers.accept === 'text/event-stream') streamed = response;
    };
    server.app.server.on('request', noteStream);
    const answer = await openUnreadStream();
    server.app.server.off('request', noteStream);
    expect(answer.statusCode).toBe(200);

    // Unread, the answer fills the kernel's buffers; what the server then holds is its response's writableLength.
    let most = 0;
    let last = -1;
    let steadySince = Date.now();
    // Bounded: a server that never stops writing is the failure this measures, not a hang.
    for (const deadline = Date.now() + 20_000; Date.now() < deadline;) {
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

/** A request as raw bytes: its request line and headers (`head`), the credential, and its body. */
function rawRequest(head: string, credential: string, body = ''): string {
  return `${head}\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${credential}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** Sends a whole request on a new connection and closes it at once. */
function sendAndLeave(baseUrl: string, credential: string, head: string, body = ''): Promise<void> {
  const { port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(rawRequest(head, credential, body), () => {
        socket.destroy();
        resolve();
      });
    });
    socket.on('error', reject);
  });
}

describe('event streams pipelined on one connection', () => {
  it('all end when the connection closes, the ones still waiting their turn too', async () => {
    const body = JSON.stringify({ query: 'subscription { bookingEvents(after: null) { id } }' });
    const request = rawRequest('POST /graphql HTTP/1.1\r\ncontent-type: application/json\r\naccept: text/event-stream', key, body);
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
    socket.write(request.repeat(3));
    await expect.poll(() => subscriptionsActive(server.url), { timeout: 10_000 }).toBe(3);
    socket.destroy();
    await expect.poll(() => subscriptionsActive(server.url), { timeout: 10_000 }).toBe(0);
  });
});

describe.skipIf(!redisUrl)('an event stream whose client leaves before it starts', () => {
  it('ends its subscription, over GraphQL SSE, multipart and REST', async () => {
    const proxy = await startFaultProxy(redisUrl!);
    const counted = await startTestServer({ seed: true, config: { REDIS_URL: proxy.url } });
    try {
      const { key: credential } = await counted.createKey({ scopes: ['bookings:read'] });
      const service = await openService(counted.prisma);
      const subscription = JSON.stringify({ query: 'subscription { bookingEvents { id } }' });
      const day = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
      // While Redis does not answer, a subscription waits up to a second for its place in the key's
      // quota before its answer starts: each client has left by then.
      proxy.freeze();
      await Promise.all(
        Array.from({ length: 5 }, () => [
          sendAndLeave(counted.url, credential, 'POST /graphql HTTP/1.1\r\ncontent-type: application/json\r\naccept: text/event-stream', subscription),
          sendAndLeave(counted.url, credential, 'POST /graphql HTTP/1.1\r\ncontent-type: application/json\r\naccept: multipart/mixed;subscriptionSpec=1.0', subscription),
          sendAndLeave(counted.url, credential, `GET /v1/services/${service}/availability?start_date=${day}&end_date=${day} HTTP/1.1\r\naccept: text/event-stream`),
        ]).flat(),
      );
      // Past that second (their answers made for no one), Redis answers again.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      proxy.restore();

      // A stream that stays is counted, so the gauge tells it from the others.
      const staying = await fetch(`${counted.url}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json', accept: 'text/event-stream' },
        body: subscription,
      });
      await expect.poll(() => subscriptionsActive(counted.url), { timeout: 10_000 }).toBe(1);
      await staying.body!.cancel();
    } finally {
      await counted.close();
      await proxy.close();
    }
  });
});
