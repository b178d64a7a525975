import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema.js';
import { documentNames, documentOf, openApiDocuments } from '../../src/rest/openapi/generate.js';
import { restRoutes } from '../../src/rest/table.js';
import { apiClient, futureSlot, type ApiCall } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { openService } from '../support/bookable.js';

/**
 * The served OpenAPI documents and the REST table agree both ways: every route is documented with
 * its method, and every documented operation is a route. The documents are the generator's output
 * for the table as it is now, and they refuse what the server refuses.
 */

type Document = { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, unknown> } };

const servedAt = { v1: '/v1/openapi.json', 'api-v1': '/api/v1/openapi.json' } as const;
const methods = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options', 'trace'];

let server: TestServer;
let call: ApiCall;
const served = {} as Record<(typeof documentNames)[number], Document>;

beforeAll(async () => {
  server = await startTestServer({ seed: true });
  call = apiClient(server.url, (await server.createKey()).key);
  for (const name of documentNames) {
    const response = await fetch(`${server.url}${servedAt[name]}`);
    expect(response.status).toBe(200);
    served[name] = (await response.json()) as Document;
  }
});
afterAll(() => server?.close());

const documented = (document: Document) =>
  Object.entries(document.paths)
    .flatMap(([path, item]) => methods.filter((method) => method in item).map((method) => `${method.toUpperCase()} ${path}`))
    .sort();

describe.each(documentNames)('the %s document', (name) => {
  const routes = () =>
    restRoutes
      .filter((route) => documentOf(route.path) === name)
      .map((route) => `${route.method} ${route.path.replace(/:([a-z_]+)/g, '{$1}')}`)
      .sort();

  it('documents every route of the table with its method, and nothing else', () => {
    expect(documented(served[name])).toEqual(routes());
  });

  it('is what the generator makes of the table now (run npm run generate:openapi)', () => {
    // Only servers differ: each document names the server that served it.
    expect(served[name]).toEqual({ ...JSON.parse(JSON.stringify(openApiDocuments(schema, restRoutes)[name])), servers: [{ url: server.url, description: 'This server' }] });
  });
});

it('generates the same bytes every time', () => {
  expect(JSON.stringify(openApiDocuments(schema, restRoutes))).toBe(JSON.stringify(openApiDocuments(schema, restRoutes)));
});

describe('timestamps without seconds', () => {
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  const validator = (pointer: string) => {
    if (!ajv.getSchema('v1')) ajv.addSchema(served.v1, 'v1');
    return ajv.compile({ $ref: `v1#${pointer}` });
  };
  const usageQuery = (from: string) => `/v1/usage?from=${encodeURIComponent(from)}&to=${encodeURIComponent(futureSlot(1))}`;

  it('are refused by the server and by the documented DateTime, which takes them with seconds', async () => {
    const dateTime = validator('/components/schemas/DateTime');
    expect(dateTime('2027-10-31T19:00Z')).toBe(false);
    expect(dateTime('2027-10-31T19:00:00Z')).toBe(true);
    expect(dateTime('2027-10-31T19:00:00.250Z')).toBe(true);

    const usage = served.v1.paths['/v1/usage']!['get'] as { parameters: { name: string; schema: unknown }[] };
    expect(usage.parameters.find((parameter) => parameter.name === 'from')?.schema).toEqual({ $ref: '#/components/schemas/DateTime' });
    const admin = apiClient(server.url, (await server.createKey({ scopes: ['analytics:read'] })).key);
    expect((await admin('GET', usageQuery('2027-10-31T19:00Z'))).status).toBe(400);
    expect((await admin('GET', usageQuery(futureSlot(0)))).status).toBe(200);
  });

  it('are refused in a booking by the server and by the documented body', async () => {
    const body = validator('/components/schemas/CreateBookingInput');
    const serviceId = await openService(server.prisma);
    const booking = (startTime: string) => ({ service_id: serviceId, start_time: startTime, customer: { name: 'Ada', email: 'ada@example.com' } });
    const minutes = futureSlot(40).replace(':00Z', 'Z');
    expect(minutes).toMatch(/T\d{2}:\d{2}Z$/);
    expect(body(booking(minutes))).toBe(false);
    expect(body(booking(futureSlot(40)))).toBe(true);
    expect(body({ ...booking(futureSlot(40)), note: 'unknown' })).toBe(false);

    const refused = await call('POST', '/v1/bookings', booking(minutes));
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toContainEqual(expect.objectContaining({ field: 'start_time' }));
    expect((await call('POST', '/v1/bookings', { ...booking(futureSlot(40)), note: 'unknown' })).status).toBe(422);
    expect((await call('POST', '/v1/bookings', booking(futureSlot(40)))).status).toBe(201);
  });
});
