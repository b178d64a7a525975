import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import { createClient, type Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { loadConfig } from '../../src/config.js';
import { startTracing, type Tracing } from '../../src/tracing/tracing.js';
import { openService } from '../support/bookable.js';
import { apiClient, futureSlot, type ApiCall } from '../support/http.js';
import { spanKinds, startOtlpReceiver, untilExported, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { startReceiver } from '../support/receiver.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { until } from '../events/cluster.js';

const customer = { name: 'Perpetua Tracewell', email: 'perpetua.tracewell@example.com' };
/** Sent as a booking's idempotency key: a value only a statement's parameters carry. */
const idempotencyKey = 'idem-7f3c9a1e-trace-leak-probe';

let receiver: OtlpReceiver;
let tracing: Tracing;
let server: TestServer;
let call: ApiCall;
let apiKey: string;
/** The webhook endpoint's signing secret, searched for in every span. */
let webhookSecret: string;
let serviceId: string;
const logLines: Record<string, unknown>[] = [];

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  tracing = (await startTracing(
    loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      // The traces' own protocol wins over the exporters': the receiver decodes JSON here.
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_TRACES_SAMPLER: 'parentbased_always_on',
      // OTEL_SERVICE_NAME names the service over the attributes.
      OTEL_SERVICE_NAME: 'hallowgate',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test,service.name=overridden',
      // Sent with every export, the traces' own over the exporters'.
      OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-token=exporters,x-tenant=the%20gate',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-collector-token=traces',
    }),
  ))!;
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  server = await startTestServer({ seed: true, logStream, config: { LOG_LEVEL: 'debug' } });
  serviceId = await openService(server.prisma);
  apiKey = (await server.createKey()).key;
  call = apiClient(server.url, apiKey);
});
afterAll(async () => {
  await server?.close();
  await tracing?.shutdown();
  await receiver?.close();
});

/** Exports what has ended and gives the HTTP span of the request that answered with `response`'s traceresponse. */
async function serverSpanOf(response: { headers: Headers }): Promise<ReceivedSpan> {
  const [, traceId, spanId] = response.headers.get('traceresponse')!.split('-');
  const find = () => receiver.spans.find((candidate) => candidate.traceId === traceId && candidate.spanId === spanId);
  // The client may read the answer before the server has seen it off and ended the span.
  await untilExported(tracing, () => find() !== undefined, 'the request span');
  return find()!;
}

/** A WebSocket that sends `traceparent` with its upgrade request, as Node clients can (browsers cannot). */
function socketSending(traceparent: string): unknown {
  return class extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, { headers: { traceparent } });
    }
  };
}

/** Every span below `root`, depth first. */
function descendantsOf(root: ReceivedSpan): ReceivedSpan[] {
  return receiver.childrenOf(root).flatMap((child) => [child, ...descendantsOf(child)]);
}

