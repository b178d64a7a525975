import { Writable } from 'node:stream';
import { context, type Span } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { samplingOf, tracesProtocolOf, tracesUrlOf } from '../../src/tracing/settings.js';
import { asyncContextCost, startTracing, type Tracing } from '../../src/tracing/tracing.js';
import { openService } from '../support/bookable.js';
import { apiClient, futureSlot } from '../support/http.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** Tracing on, with a sampler that keeps nothing (its own file: tracing is once per process). */
describe('a sampler that keeps nothing', () => {
  let collector: OtlpReceiver;
  let tracing: Tracing;
  let server: TestServer;
  const logLines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    collector = await startOtlpReceiver();
    tracing = (await startTracing(loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.url}/v1/traces`, OTEL_TRACES_SAMPLER: 'always_off' })))!;
    const logStream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
        done();
      },
    });
    server = await startTestServer({ seed: true, logStream, config: { LOG_LEVEL: 'info' } });
  });
  afterAll(async () => {
    await server?.close();
    await tracing?.shutdown();
    await collector?.close();
  });

  it('exports nothing, even for a caller that says its trace is sampled', async () => {
    const serviceId = await openService(server.prisma);
    const call = apiClient(server.url, (await server.createKey()).key);
    const created = await call(
      'POST',
      '/v1/bookings',
      { service_id: serviceId, start_time: futureSlot(3), customer: { name: 'A', email: 'a@example.com' } },
      { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
    );
    expect(created.status).toBe(201);
    // The server's trace context is still answered, marked not sampled.
    expect(created.headers.get('traceresponse')).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    await tracing.flush();
    expect(collector.spans).toEqual([]);
    expect(collector.bodies).toEqual([]);
  });

  it('starts one span per unsampled request, its SERVER span, and none under it: no GraphQL phase, SQL statement or log append', async () => {
    const serviceId = await openService(server.prisma);
    const call = apiClient(server.url, (await server.createKey()).key);
    const startSpan = vi.spyOn(tracing.tracer, 'startSpan');
    try {
      const created = await call('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(4), customer: { name: 'B', email: 'b@example.com' } });
      expect(created.status).toBe(201);
      const read = await call('POST', '/graphql', { query: `{ booking(id: "${created.body.id}") { id status } }` });
      expect(read.body).toEqual({ data: { booking: { id: created.body.id, status: 'CONFIRMED' } } });
      expect(startSpan.mock.calls.map(([name]) => name)).toEqual(['POST', 'POST']);
      expect(startSpan.mock.results.map(({ value }) => (value as Span).isRecording())).toEqual([false, false]);
    } finally {
      startSpan.mockRestore();
    }
  });

  it('answers an unsampled request outside the trace context: no work of a read enters it', async () => {
    const call = apiClient(server.url, (await server.createKey({ scopes: ['directory:read'] })).key);
    const enter = vi.spyOn(context, 'with');
    try {
      const rest = await call('GET', '/api/v1/events?limit=2&include=categories');
      expect(rest.status).toBe(200);
      const graphql = await call('POST', '/graphql', { query: '{ events(first: 2) { edges { node { id categories { id } } } } }' });
      expect(graphql.body.data.events.edges).toHaveLength(2);
      expect(rest.headers.get('traceresponse')).toMatch(/-00$/);
      expect(enter).not.toHaveBeenCalled();
    } finally {
      enter.mockRestore();
    }
  });

  it("still names an unsampled request's trace in the log lines of its failures", async () => {
    const call = apiClient(server.url, (await server.createKey({ scopes: ['directory:read'] })).key);
    // Never used, so its check reads the keys' table.
    const unchecked = apiClient(server.url, (await server.createKey({ scopes: ['directory:read'] })).key);
    const serviceId = await openService(server.prisma);
    const { key: bookingsKey } = await server.createKey();
    // Unexpected database failures: the tables of the categories and slots, then of the keys, are gone.
    await server.prisma.$executeRawUnsafe('ALTER TABLE categories RENAME TO categories_gone');
    await server.prisma.$executeRawUnsafe('ALTER TABLE booking_slots RENAME TO booking_slots_gone');
    const failed: { status: number; headers: Headers; body?: unknown }[] = [];
    try {
      failed.push(await call('GET', '/api/v1/categories'), await call('POST', '/graphql', { query: '{ categories { edges { node { id } } } }' }));
      // An event stream that fails once open: its error is an event of the stream.
      const stream = await fetch(`${server.url}/v1/services/${serviceId}/availability?start_date=2027-10-30&end_date=2027-10-30`, {
        headers: { authorization: `Bearer ${bookingsKey}`, accept: 'text/event-stream' },
      });
      expect(await stream.text()).toMatch(/^event: error\ndata: .*"internal_error"/m);
      failed.push(stream);
      await server.prisma.$executeRawUnsafe('ALTER TABLE api_keys RENAME TO api_keys_gone');
      // Refused before any operation runs: the HTTP layer writes its line.
      failed.push(await unchecked('GET', '/api/v1/events'));
    } finally {
      await server.prisma.$executeRawUnsafe('ALTER TABLE IF EXISTS api_keys_gone RENAME TO api_keys');
      await server.prisma.$executeRawUnsafe('ALTER TABLE booking_slots_gone RENAME TO booking_slots');
      await server.prisma.$executeRawUnsafe('ALTER TABLE categories_gone RENAME TO categories');
    }
    expect(failed.map((response) => response.status)).toEqual([500, 200, 200, 500]);
    expect((failed[1]!.body as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('internal_error');
    // Each failure's own line, by whoever writes it (the operation, the stream, the HTTP layer), names the request's span.
    const messages = ['GraphQL operation failed', 'GraphQL operation failed', 'event stream failed', 'request failed: internal_error'];
    for (const [index, response] of failed.entries()) {
      const [, traceId, spanId] = response.headers.get('traceresponse')!.split('-');
      const requestId = response.headers.get('x-request-id');
      const lineOf = () => logLines.find((line) => line['level'] === 50 && line['request_id'] === requestId && line['msg'] === messages[index]);
      await expect.poll(lineOf, { message: `the line "${messages[index]}"` }).toBeDefined();
      expect(lineOf()).toMatchObject({ trace_id: traceId, span_id: spanId });
    }
  });
});

describe('tracing settings', () => {
  it('leave tracing off without an endpoint, or when OTEL_SDK_DISABLED is true', async () => {
    expect(await startTracing(loadConfig({}))).toBeUndefined();
    expect(await startTracing(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' }))).toBeUndefined();
  });

  it('refuse a protocol or sampler the server does not speak, naming the variable', () => {
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL must be http\/protobuf or http\/json/);
    expect(() => loadConfig({ OTEL_TRACES_SAMPLER: 'sometimes' })).toThrow(/OTEL_TRACES_SAMPLER must be one of/);
    expect(() => loadConfig({ OTEL_TRACES_SAMPLER_ARG: '2' })).toThrow(/OTEL_TRACES_SAMPLER_ARG/);
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT must be an http/);
  });

  it('read an OTEL_* variable set to nothing as unset, as OpenTelemetry specifies', () => {
    const empty = loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: ' ',
      OTEL_TRACES_SAMPLER: '',
      OTEL_TRACES_SAMPLER_ARG: '',
      OTEL_EXPORTER_OTLP_PROTOCOL: ' ',
      OTEL_SERVICE_NAME: '',
      OTEL_RESOURCE_ATTRIBUTES: '',
    });
    expect(empty.OTEL_EXPORTER_OTLP_ENDPOINT).toBeUndefined();
    expect(samplingOf(empty)).toEqual({ sampler: 'parentbased_traceidratio', ratio: 0.1 });
    expect(tracesProtocolOf(empty)).toBe('http/protobuf');
    expect({ name: empty.OTEL_SERVICE_NAME, attributes: empty.OTEL_RESOURCE_ATTRIBUTES }).toEqual({ name: undefined, attributes: {} });
  });

  it('take the traces protocol over the exporters’, and resource attributes percent-decoded, refusing a malformed pair', () => {
    expect(tracesProtocolOf(loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' }))).toBe('http/json');
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' })).toThrow(/OTEL_EXPORTER_OTLP_TRACES_PROTOCOL must be http\/protobuf or http\/json/);
    expect(loadConfig({ OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=prod, team=the%20gate,' }).OTEL_RESOURCE_ATTRIBUTES).toEqual({
      'deployment.environment.name': 'prod',
      team: 'the gate',
    });
    expect(() => loadConfig({ OTEL_RESOURCE_ATTRIBUTES: 'region' })).toThrow(/OTEL_RESOURCE_ATTRIBUTES must be key=value pairs/);
    expect(() => loadConfig({ OTEL_RESOURCE_ATTRIBUTES: 'team=%E0%A4%A' })).toThrow(/OTEL_RESOURCE_ATTRIBUTES must be key=value pairs/);
  });

  it('refuse export headers that are not name=value pairs a request can send, rather than drop them', () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_HEADERS: 'api-key=s3cr%3Dt, x-scope=a b' }).OTEL_EXPORTER_OTLP_HEADERS).toEqual({ 'api-key': 's3cr=t', 'x-scope': 'a b' });
    for (const malformed of ['a=%ZZ', 'justtext', 'bad header=x', 'x-ok=1,,=nokey', 'x-line=a%0Ab', 'x-wide=%E2%9C%93']) {
      expect(() => loadConfig({ OTEL_EXPORTER_OTLP_HEADERS: malformed }), malformed).toThrow(/OTEL_EXPORTER_OTLP_HEADERS must be key=value pairs/);
      expect(() => loadConfig({ OTEL_EXPORTER_OTLP_TRACES_HEADERS: malformed }), malformed).toThrow(/OTEL_EXPORTER_OTLP_TRACES_HEADERS must be key=value pairs/);
    }
    // A value is often a backend's API key: the refusal names the pair, never quotes it.
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_HEADERS: 'x-ok=1,api-key=sk-live-SUPERSECRET-50%off' })).toThrow(
      /^OTEL_EXPORTER_OTLP_HEADERS must be key=value pairs separated by commas, values percent-encoded; the pair for api-key is not one$/,
    );
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_HEADERS: 'Bearer SUPERSECRET' })).toThrow(/; pair 1 is not one$/);
    // Headers of the exporter's own request are not the collector's to be given.
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_HEADERS: 'content-length=5' })).toThrow(/the pair for content-length is not one \(content-length is the exporter's own to set\)/);
  });

  it('read a sampler or protocol in any case, as OpenTelemetry specifies for enumerated values', () => {
    const settings = loadConfig({ OTEL_TRACES_SAMPLER: ' ALWAYS_ON ', OTEL_EXPORTER_OTLP_PROTOCOL: 'HTTP/JSON' });
    expect(samplingOf(settings).sampler).toBe('always_on');
    expect(tracesProtocolOf(settings)).toBe('http/json');
  });

  it('send spans to the base endpoint’s path with /v1/traces added, its query kept', () => {
    expect(tracesUrlOf(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/?tenant=a' }))).toBe('http://collector:4318/v1/traces?tenant=a');
    expect(tracesUrlOf(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/otel/' }))).toBe('http://collector:4318/otel/v1/traces');
    expect(tracesUrlOf(loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/custom?x=1' }))).toBe('http://collector:4318/custom?x=1');
  });

  it('say when this Node makes tracing slow every request, and what to run instead', () => {
    expect(asyncContextCost('20.20.2', [])).toMatch(
      /^tracing on Node 20\.20\.2 keeps its trace context on async hooks, which slow every request once one is sampled: use Node 24, or Node 22 with --experimental-async-context-frame$/,
    );
    expect(asyncContextCost('22.22.0', [])).toMatch(/start Node with --experimental-async-context-frame \(NODE_OPTIONS\), or use Node 24$/);
    expect(asyncContextCost('22.22.0', ['--experimental-async-context-frame'])).toBeNull();
    expect(asyncContextCost('24.11.1', [])).toBeNull();
    expect(asyncContextCost('24.11.1', ['--no-async-context-frame'])).toMatch(/^tracing on Node 24/);
  });
});
