import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, futureSlot, type ApiCall } from '../support/http.js';
import { startReceiver } from '../support/receiver.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { openService } from '../support/bookable.js';

/**
 * Walks both served OpenAPI documents: every documented operation is called as a client would call
 * it, and its answer must carry a documented status, the documented headers, and a body that
 * validates against the documented schema. An operation without a scenario here fails the walk, so
 * a route added to a document is walked from the day it is documented.
 */

interface OpenApiResponse {
  $ref?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, unknown>;
}
interface OpenApiOperation {
  operationId: string;
  security?: unknown[];
  responses: Record<string, OpenApiResponse>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
}
interface Request {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
}

const documents = ['/v1/openapi.json', '/api/v1/openapi.json'];
/** Documented headers sent only in some answers: Link with a next page, Idempotent-Replayed on a replay. */
const conditionalHeaders = new Set(['Link', 'Idempotent-Replayed', 'Last-Modified', 'Retry-After']);
const methods = ['get', 'post', 'patch', 'put', 'delete'];

let server: TestServer;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let call: ApiCall;
let admin: ApiCall;
let accountId: string;
let keyId: string;
let serviceId: string;
// strict: false lets the whole OpenAPI document be added as one schema (its openapi, info and paths
// are no JSON Schema keywords); it changes no validation. additionalProperties is enforced as
// written, and the closure check below proves every answer's schema refuses an unknown key.
// Formats are not checked; DateTime and Date carry the server's own patterns.
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });

beforeAll(async () => {
  [server, receiver] = await Promise.all([startTestServer({ seed: true }), startReceiver()]);
  const caller = await server.createKey();
  ({ accountId, keyId } = caller);
  call = apiClient(server.url, caller.key);
  admin = apiClient(server.url, (await server.createKey({ scopes: ['admin'] })).key);
  serviceId = await openService(server.prisma);
});
afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