async function book(days: number, headers: Record<string, string> = {}) {
  const created = await call('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(days), customer }, headers);
  expect(created.status).toBe(201);
  return created;
}

describe('tracing a REST booking create', () => {
  it('makes one trace: the HTTP server span, GraphQL execute under it, SQL statements and the log append under that', async () => {
    const created = await book(3, { 'idempotency-key': idempotencyKey });
    const http = await serverSpanOf(created);
    expect(http).toMatchObject({ name: 'POST /v1/bookings', kind: spanKinds.server, parentSpanId: undefined });
    expect(http.attributes).toMatchObject({ 'http.route': '/v1/bookings', 'http.response.status_code': 201, 'http.request.method': 'POST' });
    expect(http.resource).toMatchObject({ 'service.name': 'hallowgate', 'deployment.environment.name': 'test' });

    const [execute] = receiver.childrenOf(http).filter((span) => span.name === 'graphql.execute');
    expect(execute!.attributes).toMatchObject({ 'graphql.operation.type': 'mutation', 'graphql.operation.name': 'CreateBooking' });
    const below = descendantsOf(execute!);
    const statements = below.filter((span) => span.attributes['db.system'] === 'postgresql');
    expect(statements.length).toBeGreaterThan(2);
    for (const statement of statements) {
      expect(statement.kind).toBe(spanKinds.client);
      expect(statement.attributes['db.query.text']).toEqual(expect.any(String));
    }
    expect(statements.some((span) => /INSERT INTO "public"."bookings"/.test(String(span.attributes['db.query.text'])))).toBe(true);

    const [append] = below.filter((span) => span.name === 'booking log append');
    expect(append!.attributes).toMatchObject({ 'hallowgate.event.type': 'booking.created' });
    const appended = receiver.childrenOf(append!).map((span) => String(span.attributes['db.query.text']));
    expect(appended.some((text) => text.includes('INSERT INTO "public"."booking_events"'))).toBe(true);

    // The event keeps the append span's trace context for the deliveries and subscribers it reaches.
    const event = await server.prisma.bookingEvent.findFirstOrThrow({ where: { bookingId: created.body.id } });
    expect(event.traceParent).toBe(`00-${append!.traceId}-${append!.spanId}-01`);
  });

  it('joins the request log lines to the trace, and a problem document keeps its request id', async () => {
    // Refused by validation: Yoga answers it, and writes its own log lines on the way.
    const invalid = await call('POST', '/graphql', { query: 'query Missing { nope }' });
    expect(invalid.body.errors).toHaveLength(1);
    const http = await serverSpanOf(invalid);
    const spanIds = new Set(receiver.trace(http.traceId).map((span) => span.spanId));
    const lines = logLines.filter((line) => line['trace_id'] === http.traceId);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(spanIds.has(String(line['span_id']))).toBe(true);

    const refused = await call('POST', '/v1/bookings', { service_id: serviceId });
    expect(refused.status).toBe(422);
    const refusedSpan = await serverSpanOf(refused);
    expect(refused.body.request_id).toMatch(/^req_/);
    expect(refusedSpan.attributes['hallowgate.request_id']).toBe(refused.body.request_id);
  });

  it('names the route of a request refused before it reaches the router (a key refused, a body too large), in its span and its metrics', async () => {
    const refusals = [
      await apiClient(server.url, 'key_nothere.sk_nothere')('GET', `/v1/services/${serviceId}/availability?start_date=2027-10-30&end_date=2027-10-30`),
      await call('POST', '/v1/bookings', { customer: { name: 'x'.repeat(loadConfig({}).MAX_BODY_BYTES) } }),
    ];
    for (const [refused, status, route] of [
      [refusals[0]!, 401, '/v1/services/:id/availability'],
      [refusals[1]!, 413, '/v1/bookings'],
    ] as const) {
      expect(refused.status).toBe(status);
      const span = await serverSpanOf(refused);
      const method = span.attributes['http.request.method'];
      expect({ name: span.name, route: span.attributes['http.route'] }).toEqual({ name: `${method} ${route}`, route });
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      expect(metrics).toMatch(new RegExp(`^hallowgate_http_requests_total\\{(?=[^}]*route="${method} ${route}")(?=[^}]*status_class="4xx")`, 'm'));
    }
  });

  it('notes the response cache lookup and the data versions read on the span of a cached read', async () => {
    const query = { query: 'query Categories { categories(first: 3) { edges { node { id } } } }' };
    const answers = [];
    for (let time = 0; time < 3; time++) answers.push(await call('POST', '/graphql', query));
    expect(answers.map((answer) => answer.body.errors)).toEqual([undefined, undefined, undefined]);
    const spans = await Promise.all(answers.map((answer) => serverSpanOf(answer)));
    const [, second, third] = spans;
    const executeOf = (http: ReceivedSpan) => receiver.childrenOf(http).find((span) => span.name === 'graphql.execute');
    // The second asking is looked up (and stored) by the Yoga plugin; the third is answered before Yoga.
    expect(executeOf(second!)!.attributes).toMatchObject({ 'hallowgate.response_cache': 'miss', 'hallowgate.data_versions': [expect.any(String)] });
    expect(third!.attributes).toMatchObject({ 'hallowgate.response_cache': 'hit', 'hallowgate.data_versions': [expect.any(String)] });
    expect(executeOf(third!)).toBeUndefined();
  });
});

describe('what the HTTP span keeps of a request', () => {
  /** Sends a GET whose request target is `target` as written (an absolute-form one included), and gives its traceresponse. */
  function getWithTarget(target: string): Promise<{ status: number; headers: Headers }> {
    const { hostname, port } = new URL(server.url);
    return new Promise((resolve, reject) => {
      const sent = httpRequest({ host: hostname, port, path: target, headers: { authorization: `Bearer ${apiKey}` } }, (answer) => {
        answer.resume();
        answer.on('end', () => resolve({ status: answer.statusCode!, headers: new Headers({ traceresponse: String(answer.headers['traceresponse']) }) }));
      });
      sent.on('error', reject);
      sent.end();
    });
  }

  it("keeps the target's path alone, never an absolute target's credentials, nor a secret pasted into the path", async () => {
    const absolute = await getWithTarget(`http://zuser:ZPassLeak99@127.0.0.1:1/v1/services?limit=1`);
    expect(absolute.status).toBe(200);
    expect((await serverSpanOf(absolute)).attributes['url.path']).toBe('/v1/services');

    const [, keySecret] = apiKey.split('.');
    // A webhook secret is base64, so `/` may split it: none of it is kept.
    const webhookLike = 'whsec_qkuNQ+O57cL0ngEnough/alSgc=';
    for (const [target, kept] of [
      [`/v1/bookings/${encodeURIComponent(apiKey)}`, '/v1/bookings/REDACTED'],
      [`/v1/bookings/${apiKey}.json`, '/v1/bookings/REDACTED.json'],
      [`/v1/bookings/${keySecret}`, '/v1/bookings/REDACTED'],
      [`/v1/bookings/Bearer%20${apiKey}`, '/v1/bookings/Bearer REDACTED'],
      [`/v1/webhook_endpoints/${webhookLike}`, '/v1/webhook_endpoints/REDACTED'],
    ] as const) {
      const pasted = await getWithTarget(target);
      expect(pasted.status).toBe(404);
      expect((await serverSpanOf(pasted)).attributes['url.path'], target).toBe(kept);
    }
  });

  it('marks no failure when a client ends a stream, nor for a syntax error or a refused subscription', async () => {
    const controller = new AbortController();
    const stream = await fetch(`${server.url}/v1/services/${serviceId}/availability?start_date=2027-10-30&end_date=2027-10-30`, {
      headers: { authorization: `Bearer ${apiKey}`, accept: 'text/event-stream' },
      signal: controller.signal,
    });
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await stream.body!.getReader().read();
    controller.abort();
    expect((await serverSpanOf(stream)).statusCode).toBe(0);

    const syntax = await call('POST', '/graphql', { query: '{' });
    expect(syntax.body.errors).toMatchObject([{ extensions: { code: 'invalid_request' } }]);
    const parse = receiver.childrenOf(await serverSpanOf(syntax)).find((span) => span.name === 'graphql.parse');
    expect(parse).toMatchObject({ statusCode: 0 });

    const unknown = await call(
      'POST',
      '/graphql',
      { query: 'subscription UnknownService { availabilityChanged(serviceId: "svc_nothere", startDate: "2027-10-30", endDate: "2027-10-30") { remaining } }' },
      { accept: 'text/event-stream' },
    );
    expect(unknown.body.errors).toMatchObject([{ extensions: { code: 'not_found' } }]);
    const subscription = receiver.trace((await serverSpanOf(unknown)).traceId).find((span) => span.name === 'subscription UnknownService');
    expect(subscription).toMatchObject({ statusCode: 0 });
  });

  it('names a subscription whose name is too long for a label as it names one without', async () => {
    const name = `Long${'o'.repeat(80)}`;
    const refused = await call(
      'POST',
      '/graphql',
      { query: `subscription ${name} { availabilityChanged(serviceId: "svc_nothere", startDate: "2027-10-30", endDate: "2027-10-30") { remaining } }` },
      { accept: 'text/event-stream' },
    );
    const spans = receiver.trace((await serverSpanOf(refused)).traceId);
    const subscription = spans.find((span) => span.kind === spanKinds.server && span.attributes['graphql.operation.type'] === 'subscription');
    expect(subscription).toMatchObject({ name: 'subscription' });
    expect(subscription!.attributes['graphql.operation.name']).toBe(name);
  });
});

describe('exporting', () => {
  it('sends the headers OTEL_EXPORTER_OTLP_HEADERS and OTEL_EXPORTER_OTLP_TRACES_HEADERS name, the traces’ over the exporters’', async () => {
    await book(7);
    await tracing.flush();
    expect(receiver.headers.at(-1)).toMatchObject({ 'x-collector-token': 'traces', 'x-tenant': 'the gate' });
  });

  it('says while it runs that the collector refuses spans, and that it takes them again, at most once a minute when it fails now and then', async () => {
    const said: string[] = [];
    tracing.reportExportsTo({ warn: (line) => said.push(`warn: ${line}`), info: (line) => said.push(`info: ${line}`) });
    /** A booking's spans sent to a collector answering `status`; a flush rejects with its refusal, which the server says in its own words. */
    const exportOneBooking = async (status: number, days: number) => {
      receiver.answerWith(status);
      await book(days);
      await tracing.flush().catch(() => undefined);
    };
    const collector = `${receiver.url}/v1/traces`;
    try {
      await exportOneBooking(500, 8);
      expect(said).toEqual([expect.stringMatching(new RegExp(`^warn: tracing: the collector at ${collector} did not take \\d+ spans \\(.+\\); spans are dropped`))]);
      // Refused again: counted, not said again within the minute.
      await exportOneBooking(500, 9);
      expect(said).toHaveLength(1);
      await exportOneBooking(200, 10);
      expect(said[1]).toMatch(new RegExp(`^info: tracing: the collector at ${collector} takes spans again \\([1-9]\\d* more spans were lost after the warning\\)$`));
      // A collector that fails now and then: nothing more is said within the minute.
      await exportOneBooking(400, 11);
      await exportOneBooking(200, 12);
      expect(said).toHaveLength(2);
    } finally {
      receiver.answerWith(200);
      tracing.reportExportsTo({ warn: () => undefined, info: () => undefined });
    }
  });
});

describe('W3C trace context', () => {
  it("continues a caller's sampled trace", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const created = await book(5, { traceparent: `00-${traceId}-00f067aa0ba902b7-01` });
    const http = await serverSpanOf(created);
    expect(http.traceId).toBe(traceId);
    expect(http.parentSpanId).toBe('00f067aa0ba902b7');
  });

  it("exports nothing of a caller's trace it was told is not sampled", async () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const created = await book(6, { traceparent: `00-${traceId}-b7ad6b7169203331-00` });
    expect(created.headers.get('traceresponse')).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-00$`));
    await tracing.flush();
    expect(receiver.trace(traceId)).toEqual([]);
    const event = await server.prisma.bookingEvent.findFirstOrThrow({ where: { bookingId: created.body.id } });
    expect(event.traceParent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-00$`));
  });
});

