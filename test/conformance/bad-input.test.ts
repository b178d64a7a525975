import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { readBody } from '../../src/server/body.js';
import { AppError } from '../../src/shared/errors.js';
import { apiClient, type ApiCall } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';

// Run with TEST_DATABASE_URL to see the NUL cases against PostgreSQL, which refuses NUL in text.
let server: TestServer;
let key: string;
let call: ApiCall;
let eventId: string;
const queries: string[] = [];

beforeAll(async () => {
  server = await startTestServer({ seed: true, onQuery: (sql) => queries.push(sql) });
  ({ key } = await server.createKey({ plan: 'business' }));
  call = apiClient(server.url, key);
  eventId = (await server.prisma.event.findFirstOrThrow({ select: { id: true } })).id;
});
afterAll(() => server?.close());

async function graphql(query: string, variables?: Record<string, unknown>) {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, body: await response.json() };
}

const base64 = (text: string) => Buffer.from(text).toString('base64');

describe('forged cursors', () => {
  it('are 400 invalid_parameter naming cursor on every REST list', async () => {
    for (const path of ['/v1/bookings', '/api/v1/events', '/api/v1/attractions']) {
      for (const cursor of ['R1BDOkk6OTk5OTk5OTk5OTk5', base64('GPC:O:{"id":1}'), base64('GPC:S:ev_a\u0000b'), base64('hello'), 'not base64!']) {
        const { status, body } = await call('GET', `${path}?cursor=${encodeURIComponent(cursor)}`);
        expect({ path, cursor, status, code: body.code, errors: body.errors }).toMatchObject({
          status: 400,
          code: 'invalid_parameter',
          errors: [{ field: 'cursor' }],
        });
      }
    }
  });

  it('an empty one is 400 on every connection, the bookings list (which reads its own) included: never the first page', async () => {
    for (const query of [
      '{ bookings(first: 1, after: "") { edges { node { id } } } }',
      '{ bookings(last: 1, before: "") { edges { node { id } } } }',
      '{ events(after: "") { edges { node { id } } } }',
    ]) {
      const { body } = await graphql(query);
      expect([query, body.errors?.[0]?.extensions?.code]).toEqual([query, 'invalid_parameter']);
    }
  });

  it('first and last together are 400, in a nested connection too: neither is ignored silently', async () => {
    for (const query of [
      '{ events(first: 2, last: 2) { edges { node { id } } } }',
      '{ attractions(first: 1) { edges { node { events(first: 1, last: 1) { edges { node { id } } } } } } }',
    ]) {
      const { body } = await graphql(query);
      expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_parameter', errors: [{ field: 'last' }] });
    }
  });

  it('name after in GraphQL, in a nested connection too', async () => {
    const forged = 'R1BDOkk6OTk5OTk5OTk5OTk5';
    for (const query of [
      `{ events(after: "${forged}") { edges { node { id } } } }`,
      `{ attractions(first: 1) { edges { node { events(after: "${forged}") { edges { node { id } } } } } } }`,
    ]) {
      const { body } = await graphql(query);
      expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_parameter', errors: [{ field: 'after' }] });
    }
  });

  it('a cursor of another list is 400 on cursor too, never an empty last page', async () => {
    for (const path of [
      `/api/v1/events?cursor=${base64('GPC:S:bk_0000000000000000000000')}`,
      // The bookings list's own kind of cursor.
      `/api/v1/events?cursor=${encodeURIComponent('HGK:start_time:1824919200000:bk_0000000000000000000000')}`,
      `/v1/webhook_endpoints?cursor=${encodeURIComponent('HGK:start_time:1824919200000:bk_0000000000000000000000')}`,
      `/v1/bookings?cursor=${base64('GPC:S:bk_0000000000000000000000')}`,
    ]) {
      const { status, body } = await call('GET', path);
      expect({ path, status, code: body.code, errors: body.errors }).toMatchObject({ path, status: 400, code: 'invalid_parameter', errors: [{ field: 'cursor' }] });
    }
  });
});