const newBooking = async (days: number) =>
  (await call('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(days), customer: { name: 'Walker', email: 'walk@example.com' } })).body.id as string;
const walker = { name: 'Walker', email: 'walk@example.com' };
const newHold = async (days: number) => (await call('POST', '/v1/holds', { service_id: serviceId, start_time: futureSlot(days) })).body.id as string;
/** An entry offered at once: the slot has places free. */
const newEntry = async (days: number) => (await call('POST', '/v1/waitlist_entries', { service_id: serviceId, start_time: futureSlot(days), customer: walker })).body.id as string;
const newEndpoint = async () => (await call('POST', '/v1/webhook_endpoints', { url: receiver.url })).body.id as string;
const newWidgetToken = async () => (await admin('POST', '/v1/admin/widget_tokens', { account_id: accountId, allowed_origins: ['https://example.com'] })).body.id as string;
const newKey = async () => (await server.createKey({ accountId })).keyId;
const newServiceInput = async () => ({
  attraction_id: (await server.prisma.attraction.findFirstOrThrow()).id,
  name: 'Walked tour',
  duration_minutes: 45,
  capacity: 8,
  timezone: 'Europe/Dublin',
  slot_minutes: 30,
  season_start: '2027-09-01',
  season_end: '2027-11-02',
  opening_hours: [{ weekday: 5, opens: '18:00', closes: '23:00' }],
});
const usageRange = { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString() };

/** A request sent once `setup` has made what it lists, so the list's items are validated too. */
function after(setup: () => Promise<unknown>, request: () => Request): () => Promise<Request> {
  return async () => {
    await setup();
    return request();
  };
}

/** A delivery the worker has finished with (redelivery of a pending one is 409 by design). */
async function finishedDelivery(): Promise<Request> {
  const endpoint = await newEndpoint();
  await newBooking(90);
  for (let tries = 0; tries < 100; tries++) {
    const [delivery] = (await call('GET', `/v1/webhook_endpoints/${endpoint}/deliveries`)).body.data;
    if (delivery && delivery.status !== 'pending') return { params: { id: endpoint, delivery_id: delivery.id } };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the delivery never finished');
}

/** How a client calls each documented operation, and with which key. */
const scenarios: Record<string, { admin?: boolean; request: () => Promise<Request> }> = {
  getBookingServiceOpenApi: { request: async () => ({}) },
  getDirectoryOpenApi: { request: async () => ({}) },
  createBooking: { request: async () => ({ body: { service_id: serviceId, start_time: futureSlot(80), customer: { name: 'Ada', email: 'ada@example.com' } } }) },
  listBookings: {
    request: after(
      () => newBooking(84),
      () => ({ query: { start_date: futureSlot(0).slice(0, 10), end_date: futureSlot(120).slice(0, 10), limit: '5' } }),
    ),
  },
  getBooking: { request: async () => ({ params: { id: await newBooking(81) } }) },
  updateBooking: { request: async () => ({ params: { id: await newBooking(82) }, body: { customer: { name: 'Ada L.', email: 'ada@example.com' } } }) },
  cancelBooking: { request: async () => ({ params: { id: await newBooking(83) } }) },
  listServices: { request: async () => ({ query: { limit: '3' } }) },
  getService: { request: async () => ({ params: { id: serviceId } }) },
  getServiceAvailability: {
    request: after(
      () => newBooking(1),
      () => ({ params: { id: serviceId }, query: { start_date: futureSlot(1).slice(0, 10), end_date: futureSlot(2).slice(0, 10) } }),
    ),
  },
  listBookingEvents: {
    request: after(
      () => newEntry(70),
      () => ({ query: { limit: '100' } }),
    ),
  },
  createHold: { request: async () => ({ body: { service_id: serviceId, start_time: futureSlot(71), party_size: 2, expires_in_seconds: 120 } }) },
  getHold: { request: async () => ({ params: { id: await newHold(72) } }) },
  releaseHold: { request: async () => ({ params: { id: await newHold(73) } }) },
  createWaitlistEntry: { request: async () => ({ body: { service_id: serviceId, start_time: futureSlot(74), customer: walker } }) },
  listWaitlistEntries: {
    request: after(
      () => newEntry(75),
      () => ({ query: { service_id: serviceId, status: 'offered' } }),
    ),
  },
  getWaitlistEntry: { request: async () => ({ params: { id: await newEntry(76) } }) },
  withdrawWaitlistEntry: { request: async () => ({ params: { id: await newEntry(77) } }) },
  createWebhookEndpoint: { request: async () => ({ body: { url: receiver.url, events: ['booking.created'], description: 'walk' } }) },
  listWebhookEndpoints: { request: after(newEndpoint, () => ({})) },
  getWebhookEndpoint: { request: async () => ({ params: { id: await newEndpoint() } }) },
  updateWebhookEndpoint: { request: async () => ({ params: { id: await newEndpoint() }, body: { enabled: false } }) },
  deleteWebhookEndpoint: { request: async () => ({ params: { id: await newEndpoint() } }) },
  rotateWebhookEndpointSecret: { request: async () => ({ params: { id: await newEndpoint() } }) },
  listWebhookDeliveries: { request: finishedDelivery },
  redeliverWebhookDelivery: { request: finishedDelivery },
  sendTestWebhook: { request: async () => ({ params: { id: await newEndpoint() }, body: { event: 'booking.created' } }) },
  createAccount: { admin: true, request: async () => ({ body: { name: 'Walked Haunts' } }) },
  listAccounts: { admin: true, request: async () => ({ query: { limit: '2' } }) },
  createApiKey: { admin: true, request: async () => ({ body: { account_id: accountId, plan: 'pro', scopes: ['directory:read'] } }) },
  listApiKeys: { admin: true, request: async () => ({ query: { account_id: accountId } }) },
  revokeApiKey: { admin: true, request: async () => ({ params: { id: await newKey() } }) },
  rotateApiKey: { admin: true, request: async () => ({ params: { id: await newKey() } }) },
  createWidgetToken: { admin: true, request: async () => ({ body: { account_id: accountId, allowed_origins: ['https://example.com'] } }) },
  createService: { admin: true, request: async () => ({ body: await newServiceInput() }) },
  updateService: {
    admin: true,
    request: async () => ({ params: { id: (await admin('POST', '/v1/admin/services', await newServiceInput())).body.id }, body: { capacity: 12, slot_minutes: 15 } }),
  },
  placeAttraction: {
    admin: true,
    request: async () => ({ params: { id: (await server.prisma.attraction.findFirstOrThrow({ orderBy: { id: 'desc' } })).id }, body: { latitude: 42.5195, longitude: -70.8967 } }),
  },
  listWidgetTokens: { admin: true, request: after(newWidgetToken, () => ({ query: { account_id: accountId } })) },
  revokeWidgetToken: { admin: true, request: async () => ({ params: { id: await newWidgetToken() } }) },
  getUsage: { request: async () => ({ query: usageRange }) },
  getApiKeyUsage: { admin: true, request: async () => ({ params: { id: keyId }, query: usageRange }) },
  listEvents: { request: async () => ({ query: { city: 'Salem', include: 'categories,images', sort: 'starts_at', limit: '5' } }) },
  getEvent: { request: async () => ({ params: { id: (await server.prisma.event.findFirstOrThrow()).id }, query: { include: 'categories,images' } }) },
  listAttractions: { request: async () => ({ query: { include: 'events,categories', limit: '3' } }) },
  getAttraction: { request: async () => ({ params: { id: (await server.prisma.attraction.findFirstOrThrow()).id } }) },
  listCategories: { request: async () => ({}) },
  getCategory: { request: async () => ({ params: { id_or_slug: 'haunted-house' } }) },
};

function operationsOf(document: OpenApiDocument) {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    methods.filter((method) => item[method]).map((method) => ({ path, method: method.toUpperCase(), operation: item[method]! })),
  );
}

function pathWith(template: string, params: Record<string, string> = {}): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (!(name in params)) throw new Error(`no value for {${name}} in ${template}`);
    return encodeURIComponent(params[name]!);
  });
}