describe('tracing a subscription', () => {
  let subscriber: Client | undefined;
  afterAll(() => subscriber?.dispose());

  /** Subscribes over graphql-ws (through `webSocketImpl`) with the test's key: the ids of the events it streams, in order. */
  function watchBookingEvents(query: string, variables: Record<string, unknown>, webSocketImpl: unknown): string[] {
    subscriber = createClient({ url: `${server.url.replace('http', 'ws')}/graphql`, webSocketImpl, connectionParams: { authorization: `Bearer ${apiKey}` }, retryAttempts: 0 });
    const streamed: string[] = [];
    subscriber.subscribe<{ bookingEvents: { id: string } }>(
      { query, variables },
      { next: ({ data }) => void streamed.push(data!.bookingEvents.id), error: (error) => streamed.push(`error: ${JSON.stringify(error)}`), complete: () => undefined },
    );
    return streamed;
  }

  it('is a SERVER span of its own, each event sent a span under it linked to the request that logged the event', async () => {
    const before = await book(20);
    const replayedId = (await server.prisma.bookingEvent.findFirstOrThrow({ where: { bookingId: before.body.id } })).id;
    const earlier = await server.prisma.bookingEvent.findFirstOrThrow({
      where: { seq: { lt: (await server.prisma.bookingEvent.findUniqueOrThrow({ where: { id: replayedId } })).seq } },
      orderBy: { seq: 'desc' },
    });
    const streamed = watchBookingEvents('subscription WatchBookings($after: ID) { bookingEvents(after: $after) { id } }', { after: earlier.id }, WebSocket);
    // The replayed event proves the subscription is live; the next one comes from the create below.
    await until(() => streamed.length >= 1, 'the replayed event', 10_000);
    const created = await book(21);
    await until(() => streamed.length >= 2, 'the live event', 10_000);
    const liveId = (await server.prisma.bookingEvent.findFirstOrThrow({ where: { bookingId: created.body.id } })).id;
    expect(streamed).toEqual([replayedId, liveId]);
    await subscriber!.dispose();
    subscriber = undefined;

    const createSpan = await serverSpanOf(created);
    await until(() => receiver.spans.some((span) => span.name === 'subscription WatchBookings'), 'the subscription span to end', 10_000);
    const subscription = receiver.spans.find((span) => span.name === 'subscription WatchBookings')!;
    expect(subscription).toMatchObject({ kind: spanKinds.server, parentSpanId: undefined });
    expect(subscription.attributes).toMatchObject({ 'graphql.operation.type': 'subscription', 'graphql.operation.name': 'WatchBookings' });
    const events = receiver.childrenOf(subscription).filter((span) => span.name === 'graphql.subscription.event');
    expect(events.map((span) => span.attributes['hallowgate.event.id'])).toEqual([replayedId, liveId]);
    const append = receiver.trace(createSpan.traceId).find((span) => span.name === 'booking log append')!;
    expect(events[1]!.links).toEqual([{ traceId: append.traceId, spanId: append.spanId }]);
    // The log reads that found the events ran within the subscription.
    expect(descendantsOf(subscription).some((span) => String(span.attributes['db.query.text']).includes('"public"."booking_events"'))).toBe(true);
    // Its client sent no trace: the operation's parse and validate start none of their own either.
    expect(receiver.spans.filter((span) => span.name.startsWith('graphql.') && span.parentSpanId === undefined)).toEqual([]);
  });

  it("continues the trace a graphql-ws client sent with its upgrade request: the operation's phases and its subscription", async () => {
    const traceId = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
    const clientSpanId = '0123456789abcdef';
    const streamed = watchBookingEvents('subscription TracedWatch { bookingEvents { id } }', {}, socketSending(`00-${traceId}-${clientSpanId}-01`));
    // No replay without `after`: booking until an event arrives proves the subscription is live.
    for (let day = 40; streamed.length === 0; day++) {
      if (day > 60) throw new Error('no event reached the traced subscription');
      await book(day);
      await until(() => streamed.length > 0, 'an event on the traced subscription', 1_000).catch(() => undefined);
    }
    expect(streamed[0]).toMatch(/^msg_/);
    await subscriber!.dispose();
    subscriber = undefined;

    await untilExported(tracing, () => receiver.spans.some((span) => span.name === 'subscription TracedWatch'), 'the traced subscription span to end');
    const subscription = receiver.spans.find((span) => span.name === 'subscription TracedWatch')!;
    expect(subscription).toMatchObject({ kind: spanKinds.server, traceId, parentSpanId: clientSpanId });
    const phases = receiver.trace(traceId).filter((span) => span.name === 'graphql.parse' || span.name === 'graphql.validate');
    expect(phases.map((span) => [span.name, span.parentSpanId]).sort()).toEqual([
      ['graphql.parse', clientSpanId],
      ['graphql.validate', clientSpanId],
    ]);
    expect(receiver.childrenOf(subscription).some((span) => span.name === 'graphql.subscription.event')).toBe(true);
  });
});

