import fc from 'fast-check';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestServer, type TestServer } from '../support/server.js';
import { openService } from '../support/bookable.js';

const maxBodyBytes = 64_000;
let server: TestServer;
let key: string;
let serviceId: string;
let bookingId: string;

beforeAll(async () => {
  server = await startTestServer({ seed: true, config: { MAX_BODY_BYTES: maxBodyBytes } });
  ({ key } = await server.createKey({ plan: 'business' }));
  serviceId = await openService(server.prisma);
  const start = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 13) + ':00:00Z';
  const created = await fetch(`${server.url}/v1/bookings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ service_id: serviceId, start_time: start, customer: { name: 'Fuzz', email: 'fuzz@example.com' } }),
  });
  bookingId = (await created.json()).id;
});
afterAll(() => server?.close());

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

const anyJson = fc.jsonValue({ maxDepth: 4 });
const controlCharacter = fc.integer({ min: 0, max: 31 }).map((code) => String.fromCharCode(code));
/** Text with NUL or another control character somewhere in it. */
const controlText = fc.tuple(fc.string({ maxLength: 10 }), fc.oneof(fc.constant('\u0000'), controlCharacter), fc.string({ maxLength: 10 })).map((parts) => parts.join(''));
const oddText = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), controlText, fc.constantFrom('', '\u0000', '%', '%zz', '../../etc/passwd', 'ｆｕｌｌ', '😱'.repeat(50)));
const deepJson = fc
  .integer({ min: 50, max: 100_000 })
  .chain((depth) => fc.constantFrom('['.repeat(depth) + ']'.repeat(depth), '{"customer":'.repeat(depth) + '1' + '}'.repeat(depth)));
const base64 = (text: string) => Buffer.from(text).toString('base64');
/** Cursors this API never issued: made-up text, other chunk types, ids of other lists, NUL inside. */
const forgedCursor = fc.oneof(
  fc.string().map(base64),
  fc.bigInt({ min: 0n, max: 10n ** 30n }).map((number) => base64(`GPC:I:${number}`)),
  fc.constantFrom('GPC:N:1e400', 'GPC:D:-99999999999999999', 'GPC:O:{"id":1}', 'GPC:T:[]', 'GPC:Z:', 'GPC:S:', 'GPC:S:ev_a\u0000b').map(base64),
  fc.constantFrom('bk', 'ev', 'at', 'cat', 'svc', 'msg', 'key', 'we').map((prefix) => base64(`GPC:S:${prefix}_0123456789abcdefghijkl`)),
  fc.string(),
);
const extremeDate = fc.constantFrom(
  '0000-01-01',
  '9999-12-31',
  '275760-09-14',
  '-000001-01-01',
  '2027-02-30',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59Z',
  '+275760-09-13T00:00:00Z',
  '2027-02-30T25:61:00Z',
);
const hugeText = fc.integer({ min: 70_000, max: 200_000 }).map((size) => JSON.stringify({ customer: { name: 'x'.repeat(size) } }));

const bookingBody = fc.record(
  {
    service_id: fc.oneof(fc.constant('SERVICE'), anyJson),
    start_time: fc.oneof(
      fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
      extremeDate,
      oddText,
      anyJson,
    ),
    customer: fc.oneof(
      fc.record(
        {
          name: fc.oneof(oddText, controlText, anyJson),
          email: fc.oneof(
            fc.emailAddress(),
            controlText.map((text) => `${text}@example.com`),
            oddText,
            anyJson,
          ),
        },
        { requiredKeys: [] },
      ),
      anyJson,
    ),
  },
  { requiredKeys: [] },
);

const queryValue = fc.oneof(
  oddText,
  controlText,
  extremeDate,
  forgedCursor,
  fc.integer().map(String),
  fc.constantFrom('-1', '0', '101', '1e3', 'null', '2027-02-30', 'starts_at,-nope'),
);
const queryString = fc
  .dictionary(
    fc.constantFrom(
      'limit',
      'cursor',
      'city',
      'category',
      'include',
      'fields',
      'sort',
      'starts_after',
      'starts_before',
      'q',
      'start_date',
      'end_date',
      'status',
      'service_id',
      'after',
      'junk',
    ),
    queryValue,
    { maxKeys: 5 },
  )
  .map((params) => new URLSearchParams(params).toString());

const restPath = fc.constantFrom(
  '/v1/bookings',
  '/v1/bookings/BOOKING',
  '/v1/bookings/bk_missing',
  '/v1/services',
  '/v1/services/SERVICE',
  '/v1/booking_events',
  '/api/v1/events',
  '/api/v1/events/ev_missing',
  '/api/v1/attractions',
  '/api/v1/categories',
  '/api/v1/categories/haunted-house',
  '/v1/%E0%A4%A',
  '/api/v1/events/%',
  '/v1/bookings/' + 'a'.repeat(3000),
);
/** A path whose id holds NUL or another control character, percent-encoded. */
const controlPath = fc
  .tuple(
    fc.constantFrom('/v1/bookings/', '/v1/services/', '/api/v1/events/', '/api/v1/attractions/', '/api/v1/categories/', '/v1/webhook_endpoints/'),
    fc.constantFrom('bk_', 'svc_', 'ev_', ''),
    controlText,
  )
  .map(([base, prefix, text]) => base + encodeURIComponent(prefix + text));
const anyPath = fc.oneof(restPath, controlPath);

/** Hundreds of aliased fields, or aliased introspection of the whole schema. */
const aliasBomb = fc
  .record({
    count: fc.integer({ min: 100, max: 2000 }),
    field: fc.constantFrom(
      '__typename',
      'viewer { accountId }',
      'events(first: 100) { edges { node { id title } } }',
      '__schema { types { name fields { name type { name ofType { name } } } } }',
    ),
  })
  .map(({ count, field }) => `{ ${Array.from({ length: count }, (_, index) => `a${index}: ${field}`).join(' ')} }`);
const graphqlWithBadArguments = fc.oneof(
  forgedCursor.map((cursor) => ({ query: 'query ($after: String) { events(after: $after) { edges { node { id } } } }', variables: { after: cursor } })),
  forgedCursor.map((cursor) => ({
    query: 'query ($after: String) { attractions(first: 2) { edges { node { events(after: $after) { edges { node { id } } } } } } }',
    variables: { after: cursor },
  })),
  fc
    .record({ q: fc.oneof(controlText, oddText), city: fc.oneof(controlText, oddText) })
    .map((variables) => ({ query: 'query ($q: String, $city: String) { events(q: $q, city: $city) { edges { node { id } } } }', variables })),
  extremeDate.map((date) => ({ query: 'query ($date: Date) { bookings(startDate: $date, endDate: $date) { edges { node { id } } } }', variables: { date } })),
  fc
    .array(fc.oneof(fc.string(), controlText, fc.constantFrom('ev_missing', 'key_missing', 'SERVICE', 'BOOKING')), { maxLength: 150 })
    .map((ids) => ({ query: 'query ($ids: [ID!]!) { nodes(ids: $ids) { id } }', variables: { ids } })),
);

const graphqlBody = fc.oneof(
  anyJson.map((value) => JSON.stringify(value)),
  fc
    .record({
      query: fc.oneof(
        oddText,
        fc.constantFrom(
          '{',
          '{ events { edges { node { id } } } }',
          'mutation { createBooking(input: {}) { replayed } }',
          '{ __schema { types { name } } }',
          'query { ' + 'node(id: "x") { id } '.repeat(400) + '}',
        ),
      ),
      variables: fc.oneof(anyJson, fc.constant(undefined)),
    })
    .map((value) => JSON.stringify(value)),
  deepJson.map((deep) => `{"query":"{ __typename }","variables":{"deep":${deep}}}`),
  fc
    .integer({ min: 20, max: 200 })
    .map((depth) =>
      JSON.stringify({ query: `{ ${'events { edges { node { attraction { events { edges { node { '.repeat(depth / 10)}id${' } } } } } } } }'.repeat(depth / 10)} }` }),
    ),
  aliasBomb.map((query) => JSON.stringify({ query })),
  graphqlWithBadArguments.map((value) => JSON.stringify(value)),
);

const headerAbuse = fc.record(
  {
    authorization: fc.oneof(
      { arbitrary: fc.constant('KEY'), weight: 12 },
      fc.constant('Bearer'),
      fc.constant('Bearer a.b.c'),
      oddText.filter((text) => /^[\x20-\x7e]*$/.test(text)).map((text) => `Bearer ${text}`),
    ),
    'content-type': fc.constantFrom('application/json', 'text/plain', 'application/json; charset=latin1', 'multipart/form-data', '', 'application/graphql-response+json'),
    'x-request-id': fc.oneof(
      fc.constant('ok-id'),
      fc.string({ maxLength: 300 }).filter((text) => /^[\x20-\x7e]*$/.test(text)),
    ),
    'idempotency-key': fc.string({ maxLength: 300 }).filter((text) => /^[\x20-\x7e]*$/.test(text)),
    'if-none-match': fc.constantFrom('*', '"x"', 'W/"y"', ''),
    'if-modified-since': fc.constantFrom('yesterday', 'Thu, 01 Jan 2099 00:00:00 GMT', ''),
    accept: fc.constantFrom('application/json', 'text/event-stream', '*/*', 'application/xml'),
  },
  { requiredKeys: ['authorization'] },
);

const request: fc.Arbitrary<FuzzRequest> = fc.oneof(
  fc
    .record({ method: fc.constantFrom('GET', 'DELETE', 'PUT', 'OPTIONS', 'HEAD'), path: anyPath, query: queryString, headers: headerAbuse })
    .map(({ method, path, query, headers }) => ({ method, path: `${path}?${query}`, headers })),
  fc.record({
    method: fc.constantFrom('POST', 'PATCH'),
    path: anyPath,
    headers: headerAbuse,
    body: fc.oneof(
      bookingBody.map((value) => JSON.stringify(value)),
      anyJson.map((value) => JSON.stringify(value)),
      oddText,
      deepJson,
      hugeText,
    ),
  }),
  fc
    .record({ method: fc.constantFrom('POST', 'GET'), path: fc.constant('/graphql'), headers: headerAbuse, body: graphqlBody })
    .map((value) => (value.method === 'GET' ? { method: 'GET', path: `/graphql?query=${encodeURIComponent(value.body.slice(0, 2000))}`, headers: value.headers } : value)),
);

function concrete(fuzz: FuzzRequest): FuzzRequest {
  const fill = (text: string) => text.replaceAll('SERVICE', serviceId).replaceAll('BOOKING', bookingId);
  const headers = { ...fuzz.headers };
  if (headers['authorization'] === 'KEY') headers['authorization'] = `Bearer ${key}`;
  return { ...fuzz, path: fill(fuzz.path), headers, ...(fuzz.body !== undefined ? { body: fill(fuzz.body) } : {}) };
}

describe('malformed input', () => {
  it('never answers 5xx, and every error is a well-formed problem or GraphQL error', async () => {
    const samples = fc.sample(request, { numRuns: 10_000, seed: 20261122 }).map(concrete);
    const failures: string[] = [];
    let index = 0;
    const worker = async () => {
      while (index < samples.length) {
        const sample = samples[index++]!;
        let response: Response;
        try {
          response = await fetch(`${server.url}${sample.path}`, {
            method: sample.method,
            headers: sample.headers,
            ...(sample.body !== undefined && sample.method !== 'GET' && sample.method !== 'HEAD' ? { body: sample.body } : {}),
            signal: AbortSignal.timeout(15_000),
          });
        } catch (error) {
          failures.push(`${sample.method} ${sample.path.slice(0, 120)}: ${(error as Error).message}`);
          continue;
        }
        const text = sample.headers['accept'] === 'text/event-stream' ? '' : await response.text();
        if (sample.headers['accept'] === 'text/event-stream') await response.body?.cancel();
        if (response.status >= 500) failures.push(`${response.status} ${sample.method} ${sample.path.slice(0, 120)} ${text.slice(0, 200)}`);
        // GraphQL answers a failure on our side in its body, whatever the status.
        if (response.status < 500 && text.includes('"code":"internal_error"'))
          failures.push(`internal_error ${sample.method} ${sample.path.slice(0, 120)} ${(sample.body ?? '').slice(0, 200)} ${text.slice(0, 200)}`);
        if (response.status >= 400 && text) {
          const type = response.headers.get('content-type') ?? '';
          const body = JSON.parse(text);
          if (type.startsWith('application/problem+json')) {
            if (typeof body.code !== 'string' || body.status !== response.status || typeof body.detail !== 'string') failures.push(`bad problem: ${text.slice(0, 200)}`);
          } else if (!Array.isArray(body.errors) || typeof body.errors[0]?.message !== 'string') {
            failures.push(`bad error body ${response.status} ${sample.method} ${sample.path.slice(0, 80)}: ${text.slice(0, 200)}`);
          }
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    expect(failures.slice(0, 20)).toEqual([]);
  }, 300_000);
});

describe('oversized WebSocket messages', () => {
  it('close the connection with 1009 (message too big)', async () => {
    for (const size of fc.sample(fc.integer({ min: maxBodyBytes + 1, max: 4 * maxBodyBytes }), { numRuns: 3, seed: 20261122 })) {
      const client = createClient({
        url: `${server.url.replace('http', 'ws')}/graphql`,
        webSocketImpl: WebSocket,
        connectionParams: { authorization: `Bearer ${key}` },
        retryAttempts: 0,
      });
      const closeCode = await new Promise<unknown>((resolve) => {
        client.on('closed', (event) => resolve((event as { code?: number }).code));
        client.subscribe({ query: `{ __typename ${' '.repeat(size)}}` }, { next: () => undefined, error: () => undefined, complete: () => undefined });
      });
      await client.dispose();
      expect({ size, closeCode }).toEqual({ size, closeCode: 1009 });
    }
  });
});
