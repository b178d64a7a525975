import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getNamedType, isObjectType, type GraphQLNamedType } from 'graphql';
import { createWidgetToken } from '../../src/access/admin.js';
import { nodeScopeOf } from '../../src/graphql/builder.js';
import { schema } from '../../src/graphql/schema.js';
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

  it('still reads the directory over GraphQL (root fields and node) and REST', async () => {
    const answer = await fromWidget(`{ events(first: 1) { edges { node { id } } } categories(first: 1) { edges { node { id } } } node(id: "${eventId}") { id } }`);
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.['node']).toEqual({ id: eventId });

    const rest = await fetch(`${server.url}/api/v1/events?limit=1`, { headers: bearer(token, { origin: shop }) });
    expect(rest.status).toBe(200);
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

describe('types whose objects need a scope (nodeScope)', () => {
  // Their scope is checked at their root fields and node/nodes only, so nothing else may lead to them.
  it('are reached only from each other, their connections, and root query fields that check the same scope', () => {
    const types = Object.values(schema.getTypeMap()).filter(isObjectType);
    const scopeOf = (type: GraphQLNamedType) => nodeScopeOf(isObjectType(type) ? type : undefined);
    // A connection or edge of a scoped type (edges { node }, or node + cursor) is one with it.
    const nodeOf = (type: GraphQLNamedType): GraphQLNamedType | undefined => {
      if (!isObjectType(type)) return undefined;
      const fields = type.getFields();
      if (fields['edges'] && fields['pageInfo']) return nodeOf(getNamedType(fields['edges'].type));
      return fields['node'] && fields['cursor'] ? getNamedType(fields['node'].type) : undefined;
    };
    const needed = (type: GraphQLNamedType) => scopeOf(type) ?? scopeOf(nodeOf(type) ?? type);
    const scoped = types.filter((type) => needed(type));
    expect(scoped.map((type) => type.name)).toEqual(expect.arrayContaining(['Event', 'Attraction', 'Category', 'Image', 'QueryEventsConnection']));

    const leaks: string[] = [];
    for (const parent of types) {
      if (needed(parent)) continue;
      for (const field of Object.values(parent.getFields())) {
        const scope = needed(getNamedType(field.type));
        if (!scope) continue;
        const rootScope = (field.extensions['pothosOptions'] as { authScopes?: unknown } | undefined)?.authScopes;
        const checked = parent === schema.getQueryType() && JSON.stringify(rootScope) === JSON.stringify({ scope });
        if (!checked) leaks.push(`${parent.name}.${field.name}`);
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