/** A GET of `target` sent exactly as written (fetch would resolve its dot segments first). */
function getAsSent(target: string): Promise<{ status: number; body: { code?: string } }> {
  return new Promise((resolve, reject) => {
    const url = new URL(server.url);
    const request = httpRequest({ host: url.hostname, port: url.port, path: target, headers: { authorization: `Bearer ${key}` } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString() || '{}') }));
    });
    request.on('error', reject);
    request.end();
  });
}

describe('request paths URL parsing would rewrite', () => {
  it('are 400, never the route they would resolve to: a proxy in front routes them as sent', async () => {
    for (const target of [
      '//x/v1/bookings',
      '//v1/bookings',
      '/widget/%2e%2e/v1/bookings',
      '/widget/../v1/bookings',
      '/api/v1/./events',
      '/api/v1/events/.%2E/attractions',
      '/api/v1/events\\..\\attractions',
      '/v1//bookings',
      'http://elsewhere.example//v1/bookings',
    ]) {
      const { status, body } = await getAsSent(target);
      expect({ target, status, code: body.code }).toEqual({ target, status: 400, code: 'invalid_request' });
    }
    // Dots within a segment are a segment like any other.
    expect((await getAsSent('/api/v1/events?q=..')).status).toBe(200);
    expect((await getAsSent('/api/v1/events/ev_..x')).status).toBe(404);
  });
});

describe('NUL characters', () => {
  it('in path ids, q and city are 400 naming the parameter', async () => {
    for (const [path, field] of [
      ['/v1/bookings/bk_%00', 'id'],
      ['/v1/services/svc_%00x', 'id'],
      ['/api/v1/events/ev_%00', 'id'],
      ['/api/v1/categories/%00', 'id_or_slug'],
      ['/api/v1/events?q=a%00b', 'q'],
      ['/api/v1/attractions?city=Salem%00', 'city'],
    ] as const) {
      const { status, body } = await call('GET', path);
      expect({ path, status, code: body.code, errors: body.errors }).toMatchObject({ status: 400, code: 'invalid_parameter', errors: [{ field }] });
    }
  });

  it('in a body is 422 naming the field', async () => {
    const { status, body } = await call('POST', '/v1/bookings', {
      service_id: 'svc_x',
      start_time: '2030-01-01T19:00:00Z',
      customer: { name: 'Nul\u0000l', email: 'a@example.com' },
    });
    expect({ status, code: body.code, errors: body.errors }).toMatchObject({ status: 422, code: 'validation_failed', errors: [{ field: 'customer.name' }] });
  });

  it('in a GraphQL argument is invalid_parameter naming it', async () => {
    const { body } = await graphql('query ($q: String) { events(q: $q) { edges { node { id } } } }', { q: '\u0000' });
    expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_parameter', errors: [{ field: 'q' }] });
  });
});

