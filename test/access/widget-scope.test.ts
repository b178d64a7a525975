import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getNamedType, isObjectType, type GraphQLField, type GraphQLNamedType } from 'graphql';
import type { Scope } from '../../src/access/principal.js';
import { createWidgetToken } from '../../src/access/admin.js';
import { answerScopeOf, nodeScopeOf } from '../../src/graphql/builder.js';
import { newId } from '../../src/shared/ids.js';
import { schema } from '../../src/graphql/schema.js';
import { openService } from '../support/bookable.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { bearer, postGraphQL } from './requests.js';

const shop = 'https://shop.example';

let server: TestServer;
let token: string;
let accountId: string;
let eventId: string;

beforeAll(async () => {
  server = await startTestServer({ seed: true });
  accountId = await server.createAccount();
  token = (await createWidgetToken(server.prisma, { accountId, allowedOrigins: [shop] })).id;
  eventId = (await server.prisma.event.findFirstOrThrow()).id;
});
afterAll(() => server.close());

interface GraphQLAnswer {
  data?: Record<string, unknown> | null;
  errors?: Array<{ message: string; path?: string[]; extensions: { code: string } }>;
}

async function graphql(credential: string, query: string, origin?: string): Promise<GraphQLAnswer> {
  const response = await postGraphQL(server.url, credential, query, { headers: origin ? { origin } : {} });
  return response.json() as Promise<GraphQLAnswer>;
}

const fromWidget = (query: string) => graphql(token, query, shop);

