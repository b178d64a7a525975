import { once } from 'node:events';
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxAnswerBodyBytes } from '../../src/events/webhooks/destination.js';
import { apiClient, futureSlot } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { openService } from '../support/bookable.js';
import { slowMachineMarginMs } from '../faults/timing.js';

const timeoutMs = 2000;
let server: TestServer;
let serviceId: string;

beforeAll(async () => {
  server = await startTestServer({
    seed: true,
    config: { WEBHOOK_TIMEOUT_MS: timeoutMs, WEBHOOK_POLL_MS: 25, WEBHOOK_RETRY_SCHEDULE: '1h', WEBHOOK_CONCURRENCY_PER_ACCOUNT: 1 },
  });
  serviceId = await openService(server.prisma);
});
afterAll(async () => {
  await server?.close();
});

interface AnswerConnection {
  arrivedAt: number;
  closedAt: number | undefined;
  /** Body bytes the receiver handed to its socket before the connection closed. */
  written: number;
}

/**
 * A receiver that answers 200 and then sends a body that never ends: as fast as its socket takes it
 * (`flood`) or one byte every 100 ms (`trickle`). It notes when each connection arrived and closed.
 */
async function startEndlessReceiver(pace: 'flood' | 'trickle') {
  const connections: AnswerConnection[] = [];
  const receiver = createServer((incoming, response) => {
    incoming.resume();
    const connection: AnswerConnection = { arrivedAt: Date.now(), closedAt: undefined, written: 0 };
    connections.push(connection);
    response.on('close', () => (connection.closedAt = Date.now()));
    response.writeHead(200, { 'content-type': 'text/plain' });
    const chunk = Buffer.alloc(pace === 'flood' ? 16_384 : 1, 'x');
    const pump = () => {
      while (!response.destroyed) {
        connection.written += chunk.length;
        if (!response.write(chunk)) return void response.once('drain', pump);
        if (pace === 'trickle') return void setTimeout(pump, 100);
      }
    };
    pump();
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
    connections,
    close() {
      receiver.closeAllConnections();
      return new Promise<void>((resolve) => receiver.close(() => resolve()));
    },
  };
}

/**
 * What a flooding receiver manages to write to a client that reads nothing: the loopback socket
 * buffers of both ends. The gateway's reading is judged beyond this.
 */
async function socketBufferBytes(url: string, connections: AnswerConnection[]): Promise<number> {
  const client = request(url, { method: 'POST' });
  client.end();
  const [response] = (await once(client, 'response')) as [IncomingMessage];
  response.pause();
  const connection = connections.at(-1)!;
  // The buffers are full once the receiver waits for a drain that cannot come: its count stops moving.
  let previous = -1;
  const settled = () => {
    const unchanged = connection.written === previous;
    previous = connection.written;
    return unchanged;
  };
  await expect.poll(settled, { timeout: 5000, interval: 200 }).toBe(true);
  client.destroy();
  return connection.written;
}

describe('webhook answer bodies', () => {
  it(`reads at most ${maxAnswerBodyBytes / 1024} KB of an endless answer, then cuts the connection; a 2xx is still a success`, async () => {
    // A deadline far beyond the time a loaded machine takes to read the bound, so that a cut before
    // half of it can only be the bound's.
    const floodTimeoutMs = 20_000;
    const flooded = await startTestServer({ seed: true, config: { WEBHOOK_TIMEOUT_MS: floodTimeoutMs, WEBHOOK_POLL_MS: 25, WEBHOOK_RETRY_SCHEDULE: '1h' } });
    const receiver = await startEndlessReceiver('flood');
    try {
      const buffered = await socketBufferBytes(receiver.url, receiver.connections);
      const call = apiClient(flooded.url, (await flooded.createKey()).key);
      const endpoint = await call('POST', '/v1/webhook_endpoints', { url: `${receiver.url}/flood`, events: ['booking.created'] });
      expect(endpoint.status).toBe(201);
      const booked = await call('POST', '/v1/bookings', {
        service_id: await openService(flooded.prisma),
        start_time: futureSlot(90),
        customer: { name: 'Flooded', email: 'flooded@example.com' },
      });
      expect(booked.status).toBe(201);

      await expect.poll(() => receiver.connections.length, { timeout: 10_000 }).toBe(2);
      const delivery = receiver.connections[1]!;
      await expect.poll(() => delivery.closedAt, { timeout: floodTimeoutMs }).toBeDefined();
      // Cut at the bound, long before the deadline, having taken little beyond what the sockets buffer.
      expect(delivery.written - buffered).toBeLessThan(1024 * 1024);
      expect(delivery.closedAt! - delivery.arrivedAt).toBeLessThan(floodTimeoutMs / 2);

      await expect.poll(async () => (await call('GET', `/v1/webhook_endpoints/${endpoint.body.id}/deliveries`)).body.data[0]?.status, { timeout: 10_000 }).toBe('succeeded');
      const [recorded] = (await call('GET', `/v1/webhook_endpoints/${endpoint.body.id}/deliveries`)).body.data;
      expect(recorded.attempts).toMatchObject([{ attempt_number: 1, response_status: 200, error: null }]);
    } finally {
      await receiver.close();
      await flooded.close();
    }
  });

  it("holds an account's slot until a trickled answer's connection ends, at the attempt's deadline", async () => {
    const receiver = await startEndlessReceiver('trickle');
    const call = apiClient(server.url, (await server.createKey()).key);
    // Two endpoints, so the account has two deliveries that could run at once but for its cap of one.
    for (const path of ['first', 'second']) {
      expect((await call('POST', '/v1/webhook_endpoints', { url: `${receiver.url}/${path}`, events: ['booking.created'] })).status).toBe(201);
    }
    const bookedAt = Date.now();
    await call('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(91), customer: { name: 'Trickled', email: 'trickled@example.com' } });

    await expect.poll(() => receiver.connections.length, { timeout: timeoutMs * 2 + slowMachineMarginMs }).toBe(2);
    const [first, second] = receiver.connections as [AnswerConnection, AnswerConnection];
    expect(first.closedAt).toBeDefined();
    expect(second.arrivedAt).toBeGreaterThanOrEqual(first.closedAt!);
    // The deadline runs from the claim, so the first connection ends within it, plus what a loaded
    // machine adds: a trickle never ends on its own, nor under a deadline that each byte renews.
    expect(first.closedAt! - bookedAt).toBeLessThan(timeoutMs + slowMachineMarginMs);
    await expect.poll(() => second.closedAt, { timeout: timeoutMs + slowMachineMarginMs }).toBeDefined();
    expect(second.closedAt! - second.arrivedAt).toBeLessThan(timeoutMs + slowMachineMarginMs);
    await receiver.close();
  });
});
