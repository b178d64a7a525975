import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from 'graphql-ws';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { apiClient, futureSlot } from '../support/http.js';
import { startTestServer } from '../support/server.js';
import { openService } from '../support/bookable.js';

describe('graceful shutdown', () => {
  it('closes subscriptions with 1001 and finishes the webhook delivery in flight', async () => {
    const server = await startTestServer({ seed: true, config: { WEBHOOK_POLL_MS: 20 } });
    // A receiver that holds each delivery until the test lets it answer.
    let arrived!: () => void;
    const delivery = new Promise<void>((resolve) => (arrived = resolve));
    let answer!: () => void;
    const released = new Promise<void>((resolve) => (answer = resolve));
    const receiver = createServer((request, response) => {
      request.resume();
      arrived();
      void released.then(() => response.writeHead(200).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const { key } = await server.createKey();
      const call = apiClient(server.url, key);
      const endpoint = await call('POST', '/v1/webhook_endpoints', { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks` });
      const client = createClient({
        url: `${server.url.replace('http', 'ws')}/graphql`,
        webSocketImpl: WebSocket,
        connectionParams: { authorization: `Bearer ${key}` },
        retryAttempts: 0,
      });
      const closed = new Promise<{ code: number; reason: string }>((resolve) => client.on('closed', (event) => resolve(event as { code: number; reason: string })));
      const connected = new Promise<void>((resolve) => client.on('connected', () => resolve()));
      client.subscribe({ query: 'subscription { bookingEvents { id } }' }, { next: () => undefined, error: () => undefined, complete: () => undefined });
      await connected;

      const serviceId = await openService(server.prisma);
      await call('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(50), customer: { name: 'Last', email: 'last@example.com' } });
      await delivery;

      let shutDown = false;
      const closing = server.app.close().then(() => (shutDown = true));
      expect(await closed).toMatchObject({ code: 1001 });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(shutDown).toBe(false);
      answer();
      await closing;

      const [sent] = await server.prisma.webhookDelivery.findMany({ where: { endpointId: endpoint.body.id } });
      expect(sent!.status).toBe('succeeded');
      expect(await server.prisma.webhookAttempt.count({ where: { deliveryId: sent!.id, responseStatus: 200 } })).toBe(1);
    } finally {
      answer();
      await new Promise((resolve) => receiver.close(resolve));
      await server.database.close();
    }
  });

  it('cuts the event streams answered over HTTP, so their clients reconnect, rather than completing their subscriptions', async () => {
    const server = await startTestServer({ seed: true });
    try {
      const { key } = await server.createKey();
      const serviceId = await openService(server.prisma);
      const day = futureSlot(51).slice(0, 10);
      const subscription = JSON.stringify({ query: 'subscription { bookingEvents { id } }' });
      const headers = (accept: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json', accept });
      const streams = await Promise.all([
        fetch(`${server.url}/graphql`, { method: 'POST', headers: headers('text/event-stream'), body: subscription }),
        fetch(`${server.url}/graphql`, { method: 'POST', headers: headers('multipart/mixed;subscriptionSpec="1.0",application/json'), body: subscription }),
        fetch(`${server.url}/v1/services/${serviceId}/availability?start_date=${day}&end_date=${day}`, { headers: headers('text/event-stream') }),
      ]);
      /** How each stream ends: its body read to a clean end ('completed', with what it said last), or cut. */
      const endings = streams.map(async (response) => {
        expect(response.status).toBe(200);
        const text = await response.text().then(
          (body) => `completed: ${body.slice(-80)}`,
          () => 'cut',
        );
        return text;
      });
      await server.app.close();
      expect(await Promise.all(endings)).toEqual(['cut', 'cut', 'cut']);
    } finally {
      await server.database.close();
    }
  });
});
