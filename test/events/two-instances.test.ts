import { createClient, type Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startServerProcess, type ServerProcess } from '../access/processes.js';
import { apiClient } from '../support/http.js';
import { startReceiver } from '../support/receiver.js';
import { requireService } from '../support/services.js';
import { openEventsDatabase, until } from './cluster.js';

const postgresUrl = await requireService('postgres');
const redisUrl = await requireService('redis');

/** Two server processes (startServerProcess) on one PostgreSQL database and one Redis. */
describe.skipIf(!postgresUrl || !redisUrl)('booking events on two server processes', () => {
  let cluster: Awaited<ReturnType<typeof openEventsDatabase>>;
  let first: ServerProcess;
  let second: ServerProcess;
  let subscriber: Client | undefined;

  beforeAll(async () => {
    cluster = await openEventsDatabase(postgresUrl!);
    const env = { ...cluster.env, REDIS_URL: redisUrl!, WEBHOOK_POLL_MS: '10' };
    // One after the other, so afterAll stops the first even when the second fails to start.
    first = await startServerProcess(env);
    second = await startServerProcess(env);
  });
  afterAll(async () => {
    await subscriber?.dispose();
    await Promise.all([first?.stop(), second?.stop()]);
    await cluster?.database.close();
  });

  it('stream to a subscriber on one instance the events committed through the other', async () => {
    await cluster.book([first.url], 10, 2);
    const [firstEvent, secondEvent] = await cluster.eventIds();
    subscriber = createClient({
      url: `${second.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${cluster.key}` },
      retryAttempts: 0,
    });
    const streamed: string[] = [];
    subscriber.subscribe<{ bookingEvents: { id: string } }>(
      { query: 'subscription($after: ID) { bookingEvents(after: $after) { id } }', variables: { after: firstEvent } },
      { next: ({ data }) => void streamed.push(data!.bookingEvents.id), error: (error) => streamed.push(`error: ${JSON.stringify(error)}`), complete: () => undefined },
    );
    // The replayed event proves the subscriber is live; what follows can only come by Redis from the first instance.
    await until(() => streamed.length >= 1, 'the replayed event');
    await cluster.book([first.url], 12, 1);
    await until(() => streamed.length >= 2, 'the live event');
    expect(streamed).toEqual([secondEvent, (await cluster.eventIds())[2]]);
  });

  it('send each delivery once, whichever instance claims it, when the receiver always answers 200', async () => {
    const receivers = await Promise.all([startReceiver(), startReceiver()]);
    for (const receiver of receivers) {
      expect((await apiClient(second.url, cluster.key)('POST', '/v1/webhook_endpoints', { url: receiver.url })).status).toBe(201);
    }
    const before = (await cluster.eventIds()).length;
    await cluster.book([first.url, second.url], 20, 40);
    const eventIds = (await cluster.eventIds()).slice(before);
    const deliveries = await cluster.settledDeliveries();
    expect(deliveries).toHaveLength(80);
    const sentMoreThanOnce = deliveries.filter((delivery) => delivery.status !== 'succeeded' || delivery.attemptCount !== 1 || delivery.attempts.length !== 1);
    expect(sentMoreThanOnce).toEqual([]);
    for (const receiver of receivers) {
      expect(receiver.received.map((webhook) => webhook.headers['webhook-id'])).toEqual(eventIds);
      await receiver.close();
    }
  }, 120_000);
});