describe('tracing a mutation over graphql-ws', () => {
  /** Runs one operation on a socket of its own (opened through `webSocketImpl`) and gives its result. */
  async function overSocket(webSocketImpl: unknown, query: string, variables: Record<string, unknown>): Promise<{ data?: Record<string, { booking: { id: string } }> }> {
    const client = createClient({ url: `${server.url.replace('http', 'ws')}/graphql`, webSocketImpl, connectionParams: { authorization: `Bearer ${apiKey}` }, retryAttempts: 0 });
    try {
      return await new Promise((resolve, reject) => {
        let result: unknown;
        client.subscribe(
          { query, variables },
          { next: (value) => (result = value), error: reject, complete: () => resolve(result as { data?: Record<string, { booking: { id: string } }> }) },
        );
      });
    } finally {
      await client.dispose();
    }
  }
  const mutation = 'mutation SocketBooking($input: CreateBookingInput!) { createBooking(input: $input) { booking { id } } }';
  const input = (days: number) => ({ serviceId, startTime: futureSlot(days), customer });

  /** The execute span of the create that made booking `bookingId`, found by its booking log append. */
  async function executeSpanOf(bookingId: string): Promise<ReceivedSpan> {
    const eventId = (await server.prisma.bookingEvent.findFirstOrThrow({ where: { bookingId } })).id;
    await untilExported(
      tracing,
      () => receiver.spans.some((span) => span.name === 'booking log append' && span.attributes['hallowgate.event.id'] === eventId),
      'the booking log append',
    );
    const append = receiver.spans.find((span) => span.name === 'booking log append' && span.attributes['hallowgate.event.id'] === eventId)!;
    const spans = receiver.trace(append.traceId);
    let span = append;
    while (span.name !== 'graphql.execute') span = spans.find((candidate) => candidate.spanId === span.parentSpanId)!;
    return span;
  }

  it("is a trace of its own, from its execute span, when the socket's client sent none", async () => {
    const result = await overSocket(WebSocket, mutation, { input: input(50) });
    const execute = await executeSpanOf(result.data!['createBooking']!.booking.id);
    expect(execute.parentSpanId).toBeUndefined();
    expect(execute.attributes).toMatchObject({ 'graphql.operation.type': 'mutation', 'graphql.operation.name': 'SocketBooking' });
    expect(descendantsOf(execute).some((span) => span.name === 'INSERT')).toBe(true);
  });

  it("continues the trace the socket's upgrade request carried", async () => {
    const traceId = 'b2c3d4e5f60718293a4b5c6d7e8f9001';
    const clientSpanId = '1123456789abcdef';
    const result = await overSocket(socketSending(`00-${traceId}-${clientSpanId}-01`), mutation, { input: input(51) });
    expect(await executeSpanOf(result.data!['createBooking']!.booking.id)).toMatchObject({ traceId, parentSpanId: clientSpanId });
  });
});