describe('text that is not well-formed', () => {
  it('in a query string, not percent-encoded UTF-8, is 400 naming the parameter, on REST and on /graphql: never searched for as U+FFFD', async () => {
    for (const [query, field] of [
      ['city=%C3%28', 'city'],
      ['q=%FF', 'q'],
      ['q=%ED%A0%80', 'q'],
      ['q=caf%C3%A9&city=%E9', 'city'],
    ] as const) {
      const { status, body } = await call('GET', `/api/v1/attractions?${query}`);
      expect([query, status, body.code, body.errors?.[0]?.field]).toEqual([query, 400, 'invalid_parameter', field]);
    }
    // A % before no two hex digits is a % (as URLSearchParams reads it), as form-encoded GraphQL GETs send "50% off".
    for (const query of ['q=caf%C3%A9+x', 'q=100%', 'q=%zz', 'q=50%+off']) expect([query, (await call('GET', `/api/v1/attractions?${query}`)).status]).toEqual([query, 200]);
    // A preflight is answered before the query is looked at.
    const preflight = await fetch(`${server.url}/api/v1/attractions?q=%E9`, {
      method: 'OPTIONS',
      headers: { origin: 'https://site.example', 'access-control-request-method': 'GET' },
    });
    expect(preflight.status).toBe(204);
    const graphql = await fetch(`${server.url}/graphql?query=${encodeURIComponent('{ __typename }')}&variables=%FF`, { headers: { authorization: `Bearer ${key}` } });
    // A GraphQL error, as every refusal on /graphql is, not a problem document.
    expect([graphql.status, graphql.headers.get('content-type'), (await graphql.json()).errors[0].extensions.code]).toEqual([
      400,
      'application/json; charset=utf-8',
      'invalid_parameter',
    ]);
  });

  const booking = (name: string) => ({ service_id: 'svc_x', start_time: '2030-01-01T19:00:00Z', customer: { name, email: 'a@example.com' } });
  const post = (path: string, body: string | Buffer, headers: Record<string, string>) =>
    fetch(`${server.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, ...headers }, body: typeof body === 'string' ? body : new Uint8Array(body) });

  it('a lone surrogate (\\ud800) in a body or an argument is refused naming it, not stored as U+FFFD', async () => {
    const { status, body } = await call('POST', '/v1/bookings', booking('Ada\ud800'));
    expect({ status, code: body.code, errors: body.errors }).toMatchObject({
      status: 422,
      code: 'validation_failed',
      errors: [{ field: 'customer.name', code: 'invalid_character' }],
    });
    const answer = await graphql('query ($q: String) { events(q: $q) { edges { node { id } } } }', { q: 'a\udc00' });
    expect(answer.body.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_parameter', errors: [{ field: 'q', code: 'invalid_character' }] });
    // A pair of surrogates is one character, and fine.
    expect((await graphql('query ($q: String) { events(q: $q) { edges { node { id } } } }', { q: '\ud83c\udf83' })).body.errors).toBeUndefined();
  });

  it('a JSON body that is not UTF-8 is 400, on REST and GraphQL', async () => {
    const latin1 = Buffer.concat([Buffer.from(JSON.stringify(booking('Ren')).slice(0, -3)), Buffer.from([0xe9]), Buffer.from('e"}}')]);
    const rest = await post('/v1/bookings', latin1, { 'content-type': 'application/json' });
    expect({ status: rest.status, code: (await rest.json()).code }).toEqual({ status: 400, code: 'invalid_json' });
    const graphQL = await post('/graphql', Buffer.from([...Buffer.from('{"query":"{ __typename }","variables":{"a":"'), 0xff, ...Buffer.from('"}}')]), {
      'content-type': 'application/json',
    });
    expect({ status: graphQL.status, code: (await graphQL.json()).errors?.[0]?.extensions?.code }).toEqual({ status: 400, code: 'invalid_json' });
  });

  it('a GraphQL body of another form that is not UTF-8 is 400: a document (application/graphql), a form with a percent-encoded byte that is no UTF-8', async () => {
    const [before, after] = [
      'mutation { createBooking(input: { serviceId: "svc_x", startTime: "2030-01-01T19:00:00Z", customer: { name: "Zo',
      '", email: "a@example.com" } }) { booking { id } } }',
    ];
    const cases = [
      { contentType: 'application/graphql', body: Buffer.concat([Buffer.from(before!), Buffer.from([0xeb]), Buffer.from(after!)]) },
      { contentType: 'application/x-www-form-urlencoded', body: `query=${encodeURIComponent(before!)}%EB${encodeURIComponent(after!)}` },
    ];
    for (const { contentType, body } of cases) {
      const response = await post('/graphql', body, { 'content-type': contentType });
      expect({ contentType, status: response.status, code: (await response.json()).errors?.[0]?.extensions?.code }).toEqual({ contentType, status: 400, code: 'invalid_request' });
    }
    // The same, well-formed (Zoë in UTF-8), is read: refused for what it says, svc_x being no service id.
    const wellFormed = await post('/graphql', `query=${encodeURIComponent(`${before}ë${after}`)}`, { 'content-type': 'application/x-www-form-urlencoded' });
    expect((await wellFormed.json()).errors?.[0]?.extensions?.code).toBe('validation_failed');
  });

  it('a charset other than UTF-8, or a Content-Encoding, is 415 and nothing is done', async () => {
    const text = JSON.stringify(booking('Plain'));
    for (const headers of [
      { 'content-type': 'application/json; charset=iso-8859-1' },
      { 'content-type': 'application/json; charset="utf-16"' },
      { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      { 'content-type': 'application/json', 'content-encoding': 'zstd' },
      { 'content-type': 'application/json; charset=utf-8; charset=latin1' },
    ] as Record<string, string>[]) {
      const rest = await post('/v1/bookings', text, headers);
      expect({ headers, status: rest.status, code: (await rest.json()).code }).toEqual({ headers, status: 415, code: 'unsupported_media_type' });
      const graphQL = await post('/graphql', '{"query":"{ __typename }"}', headers);
      expect({ headers, status: graphQL.status, code: (await graphQL.json()).errors?.[0]?.extensions?.code }).toEqual({ headers, status: 415, code: 'unsupported_media_type' });
    }
    const utf8 = await post('/v1/bookings', text, { 'content-type': 'application/json; charset=UTF-8', 'content-encoding': 'identity' });
    // Read: refused for what it says (svc_x is no service id), not for how it was sent.
    expect({ status: utf8.status, code: (await utf8.json()).code }).toEqual({ status: 422, code: 'validation_failed' });
  });

  it('a GraphQL request of a media type it does not read is 415 saying what it takes', async () => {
    for (const contentType of ['text/plain', 'application/xml']) {
      const response = await post('/graphql', '{"query":"{ __typename }"}', { 'content-type': contentType });
      const body = await response.json();
      expect({ contentType, status: response.status, code: body.errors?.[0]?.extensions?.code }).toEqual({ contentType, status: 415, code: 'unsupported_media_type' });
      expect(body.errors[0].message).toContain('application/json');
    }
    // An Accept that takes no result type: a query is told what a query is answered in, not what a subscription is sent in.
    const xml = await post('/graphql', '{"query":"{ __typename }"}', { 'content-type': 'application/json', accept: 'application/xml' });
    expect(xml.status).toBe(406);
    expect(JSON.stringify(await xml.json())).toContain('A query or mutation is answered as application/graphql-response+json or application/json');
    // Media types are case-insensitive: these are JSON.
    for (const contentType of ['application/JSON', 'Application/Json; charset=UTF-8', 'application/json ; charset=utf-8']) {
      const response = await post('/graphql', '{"query":"{ __typename }"}', { 'content-type': contentType });
      expect([contentType, response.status, await response.json()]).toEqual([contentType, 200, { data: { __typename: 'Query' } }]);
    }
  });
});

describe('dates outside what PostgreSQL and Date hold', () => {
  it('are 400 on REST lists and in GraphQL arguments', async () => {
    for (const path of [
      '/v1/bookings?start_date=0000-01-01',
      '/v1/bookings?end_date=0000-12-31',
      '/v1/bookings?start_date=275760-09-14',
      '/v1/bookings?start_date=-000001-01-01',
      '/v1/bookings?start_date=2027-02-30',
      '/api/v1/events?starts_after=0000-01-01T00:00:00Z',
      '/api/v1/events?starts_before=2027-02-30T25:61:00Z',
    ]) {
      const { status, body } = await call('GET', path);
      expect({ path, status, code: body.code }).toEqual({ path, status: 400, code: 'invalid_parameter' });
    }
    for (const startDate of ['0000-01-01', '275760-09-14']) {
      const { body } = await graphql('query ($startDate: Date) { bookings(startDate: $startDate) { edges { node { id } } } }', { startDate });
      expect(body.errors?.[0]?.extensions?.code).toBe('invalid_parameter');
    }
  });

  it('up to the last day of 9999 are answered', async () => {
    const { status } = await call('GET', '/v1/bookings?start_date=9999-12-31&end_date=9999-12-31');
    expect(status).toBe(200);
  });
});

describe('every field error of a request in one answer', () => {
  // A malformed start time (a type error) beside three broken rules: all four come back together.
  const brokenBooking = (serviceId: string) => ({ service_id: serviceId, start_time: 'tomorrow', party_size: 0, customer: { name: '', email: 'nope' } });
  const expectedErrors = (startTime: string, partySize: string) => [
    { field: startTime, code: 'invalid', message: expect.stringMatching(new RegExp(`^${startTime}: DateTime must be an ISO 8601 UTC timestamp ending in Z`)) },
    { field: partySize, code: 'out_of_range', message: expect.stringContaining(partySize) },
    { field: 'customer.name', code: 'too_short', message: 'customer.name must not be empty.' },
    { field: 'customer.email', code: 'invalid', message: 'customer.email must be an email address.' },
  ];
  let serviceId: string;
  beforeAll(async () => {
    serviceId = (await server.prisma.service.findFirstOrThrow({ select: { id: true } })).id;
  });

  it('over REST, in snake_case', async () => {
    const { status, body } = await call('POST', '/v1/bookings', brokenBooking(serviceId));
    expect(status).toBe(422);
    expect(body.code).toBe('validation_failed');
    expect(body.errors).toEqual(expectedErrors('start_time', 'party_size'));
    expect(JSON.stringify(body)).not.toMatch(/startTime|partySize/);
  });

  const mutation = 'mutation ($input: CreateBookingInput!) { createBooking(input: $input) { booking { id } } }';

  it('in GraphQL variables, in camelCase', async () => {
    const input = { serviceId, startTime: 'tomorrow', partySize: 0, customer: { name: '', email: 'nope' } };
    const { status, body } = await graphql(mutation, { input });
    expect(status).toBe(422);
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0].extensions).toEqual({ code: 'validation_failed', errors: expectedErrors('startTime', 'partySize') });
  });

  it('in GraphQL inline literals, with their paths', async () => {
    const literal = `mutation { createBooking(input: { serviceId: "${serviceId}", startTime: "tomorrow", partySize: 0, customer: { name: "", email: "nope" } }) { booking { id } } }`;
    const { status, body } = await graphql(literal);
    expect(status).toBe(422);
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0].extensions).toEqual({ code: 'validation_failed', errors: expectedErrors('startTime', 'partySize') });
  });

  it('in literals mixed with variables, structural problems included', async () => {
    const literal = 'mutation ($name: String!) { createBooking(input: { startTime: 5, colour: "red", customer: { name: $name, email: "nope" } }) { booking { id } } }';
    const { status, body } = await graphql(literal, { name: '' });
    expect(status).toBe(422);
    expect(body.errors[0].extensions.errors).toEqual([
      { field: 'startTime', code: 'invalid', message: expect.stringContaining('startTime: DateTime') },
      { field: 'colour', code: 'unknown_field', message: 'colour is not a field of this input.' },
      { field: 'customer.name', code: 'too_short', message: 'customer.name must not be empty.' },
      { field: 'customer.email', code: 'invalid', message: 'customer.email must be an email address.' },
      // Required unless holdId is given, so named by the rule over the whole input, after the fields' own errors.
      { field: 'serviceId', code: 'required', message: "serviceId is required (or holdId, for a hold's places)." },
    ]);
  });

  it('of a new webhook endpoint and a new service: type and rule errors together', async () => {
    const endpoint = await call('POST', '/v1/webhook_endpoints', { url: 'ftp://example.com/hooks', description: 5 });
    expect(endpoint.status).toBe(422);
    expect(endpoint.body.errors.map((error: { field: string }) => error.field).sort()).toEqual(['description', 'url']);

    const { key: operatorKey } = await server.createKey({ scopes: ['admin'] });
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${operatorKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `mutation { createService(input: { attractionId: "at_nowhere", name: "", durationMinutes: 30, capacity: "many", timezone: "Mars/Olympus",
                  slotMinutes: 30, seasonStart: "2027-09-01", seasonEnd: "2027-11-01", openingHours: [] }) { id } }`,
      }),
    });
    expect(response.status).toBe(422);
    const { errors } = (await response.json()).errors[0].extensions;
    expect(errors.map((error: { field: string; code: string }) => [error.field, error.code])).toEqual(
      expect.arrayContaining([
        ['capacity', 'invalid'],
        ['name', 'too_short'],
        ['timezone', 'unknown_time_zone'],
      ]),
    );
  });

  it('in a literal argument that is not an input object, named by the argument', async () => {
    const { status, body } = await graphql('{ bookings(startDate: "soon", endDate: "2027-02-30") { edges { node { id } } } }');
    expect(status).toBe(400);
    expect(body.errors[0].extensions).toMatchObject({
      code: 'invalid_parameter',
      errors: [
        { field: 'startDate', code: 'invalid' },
        { field: 'endDate', code: 'invalid' },
      ],
    });
  });
});

describe('deep JSON bodies', () => {
  it('are refused with 422 before anything walks them', async () => {
    const depth = 100_000;
    for (const body of ['['.repeat(depth) + ']'.repeat(depth), '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)]) {
      const response = await call('POST', '/v1/bookings', body);
      expect({ status: response.status, code: response.body.code }).toEqual({ status: 422, code: 'validation_failed' });
    }
  });
});

describe('GraphQL params', () => {
  it('that are not JSON in a query string are 400 invalid_request', async () => {
    for (const params of ['variables=%7B', 'extensions=%7B', 'variables=%5B1%2C']) {
      const response = await fetch(`${server.url}/graphql?query=%7B__typename%7D&${params}`, { headers: { authorization: `Bearer ${key}` } });
      expect(response.status, params).toBe(400);
      expect((await response.json()).errors[0].extensions.code).toBe('invalid_request');
    }
  });

  it('in a multipart request (the GraphQL multipart request spec, for file uploads, which no field takes) are 415, well-formed or not', async () => {
    const cases: Record<string, string>[] = [
      { operations: '{"query":"{ __typename }"}', map: '{}' },
      { operations: '{"query":"{ __typename }"}', map: '{"0":5}' },
      { operations: '{bad', map: '{}' },
      { map: '{}' },
      { operations: 'null', map: '{"0":["a"]}' },
    ];
    for (const fields of cases) {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) form.append(name, value);
      form.append('0', new Blob(['file']), 'file.txt');
      const response = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, accept: 'application/graphql-response+json' },
        body: form,
      });
      const body = await response.json();
      expect({ fields, status: response.status, code: body.errors?.[0]?.extensions?.code }).toEqual({ fields, status: 415, code: 'unsupported_media_type' });
    }
  });

  it('with variables nested past 32 levels are 400 invalid_request before anything walks them', async () => {
    // Written out, since JSON.stringify itself overflows the stack on such a value.
    const body = `{"query":"query { categories(first: 1) { edges { cursor } } }","variables":{"deep":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`;
    const response = await fetch(`${server.url}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });
    expect(response.status).toBe(400);
    expect((await response.json()).errors[0].extensions.code).toBe('invalid_request');
    expect((await graphql('query($v: [[String]]) { __typename }', { v: [['ok']] })).status).toBe(200);
  });
});