describe('a widget token reads only the directory', () => {
  it.each([
    ['viewer', '{ viewer { account { name } } }'],
    ['services', '{ services { edges { node { id name } } } }'],
    ['bookings', '{ bookings { edges { node { id } } } }'],
    ['bookingEvents', '{ bookingEvents { edges { node { id } } } }'],
    ['webhookEndpoints', '{ webhookEndpoints { edges { node { id } } } }'],
    ['createBooking', 'mutation { createBooking(input: { serviceId: "svc_x", startTime: "2030-10-31T20:00:00Z", customer: { name: "A", email: "a@example.com" } }) { replayed } }'],
  ])('refuses %s with insufficient_scope', async (field, query) => {
    const answer = await fromWidget(query);
    expect(answer.errors?.[0]).toMatchObject({ path: [field], extensions: { code: 'insufficient_scope' } });
    expect(answer.data?.[field] ?? null).toBeNull();
  });

  it('names the missing scope', async () => {
    const answer = await fromWidget('{ bookings { edges { node { id } } } }');
    expect(answer.errors?.[0]?.message).toBe('This needs the bookings:read scope.');
  });

  it('cannot read an API key of its account through node or nodes', async () => {
    const { keyId } = await server.createKey({ accountId });
    const query = `{ node(id: "${keyId}") { id ... on ApiKey { scopes plan allowedOrigins ipAllowlist } } nodes(ids: ["${keyId}"]) { id } }`;
    const answer = await fromWidget(query);
    expect(JSON.stringify(answer.data ?? {})).not.toContain(keyId);
    expect(answer.errors?.map((error) => error.extensions.code)).toEqual(expect.arrayContaining(['insufficient_scope']));
    expect(answer.errors?.every((error) => error.extensions.code === 'insufficient_scope')).toBe(true);
  });

  it('reads the directory records of a nodes(ids:) that also names an API key: the key is refused in its place only', async () => {
    const { keyId } = await server.createKey({ accountId });
    const answer = await fromWidget(`{ nodes(ids: ["${eventId}", "${keyId}"]) { id } }`);
    expect(answer.data).toEqual({ nodes: [{ id: eventId }, null] });
    expect(answer.errors?.map((error) => [error.extensions.code, error.path])).toEqual([['insufficient_scope', ['nodes', 1]]]);
  });

  it('refuses /v1/services and /v1/bookings with a 403 problem and a WWW-Authenticate challenge', async () => {
    const services = await fetch(`${server.url}/v1/services`, { headers: bearer(token, { origin: shop }) });
    expect(services.status).toBe(403);
    expect(services.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope"');
    expect(await services.json()).toMatchObject({ status: 403, code: 'insufficient_scope' });

    const bookings = await fetch(`${server.url}/v1/bookings`, { headers: bearer(token, { origin: shop }) });
    expect(bookings.status).toBe(403);
    expect(bookings.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="bookings:read"');
    expect(await bookings.json()).toMatchObject({ code: 'insufficient_scope', detail: 'This needs the bookings:read scope.' });
  });

  it('is refused 403 before its input is read, whatever the input holds: never a 400 or 422 that tells it how to shape a request it may not make', async () => {
    const asWidget = (method: string, path: string, body?: string) =>
      fetch(`${server.url}${path}`, { method, headers: bearer(token, { origin: shop, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }), body });
    const { key } = await server.createKey({ scopes: ['directory:read'] });
    const asReader = (method: string, path: string, body?: string) =>
      fetch(`${server.url}${path}`, { method, headers: bearer(key, body === undefined ? {} : { 'content-type': 'application/json' }), body });
    for (const [call, method, path, body] of [
      [asWidget, 'GET', '/v1/usage', undefined],
      [asWidget, 'POST', '/v1/waitlist_entries', '{}'],
      [asWidget, 'POST', '/v1/holds', '{"party_size": 1, "nope": 1}'],
      [asWidget, 'DELETE', '/v1/bookings/bk_x', '{"foo": 1}'],
      [asWidget, 'GET', '/v1/bookings?start_date=yesterday', undefined],
      [asReader, 'POST', '/v1/bookings', '{}'],
      [asReader, 'POST', '/v1/webhook_endpoints', '{"url": 5}'],
      [asReader, 'GET', '/v1/admin/api_keys?limit=0', undefined],
    ] as const) {
      const response = await call(method, path, body);
      expect([method, path, response.status, (await response.json()).code]).toEqual([method, path, 403, 'insufficient_scope']);
    }
  });

  it('still reads the directory over GraphQL (root fields and node) and REST', async () => {
    const answer = await fromWidget(`{ events(first: 1) { edges { node { id } } } categories(first: 1) { edges { node { id } } } node(id: "${eventId}") { id } }`);
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.['node']).toEqual({ id: eventId });

    const rest = await fetch(`${server.url}/api/v1/events?limit=1`, { headers: bearer(token, { origin: shop }) });
    expect(rest.status).toBe(200);
  });
});

describe("an attraction's services", () => {
  const servicesOf = (attractionId: string, page = 'first: 10') =>
    `{ attraction(id: "${attractionId}") { services(${page}) { edges { node { id name capacity timezone availability(startDate: "2030-10-31", endDate: "2030-10-31") { startTime remaining } } } pageInfo { hasNextPage } } } }`;

  /** The first attraction, with two services of its own added (openService), and all its services by id. */
  let withServices: Promise<{ id: string; services: { id: string; name: string; capacity: number }[] }> | undefined;
  const attractionWithServices = () =>
    (withServices ??= (async () => {
      await openService(server.prisma, { name: 'Lantern walk' });
      await openService(server.prisma, { name: 'Crypt tour' });
      return server.prisma.attraction.findFirstOrThrow({ orderBy: { id: 'asc' }, include: { services: { orderBy: { id: 'asc' } } } });
    })());

  it('are read by a widget token, by id, with their public fields and availability', async () => {
    const attraction = await attractionWithServices();
    const answer = await fromWidget(servicesOf(attraction.id));
    expect(answer.errors).toBeUndefined();
    const { services } = answer.data?.['attraction'] as { services: { edges: { node: { id: string; name: string; capacity: number; availability: unknown[] } }[] } };
    expect(services.edges.map(({ node }) => ({ id: node.id, name: node.name, capacity: node.capacity }))).toEqual(
      attraction.services.map((service) => ({ id: service.id, name: service.name, capacity: service.capacity })),
    );
    expect(services.edges.every(({ node }) => Array.isArray(node.availability))).toBe(true);
  });

  it('page by id, at most 100 a page, so their cost is bounded before anything runs', async () => {
    const attraction = await attractionWithServices();
    const firstPage = await fromWidget(servicesOf(attraction.id, 'first: 1'));
    const page = (firstPage.data?.['attraction'] as { services: { edges: { node: { id: string } }[]; pageInfo: { hasNextPage: boolean } } }).services;
    expect(page.edges.map(({ node }) => node.id)).toEqual([attraction.services[0]!.id]);
    expect(attraction.services.length).toBeGreaterThan(1);
    expect(page.pageInfo.hasNextPage).toBe(true);

    const tooMany = await fromWidget(servicesOf(attraction.id, 'first: 101'));
    expect(tooMany.errors?.[0]).toMatchObject({ extensions: { code: 'invalid_parameter' } });
    // A full page of services, each with a day of availability, is weighed over the limit and refused unrun.
    const tooCostly = await fromWidget(servicesOf(attraction.id, 'first: 100'));
    expect(tooCostly.errors?.[0]).toMatchObject({ extensions: { code: 'query_too_complex' } });
  });
});

describe('directory objects through node and nodes', () => {
  it('are refused to a key without directory:read, naming the scope, while its other ids resolve', async () => {
    const { keyId, key } = await server.createKey({ accountId, scopes: ['bookings:read', 'webhooks:manage'] });
    const category = await server.prisma.category.findFirstOrThrow();
    const event = await server.prisma.event.findUniqueOrThrow({ where: { id: eventId } });
    const answer = await graphql(key, `{ node(id: "${eventId}") { id ... on Event { title } } nodes(ids: ["${category.id}", "${keyId}"]) { id ... on Category { slug } } }`);

    expect(answer.data).toEqual({ node: null, nodes: [null, { id: keyId }] });
    expect(JSON.stringify(answer)).not.toContain(event.title);
    expect(JSON.stringify(answer)).not.toContain(category.slug);
    const refusals = (answer.errors ?? []).map((error) => ({ path: error.path, code: error.extensions.code, message: error.message }));
    expect(refusals).toEqual(
      expect.arrayContaining([
        { path: ['node'], code: 'insufficient_scope', message: 'This needs the directory:read scope.' },
        { path: ['nodes', 0], code: 'insufficient_scope', message: 'This needs the directory:read scope.' },
      ]),
    );
    expect(refusals).toHaveLength(2);
  });
});

describe('bookings and booking events through node and nodes', () => {
  it('are refused to a key without a bookings scope, naming it, and a key that only writes bookings sees its bookings but not the log', async () => {
    const service = await server.prisma.service.findFirstOrThrow();
    const booking = await server.prisma.booking.create({
      data: {
        id: newId('booking'),
        accountId,
        serviceId: service.id,
        startTime: new Date('2030-10-31T20:00:00Z'),
        endTime: new Date('2030-10-31T20:30:00Z'),
        customerName: 'Ada',
        customerEmail: 'ada@example.com',
      },
    });
    const logged = await server.prisma.bookingEvent.create({
      data: { id: newId('bookingEvent'), accountId, bookingId: booking.id, type: 'booking.created', payload: { data: { customer: { name: 'Ada' } } } },
    });
    const query = `{ node(id: "${booking.id}") { id ... on Booking { status } } nodes(ids: ["${logged.id}", "${eventId}"]) { id ... on BookingEvent { event } } }`;
    const refusals = (answer: GraphQLAnswer) => (answer.errors ?? []).map((error) => ({ path: error.path, code: error.extensions.code, message: error.message }));

    const directoryOnly = await graphql((await server.createKey({ accountId, scopes: ['directory:read'] })).key, query);
    expect(directoryOnly.data).toEqual({ node: null, nodes: [null, { id: eventId }] });
    expect(JSON.stringify(directoryOnly)).not.toContain('Ada');
    expect(refusals(directoryOnly)).toEqual([
      { path: ['node'], code: 'insufficient_scope', message: 'This needs the bookings:read or bookings:write scope.' },
      { path: ['nodes', 0], code: 'insufficient_scope', message: 'This needs the bookings:read scope.' },
    ]);

    const writer = await graphql((await server.createKey({ accountId, scopes: ['bookings:write', 'directory:read'] })).key, query);
    expect(writer.data).toEqual({ node: { id: booking.id, status: 'CONFIRMED' }, nodes: [null, { id: eventId }] });
    expect(refusals(writer)).toEqual([{ path: ['nodes', 0], code: 'insufficient_scope', message: 'This needs the bookings:read scope.' }]);

    const reader = await graphql((await server.createKey({ accountId, scopes: ['bookings:read', 'directory:read'] })).key, query);
    expect(reader).toEqual({ data: { node: { id: booking.id, status: 'CONFIRMED' }, nodes: [{ id: logged.id, event: 'booking.created' }, { id: eventId }] } });
  });
});

describe('types whose objects need a scope (nodeScope)', () => {
  // Their scope is checked where they are reached (root fields, node/nodes), not on their fields, so
  // nothing may lead to them but a root field, or a type, that only callers they admit can reach.
  // A type's answer scopes (nodeScope's answeredTo) admit it only as a mutation's answer, and what that answer leads to.
  it('are reached only from root fields and types that need a scope which admits them', () => {
    const types = Object.values(schema.getTypeMap()).filter(isObjectType);
    const scopesOf = (type: GraphQLNamedType) => nodeScopeOf(isObjectType(type) ? type : undefined);
    // A connection or edge of a scoped type (edges { node }, or node + cursor) is one with it.
    const nodeOf = (type: GraphQLNamedType): GraphQLNamedType | undefined => {
      if (!isObjectType(type)) return undefined;
      const fields = type.getFields();
      if (fields['edges'] && fields['pageInfo']) return nodeOf(getNamedType(fields['edges'].type));
      return fields['node'] && fields['cursor'] ? getNamedType(fields['node'].type) : undefined;
    };
    const needed = (type: GraphQLNamedType) => scopesOf(type) ?? scopesOf(nodeOf(type) ?? type);
    const scoped = types.filter((type) => needed(type));
    expect(scoped.map((type) => type.name)).toEqual(
      expect.arrayContaining(['Event', 'Attraction', 'Category', 'Image', 'QueryEventsConnection', 'Booking', 'QueryBookingsConnection', 'BookingEvent', 'CreateBookingPayload']),
    );

    // The scopes a root field checks (any one of them admits): only `scope` and `anyScope` name them.
    const rootFieldScopes = (field: GraphQLField<unknown, unknown>): readonly string[] | undefined => {
      const authScopes = (field.extensions['pothosOptions'] as { authScopes?: { scope?: string; anyScope?: readonly string[] } } | undefined)?.authScopes;
      if (!authScopes || Object.keys(authScopes).length !== 1) return undefined;
      return authScopes.scope ? [authScopes.scope] : authScopes.anyScope;
    };
    const roots = new Set([schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]);
    const answerScopes = (type: GraphQLNamedType) => (isObjectType(type) ? answerScopeOf(type) : []);
    const leaks: string[] = [];
    for (const parent of types) {
      const asAnswer = parent === schema.getMutationType() || answerScopes(parent).length > 0;
      for (const field of Object.values(parent.getFields())) {
        const targetType = getNamedType(field.type);
        const scopes = needed(targetType);
        if (!scopes) continue;
        const target = asAnswer ? [...scopes, ...answerScopes(targetType)] : scopes;
        // Every scope that lets a caller reach the field must admit the target's objects.
        const parentScopes = needed(parent);
        const reachedWith = roots.has(parent) ? rootFieldScopes(field) : parentScopes && [...parentScopes, ...answerScopes(parent)];
        if (!reachedWith?.length || !reachedWith.every((scope) => target.includes(scope as Scope))) leaks.push(`${parent.name}.${field.name}`);
      }
    }
    expect(leaks).toEqual([]);
  });
});

describe('API key nodes', () => {
  it('are visible to the key itself and to an admin key, not to another key of the same account', async () => {
    const { keyId, key } = await server.createKey({ accountId, scopes: ['directory:read'] });
    const sibling = await server.createKey({ accountId, scopes: ['bookings:read', 'bookings:write', 'webhooks:manage', 'directory:read', 'analytics:read'] });
    const admin = await server.createKey({ scopes: ['admin'] });
    const query = `{ node(id: "${keyId}") { id ... on ApiKey { scopes } } }`;

    expect((await graphql(sibling.key, query)).data).toEqual({ node: null });
    expect((await graphql(key, query)).data).toEqual({ node: { id: keyId, scopes: ['directory:read'] } });
    expect((await graphql(admin.key, query)).data).toEqual({ node: { id: keyId, scopes: ['directory:read'] } });
    expect((await graphql(key, '{ viewer { key { id } } }')).data).toEqual({ viewer: { key: { id: keyId } } });
  });

  it('refuse a key without the scope a REST route needs, naming it', async () => {
    const { key } = await server.createKey({ scopes: ['directory:read'] });
    const response = await fetch(`${server.url}/v1/booking_events`, { headers: bearer(key) });
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="bookings:read"');
  });
});