describe('tracing a webhook delivery', () => {
  it('is a CLIENT span linked to the request that logged the event, and the receiver gets its traceparent', async () => {
    const hooks = await startReceiver();
    try {
      const endpoint = await call('POST', '/v1/webhook_endpoints', { url: hooks.url });
      expect(endpoint.status).toBe(201);
      webhookSecret = endpoint.body.secret;
      const created = await book(30);
      const [delivered] = await hooks.waitFor(1);
      const createSpan = await serverSpanOf(created);
      const append = receiver.trace(createSpan.traceId).find((span) => span.name === 'booking log append')!;
      const [, traceId, spanId, flags] = String(delivered!.headers['traceparent']).split('-');
      expect(flags).toBe('01');
      await until(() => receiver.spans.some((span) => span.spanId === spanId), 'the delivery span', 10_000).catch(() => tracing.flush());
      await tracing.flush();
      const delivery = receiver.spans.find((span) => span.traceId === traceId && span.spanId === spanId)!;
      expect(delivery).toMatchObject({ name: 'webhook delivery', kind: spanKinds.client, parentSpanId: undefined, links: [{ traceId: append.traceId, spanId: append.spanId }] });
      expect(delivery.attributes).toMatchObject({ 'http.response.status_code': 200, 'hallowgate.webhook.message_id': delivered!.headers['webhook-id'] });
    } finally {
      await call('DELETE', `/v1/webhook_endpoints/${(await server.prisma.webhookEndpoint.findFirstOrThrow()).id}`);
      await hooks.close();
    }
  });
});