describe('a request body the client breaks off', () => {
  it("is the client's mistake (400), not a database outage", async () => {
    const aborted = Object.assign(
      new Readable({
        read() {
          this.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
        },
      }),
      { headers: {} },
    );
    const refusal = await readBody(aborted as unknown as IncomingMessage, {} as ServerResponse, 1000).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(AppError);
    expect((refusal as AppError).status).toBe(400);
  });
});

describe('what an error repeats of a request', () => {
  const long = 'a'.repeat(100_000);
  /** The answer's size, and that it holds at most 64 characters of the long input in one piece. */
  const expectCut = (answer: unknown) => {
    const text = JSON.stringify(answer);
    expect(text.length).toBeLessThan(2_000);
    expect(text).not.toContain('a'.repeat(65));
  };

  it('is at most 64 characters of it: a JSON body that never ends, a field name, a variable value', async () => {
    const unparsable = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: `{"query":"${long}`,
    });
    const unparsableAnswer = await unparsable.json();
    expect(unparsableAnswer.errors[0].extensions.code).toBe('invalid_request');
    expectCut(unparsableAnswer);
    const unknownField = await call('POST', '/graphql', { query: `{ ${long} }` });
    expect(unknownField.body.errors[0].extensions.code).toBe('invalid_request');
    expectCut(unknownField.body);
    const badVariable = await call('POST', '/graphql', { query: 'query ($first: Int) { events(first: $first) { edges { node { id } } } }', variables: { first: long } });
    expect(badVariable.body.errors[0].extensions.code).toBe('invalid_parameter');
    expectCut(badVariable.body);
  });

  it('is the refused value whole when it is shorter, however long the message around it', async () => {
    const offset = '2027-10-30T22:00:00-04:00';
    const rest = await call('GET', `/api/v1/attractions?available_for=6&available_from=${encodeURIComponent(offset)}`);
    expect([rest.status, rest.body.errors[0].field]).toEqual([400, 'available_from']);
    expect(rest.body.errors[0].message).toContain(`"${offset}"`);
    const graphql = await call('POST', '/graphql', {
      query: 'query ($from: DateTime) { attractions(availableFor: 6, availableFrom: $from) { edges { node { id } } } }',
      variables: { from: offset },
    });
    expect(graphql.body.errors[0].message).toContain(`"${offset}"`);
  });

  it('is at most 64 characters of an id that names nothing, on every surface', async () => {
    const id = 'a'.repeat(3_000);
    for (const path of [`/v1/services/${id}`, `/api/v1/events/${id}`, `/api/v1/attractions/${id}`, `/api/v1/categories/${id}`, `/v1/bookings/${id}`]) {
      const answer = await call('GET', path);
      expect(answer.status, path).toBe(404);
      expectCut(answer.body);
    }
    const ids = { id: long };
    for (const query of [
      'query ($id: ID!) { service(id: $id) { id } }',
      'query ($id: ID!) { event(id: $id) { id } }',
      'query ($id: ID!) { attraction(id: $id) { id } }',
      'query ($id: String!) { category(idOrSlug: $id) { id } }',
    ]) {
      const answer = await call('POST', '/graphql', { query, variables: ids });
      expect(answer.body.errors[0].extensions.code, query).toBe('not_found');
      expectCut(answer.body);
    }
  });

  it('holds no more than 64 characters of a body that is not JSON, in one piece or in several', async () => {
    const query = 'query ($lat: Float, $radius: Float) { events(lat: $lat, lng: -74, radius: $radius, first: 1) { edges { node { id distanceKm } } } }';
    const body = `{"query":${JSON.stringify(query)},"variables":{"lat":40.7,"radius":Infinity}}`;
    const refused = await fetch(`${server.url}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });
    expect(refused.status).toBe(400);
    const answer = JSON.stringify(await refused.json());
    const echoedInAll = [...body.matchAll(/[^"]{8,}/g)].filter(([piece]) => answer.includes(piece)).reduce((sum, [piece]) => sum + piece.length, 0);
    expect(echoedInAll).toBeLessThanOrEqual(64);
    // A body the parser quotes before any word of its own still gets words.
    const bare = await fetch(`${server.url}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: 'undefined' });
    expect((await bare.json()).errors[0].extensions.originalError.message).toBe('The body is not valid JSON');
  });

  it('is cut in one pass, however the quotes in it fall', async () => {
    // A key Yoga refuses by name: escaped quotes that never close (a regular expression took
    // minutes over them), and raw quotes around short pieces of one long run.
    for (const name of [`${'\\"'.repeat(100_000)}\\`, 'a"'.repeat(50_000)]) {
      const refused = await call('POST', '/graphql', `{"query":"{ __typename }",${JSON.stringify(name)}:1}`);
      expect(refused.body.errors[0].extensions.code).toBe('invalid_request');
      expectCut(refused.body);
    }
  });

  it('over REST, in sort, fields and include too', async () => {
    for (const parameter of ['sort', 'fields', 'include']) {
      const refused = await call('GET', `/api/v1/events?${parameter}=${long.slice(0, 3_000)}`);
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe('invalid_parameter');
      expectCut(refused.body);
    }
  });
});

