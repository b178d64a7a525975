import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startTracing, type Tracing } from '../../src/tracing/tracing.js';
import { openService } from '../support/bookable.js';
import { apiClient, futureSlot, type ApiCall } from '../support/http.js';
import { spanKinds, startOtlpReceiver, untilExported, type OtlpReceiver } from '../support/otlp-receiver.js';
import { startReceiver } from '../support/receiver.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * Tracing on with a sampler that starts no trace of its own (parent-based, ratio 0): only a caller's
 * sampled trace is kept. Its own file, as tracing is set once per process.
 */
describe('a webhook delivery under a sampler that starts no trace', () => {
  let collector: OtlpReceiver;
  let tracing: Tracing;
  let server: TestServer;
  let hooks: Awaited<ReturnType<typeof startReceiver>>;
  let call: ApiCall;
  let serviceId: string;

  beforeAll(async () => {
    collector = await startOtlpReceiver();
    tracing = (await startTracing(
      loadConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0',
      }),
    ))!;
    server = await startTestServer({ seed: true });
    serviceId = await openService(server.prisma);
    call = apiClient(server.url, (await server.createKey()).key);
    hooks = await startReceiver();
    expect((await call('POST', '/v1/webhook_endpoints', { url: hooks.url })).status).toBe(201);
  });
  afterAll(async () => {
    await server?.close();
    await hooks?.close();
    await tracing?.shutdown();
    await collector?.close();
  });

  it('is kept when the request that logged its event was kept, and linked to it; not when that request was left out', async () => {
    const callerTrace = '5a7c0e1f2d3b4a5968778695a4b3c2d1';
    const kept = await call(
      'POST',
      '/v1/bookings',
      { service_id: serviceId, start_time: futureSlot(3), customer: { name: 'Kept', email: 'kept@example.com' } },
      { traceparent: `00-${callerTrace}-00f067aa0ba902b7-01` },
    );
    expect(kept.status).toBe(201);
    const [keptDelivery] = await hooks.waitFor(1);
    const [, deliveryTrace, deliverySpan, keptFlags] = String(keptDelivery!.headers['traceparent']).split('-');
    // A trace of its own, sampled although the ratio is 0: its event's request was.
    expect(deliveryTrace).not.toBe(callerTrace);
    expect(keptFlags).toBe('01');
    await untilExported(
      tracing,
      () => collector.spans.some((span) => span.spanId === deliverySpan) && collector.spans.some((span) => span.name === 'booking log append'),
      'the delivery span and the booking log append',
    );
    const append = collector.trace(callerTrace).find((span) => span.name === 'booking log append')!;
    expect(collector.spans.find((span) => span.spanId === deliverySpan)).toMatchObject({
      name: 'webhook delivery',
      kind: spanKinds.client,
      traceId: deliveryTrace,
      parentSpanId: undefined,
      links: [{ traceId: callerTrace, spanId: append.spanId }],
    });

    const leftOut = await call('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(4), customer: { name: 'Left out', email: 'left@example.com' } });
    expect(leftOut.status).toBe(201);
    expect(leftOut.headers.get('traceresponse')).toMatch(/-00$/);
    const [, leftOutDelivery] = await hooks.waitFor(2);
    expect(String(leftOutDelivery!.headers['traceparent'])).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    // One more kept create: its delivery comes after the left-out one (an endpoint's deliveries go in
    // order), so once its span is exported, the left-out one's would have been too, had it been kept.
    const keptAgain = await call(
      'POST',
      '/v1/bookings',
      { service_id: serviceId, start_time: futureSlot(5), customer: { name: 'Kept again', email: 'again@example.com' } },
      { traceparent: `00-${callerTrace.replace(/^5/, '6')}-00f067aa0ba902b7-01` },
    );
    expect(keptAgain.status).toBe(201);
    const [, , lastDelivery] = await hooks.waitFor(3);
    const lastSpan = String(lastDelivery!.headers['traceparent']).split('-')[2];
    await untilExported(tracing, () => collector.spans.some((span) => span.spanId === lastSpan), 'the last delivery span');
    expect(collector.spans.filter((span) => span.name === 'webhook delivery').map((span) => span.spanId)).toEqual([deliverySpan, lastSpan]);
  });
});
