import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on loopback; `respond` decides each answer's status (and, returning a promise, when it is sent). */
export async function startReceiver(respond: (received: ReceivedWebhook, index: number) => number | Promise<number> = () => 200) {
  const received: ReceivedWebhook[] = [];
  const waiters: (() => void)[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const webhook = { headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(webhook);
      for (const wake of waiters.splice(0)) wake();
      void Promise.resolve(respond(webhook, received.length - 1)).then((status) => {
        response.writeHead(status);
        response.end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    /** Resolves once `count` requests have arrived, or rejects after `ms`. */
    async waitFor(count: number, ms = 15_000) {
      const deadline = Date.now() + ms;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} webhooks, got ${received.length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      return received;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A receiver that never answers, counting the requests it has had and those it holds at once. */
export async function startHangingReceiver() {
  const held = new Set<ServerResponse>();
  let mostHeld = 0;
  let requests = 0;
  const server = createServer((request, response) => {
    request.resume();
    requests++;
    held.add(response);
    mostHeld = Math.max(mostHeld, held.size);
    response.on('close', () => held.delete(response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    /** Its origin: endpoints add a path of their own. */
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    held: () => held.size,
    mostHeld: () => mostHeld,
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