describe('node ids', () => {
  it('node(id:) answers null without an error for any id naming nothing', async () => {
    const ids = [
      'ev_missing',
      'svc_missing',
      'at_missing',
      'cat_missing',
      'img_missing',
      'key_missing',
      'bk_missing',
      'zz_missing',
      'garbage',
      '',
      'ev_\u0000',
      `ev_${'x'.repeat(500)}`,
    ];
    for (const id of ids) {
      const { body } = await graphql('query ($id: ID!) { node(id: $id) { id } }', { id });
      expect({ id, body }).toEqual({ id, body: { data: { node: null } } });
    }
  });

  it('nodes(ids:) answers null in the place of each bad id only', async () => {
    const { body } = await graphql('query ($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids: [eventId, 'garbage', 'ev_missing', 'key_missing'] });
    expect(body).toEqual({ data: { nodes: [{ id: eventId }, null, null, null] } });
  });

  it('nodes(ids:) refuses more than 100 ids before any database work', async () => {
    const ids = Array.from({ length: 20_000 }, (_, index) => `ev_missing${index}`);
    const before = queries.length;
    const { body } = await graphql('query ($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids });
    expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_parameter', errors: [{ field: 'ids' }] });
    expect(queries.slice(before).filter((sql) => /"events"/.test(sql))).toEqual([]);
  });
});

describe('logging', () => {
  interface LogLine {
    level: number;
    request_id?: string;
    msg: string;
  }
  const lines: LogLine[] = [];
  let logged: TestServer;

  beforeAll(async () => {
    const stream = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    logged = await startTestServer({ seed: true, config: { LOG_LEVEL: 'debug' }, logStream: stream });
  });
  afterAll(() => logged?.close());

  it('logs every 5xx at error with its request id, and no 4xx at error', async () => {
    const { key: readerKey } = await logged.createKey({ scopes: ['bookings:read'] });
    const { key: directoryKey } = await logged.createKey({ scopes: ['directory:read'] });
    const send = (authorization: string, requestId: string, path: string, init: RequestInit = {}) =>
      fetch(`${logged.url}${path}`, { ...init, headers: { authorization: `Bearer ${authorization}`, 'x-request-id': requestId, 'content-type': 'application/json' } });
    const graphqlBody = (query: string) => ({ method: 'POST', body: JSON.stringify({ query }) });

    const clientMistakes = {
      'rest-403': await send(readerKey, 'rest-403', '/api/v1/events'),
      'rest-404': await send(readerKey, 'rest-404', '/v1/bookings/bk_missing'),
      'rest-400': await send(directoryKey, 'rest-400', '/api/v1/events?limit=0'),
      'graphql-403': await send(readerKey, 'graphql-403', '/graphql', graphqlBody('{ events { edges { node { id } } } }')),
      'graphql-404': await send(directoryKey, 'graphql-404', '/graphql', graphqlBody('{ event(id: "ev_missing") { id } }')),
      'graphql-400': await send(directoryKey, 'graphql-400', '/graphql', graphqlBody('{ events(first: -1) { edges { node { id } } } }')),
    };
    expect(Object.values(clientMistakes).map((response) => response.status < 500)).not.toContain(false);

    // An unexpected database failure: the table the categories live in is gone.
    await logged.prisma.$executeRawUnsafe('ALTER TABLE categories RENAME TO categories_gone');
    try {
      const rest = await send(directoryKey, 'rest-500', '/api/v1/categories');
      expect(rest.status).toBe(500);
      const viaGraphQL = await (await send(directoryKey, 'graphql-500', '/graphql', graphqlBody('{ categories { edges { node { id } } } }'))).json();
      expect(viaGraphQL.errors[0].extensions.code).toBe('internal_error');
    } finally {
      await logged.prisma.$executeRawUnsafe('ALTER TABLE categories_gone RENAME TO categories');
    }

    const errorLines = () => lines.filter((line) => line.level >= 50);
    await expect
      .poll(
        () =>
          errorLines()
            .map((line) => line.request_id)
            .sort(),
        { timeout: 5_000 },
      )
      .toEqual(['graphql-500', 'rest-500']);
    expect(lines.filter((line) => line.request_id && Object.hasOwn(clientMistakes, line.request_id) && line.level >= 40)).toEqual([]);
  });

  it('logs a graphql-ws connection that fails on our side and closes it with 1011, not with the error text', async () => {
    const { key: unseenKey } = await logged.createKey({ scopes: ['bookings:read'] });
    await logged.prisma.$executeRawUnsafe('ALTER TABLE api_keys RENAME TO api_keys_gone');
    try {
      const socket = new WebSocket(`${logged.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
      await once(socket, 'open');
      socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${unseenKey}` } }));
      const [code, reason] = (await once(socket, 'close')) as [number, Buffer];
      expect({ code, reason: String(reason) }).toEqual({ code: 1011, reason: 'Internal server error' });
    } finally {
      await logged.prisma.$executeRawUnsafe('ALTER TABLE api_keys_gone RENAME TO api_keys');
    }
    await expect.poll(() => lines.some((line) => line.level >= 50 && line.msg === 'graphql-ws connection failed' && line.request_id?.startsWith('req_'))).toBe(true);
  });
});
