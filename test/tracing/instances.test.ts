import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../access/processes.js';
import { openEventsDatabase, until } from '../events/cluster.js';
import { apiClient } from '../support/http.js';
import { spanKinds, startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { startReceiver } from '../support/receiver.js';
import { requireService } from '../support/services.js';

const postgresUrl = await requireService('postgres');
const redisUrl = await requireService('redis');

/** Two server processes (startServerProcess) on one PostgreSQL database and one Redis, both exporting to one collector. */
describe.skipIf(!postgresUrl || !redisUrl)('a trace across two server processes', () => {
  let cluster: Awaited<ReturnType<typeof openEventsDatabase>>;
  let collector: OtlpReceiver;
  let booking: ServerProcess;
  let delivering: ServerProcess;

  beforeAll(async () => {
    cluster = await openEventsDatabase(postgresUrl!);
    collector = await startOtlpReceiver();
    const env = {
      ...cluster.env,
      REDIS_URL: redisUrl!,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_TRACES_SAMPLER: 'parentbased_always_on',
    };
    // The booking instance polls for deliveries once a minute at most, so the other one sends them.
    booking = await startServerProcess({ ...env, WEBHOOK_POLL_MS: '60000' });
    delivering = await startServerProcess({ ...env, WEBHOOK_POLL_MS: '20' });
  });
  afterAll(async () => {
    await Promise.all([booking?.stop(), delivering?.stop()]);
    await cluster?.database.close();
    await collector?.close();
  });

  it('warns at start, on a Node before 24 (no flag given here), that tracing slows every request', () => {
    const beforeNode24 = Number(process.versions.node.split('.')[0]) < 24;
    expect(booking.startupOutput.includes('keeps its trace context on async hooks, which slow every request')).toBe(beforeNode24);
  });

  it("links the delivery sent by one instance to the request that booked on the other, and sends the receiver the delivery's traceparent", async () => {
    const hooks = await startReceiver();
    try {
      expect((await apiClient(delivering.url, cluster.key)('POST', '/v1/webhook_endpoints', { url: hooks.url })).status).toBe(201);
      const [bookingId] = await cluster.book([booking.url], 40, 1);
      const [webhook] = await hooks.waitFor(1);
      const [, traceId, spanId] = String(webhook!.headers['traceparent']).split('-');
      // Spans are exported in batches, every few seconds.
      await until(() => collector.spans.some((span) => span.spanId === spanId), 'the delivery span', 30_000);
      const delivery = collector.spans.find((span) => span.spanId === spanId)!;
      expect(delivery).toMatchObject({ traceId, name: 'webhook delivery', kind: spanKinds.client, parentSpanId: undefined });
      const [link] = delivery.links;
      await until(() => collector.spans.some((span) => span.spanId === link?.spanId), 'the log append span', 30_000);
      const append = collector.spans.find((span) => span.spanId === link!.spanId)!;
      expect(append).toMatchObject({ traceId: link!.traceId, name: 'booking log append' });
      const event = await cluster.database.prisma.bookingEvent.findFirstOrThrow({ where: { bookingId } });
      expect(append.attributes['hallowgate.event.id']).toBe(event.id);
      // Made by different processes: the create's spans by the booking instance, the delivery by the other.
      const createTrace = collector.trace(append.traceId);
      expect(createTrace.find((span) => span.kind === spanKinds.server)).toMatchObject({ name: 'POST /v1/bookings', parentSpanId: undefined });
      expect(delivery.resource['service.instance.id']).not.toBe(append.resource['service.instance.id']);
    } finally {
      await hooks.close();
    }
  }, 120_000);
});