describe('tracing a test event', () => {
  it("is linked to the request that sent it, also when the request's caller left its trace unsampled", async () => {
    const hooks = await startReceiver();
    try {
      const endpoint = await call('POST', '/v1/webhook_endpoints', { url: hooks.url, events: ['booking.created'] });
      expect(endpoint.status).toBe(201);
      const callerTrace = 'c0ffee00c0ffee00c0ffee00c0ffee00';
      const sent = await call('POST', `/v1/webhook_endpoints/${endpoint.body.id}/test`, { event: 'booking.created' }, { traceparent: `00-${callerTrace}-0123456789abcdef-00` });
      expect(sent.status).toBe(202);
      const [, , requestSpanId, flags] = sent.headers.get('traceresponse')!.split('-');
      expect(flags).toBe('00');
      const [delivered] = await hooks.waitFor(1);
      // Its own trace, sampled (the sampler starts every root trace), linked to the request's unsampled one.
      const [, traceId, spanId] = String(delivered!.headers['traceparent']).split('-');
      await untilExported(tracing, () => receiver.spans.some((span) => span.spanId === spanId), 'the test delivery span');
      expect(receiver.spans.find((span) => span.traceId === traceId && span.spanId === spanId)).toMatchObject({
        name: 'webhook delivery',
        links: [{ traceId: callerTrace, spanId: requestSpanId }],
      });
      expect(receiver.trace(callerTrace)).toEqual([]);
    } finally {
      await call('DELETE', `/v1/webhook_endpoints/${(await server.prisma.webhookEndpoint.findFirstOrThrow()).id}`);
      await hooks.close();
    }
  });
});

describe('what spans never carry', () => {
  it('holds no API key, webhook signing secret, customer name or email, nor any statement parameter', async () => {
    await tracing.flush();
    const exported = receiver.bodies.join('\n');
    expect(exported.length).toBeGreaterThan(1000);
    const [, secretPart] = apiKey.split('.');
    for (const secret of [apiKey, secretPart!, webhookSecret, customer.name, customer.email, idempotencyKey]) {
      expect(exported, 'a secret or a parameter value was exported').not.toContain(secret);
    }
  });
});