const pointerOf = (...segments: string[]) => ['', ...segments].map((segment) => segment.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** The response object documented for `status` and its JSON pointer, through a components $ref. */
function documentedResponse(document: OpenApiDocument, path: string, method: string, status: number) {
  const given = document.paths[path]![method.toLowerCase()]!.responses[String(status)];
  if (!given?.$ref) return given && { response: given, pointer: pointerOf('paths', path, method.toLowerCase(), 'responses', String(status)) };
  const pointer = given.$ref.slice(1);
  const response = pointer
    .split('/')
    .slice(1)
    .reduce<unknown>((node, segment) => (node as Record<string, unknown> | undefined)?.[segment.replace(/~1/g, '/').replace(/~0/g, '~')], document);
  return { response: response as OpenApiResponse, pointer };
}

/** Copies of an answer with a key no document names: at the top, and in the first listed record. */
function withUnknownKeys(body: unknown): unknown[] {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return [];
  const variants: unknown[] = [{ ...body, unexpected_key: true }];
  const [first, ...rest] = Array.isArray((body as { data?: unknown }).data) ? ((body as { data: unknown[] }).data as unknown[]) : [];
  if (first && typeof first === 'object') variants.push({ ...body, data: [{ ...first, unexpected_key: true }, ...rest] });
  return variants;
}

/** Validates `body` against the schema documented for one answer, compiled once per (document, pointer). */
function matchesSchema(documentId: string, responsePointer: string, mediaType: string, body: unknown): string | null {
  const reference = `${documentId}#${responsePointer}${pointerOf('content', mediaType, 'schema')}`;
  const validate: ValidateFunction = ajv.getSchema(reference) ?? ajv.compile({ $ref: reference });
  return validate(body) ? null : ajv.errorsText(validate.errors);
}

describe.each(documents)('the operations documented in %s', (documentPath) => {
  let document: OpenApiDocument;

  beforeAll(async () => {
    const response = await fetch(`${server.url}${documentPath}`);
    expect(response.status).toBe(200);
    document = (await response.json()) as OpenApiDocument;
    if (!ajv.getSchema(documentPath)) ajv.addSchema(document, documentPath);
  });

  it('has a scenario for every operation', () => {
    const missing = operationsOf(document).filter(({ operation }) => !scenarios[operation.operationId]);
    expect(missing.map(({ method, path }) => `${method} ${path}`)).toEqual([]);
  });

  it('answers every operation with a documented status, headers and body', async () => {
    const failures: string[] = [];
    for (const { path, method, operation } of operationsOf(document)) {
      const scenario = scenarios[operation.operationId]!;
      const request = await scenario.request();
      const query = request.query ? `?${new URLSearchParams(request.query)}` : '';
      const response = await (scenario.admin ? admin : call)(method, pathWith(path, request.params) + query, request.body);
      const label = `${method} ${path} (${operation.operationId}) → ${response.status}`;
      const documented = documentedResponse(document, path, method, response.status);
      if (!documented || response.status >= 300) {
        failures.push(`${label}: expected a documented 2xx, got ${JSON.stringify(response.body)}`);
        continue;
      }
      for (const header of Object.keys(documented.response.headers ?? {})) {
        if (!conditionalHeaders.has(header) && !response.headers.has(header)) failures.push(`${label}: no ${header} header`);
      }
      const mediaType = Object.keys(documented.response.content ?? {})[0];
      if (!mediaType) continue;
      if (!response.headers.get('content-type')?.startsWith(mediaType)) failures.push(`${label}: content-type ${response.headers.get('content-type')}, documented ${mediaType}`);
      const mismatch = matchesSchema(documentPath, documented.pointer, mediaType, response.body);
      if (mismatch) failures.push(`${label}: body does not match the schema: ${mismatch}`);
      // Every documented answer is closed, but the documents themselves, which are free-form JSON.
      if (operation.security?.length === 0) continue;
      for (const widened of withUnknownKeys(response.body)) {
        if (!matchesSchema(documentPath, documented.pointer, mediaType, widened)) failures.push(`${label}: the schema accepts a key it does not name`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('answers every secured operation without a key with its documented 401 problem', async () => {
    const failures: string[] = [];
    for (const { path, method, operation } of operationsOf(document)) {
      if (operation.security?.length === 0) continue;
      const params = Object.fromEntries([...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => [name!, 'x_unknown']));
      const response = await fetch(`${server.url}${pathWith(path, params)}`, { method });
      const label = `${method} ${path} without a key → ${response.status}`;
      const documented = documentedResponse(document, path, method, 401);
      if (response.status !== 401 || !documented) {
        failures.push(`${label}: expected a documented 401`);
        continue;
      }
      if (!response.headers.has('WWW-Authenticate')) failures.push(`${label}: no WWW-Authenticate header`);
      const mismatch = matchesSchema(documentPath, documented.pointer, 'application/problem+json', await response.json());
      if (mismatch) failures.push(`${label}: ${mismatch}`);
    }
    expect(failures).toEqual([]);
  });
});
