import { isObjectType, type GraphQLResolveInfo } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/access/principal.js';
import { fastPathNames, fastPaths, fastPathUses } from '../../src/fast-paths.js';
import { schema } from '../../src/graphql/schema.js';
import { apiClient, type ApiCall } from './http.js';
import { startTestServer, type TestServer } from './server.js';

/** How many times `path` did its work while `work` ran. */
async function usesDuring(path: keyof typeof fastPathUses, work: () => Promise<unknown>): Promise<number> {
  const before = fastPathUses[path];
  await work();
  return fastPathUses[path] - before;
}

/**
 * Each fast path is in use exactly when HALLOWGATE_FAST_PATHS (as this process was started with)
 * keeps it on: a test file calls this after choosing the variable, so a path that silently stops
 * applying fails here, and so does one that runs when switched off.
 */
export function describeFastPaths(): void {
  const choice = fastPathNames.map((name) => `${name} ${fastPaths[name] ? 'on' : 'off'}`).join(', ');

  describe(`fast paths (${choice})`, () => {
    let server: TestServer;
    let call: ApiCall;
    let eventIds: string[];

    beforeAll(async () => {
      server = await startTestServer({ seed: true });
      call = apiClient(server.url, (await server.createKey({ scopes: ['directory:read'] })).key);
      eventIds = (await server.prisma.event.findMany({ select: { id: true }, orderBy: { id: 'asc' }, take: 3 })).map((event) => event.id);
    });
    afterAll(() => server?.close());

    const graphql = async (query: string, variables: Record<string, unknown> = {}) => {
      const { status, body } = await call('POST', '/graphql', { query, variables });
      expect(status).toBe(200);
      expect(body.errors).toBeUndefined();
      return body.data as Record<string, unknown>;
    };
    const eventQuery = 'query ($id: ID!) { event(id: $id) { id title categories { slug } } }';

    it(`plan-cache: a query's plan is played again for other variables only when on`, async () => {
      // Other ids each time: no answer is kept for any, so each request is planned or plays a kept plan.
      const uses = await usesDuring('plan-cache', async () => {
        for (const id of eventIds) expect(await graphql(eventQuery, { id })).toMatchObject({ event: { id } });
      });
      expect(uses > 0).toBe(fastPaths['plan-cache']);
    });

    it("node-ids: every node type's id answers a record's id at once only when on, else as a promise of the same id", async () => {
      // The relay plugin's own globalID awaits every id; its synchronousGlobalIDs option answers a value at once.
      const admin: Principal = {
        kind: 'api_key',
        keyId: 'key_ids',
        accountId: 'acct_ids',
        scopes: ['admin'],
        plan: 'free',
        promo: false,
        expiresAt: null,
        secretHash: 'not-checked-here',
      };
      const nodeInterface = schema.getType('Node');
      const nodeTypes = Object.values(schema.getTypeMap())
        .filter(isObjectType)
        .filter((type) => type.getInterfaces().some((implemented) => implemented === nodeInterface));
      expect(nodeTypes.map((type) => type.name)).toContain('Booking');
      for (const type of nodeTypes) {
        const info = { parentType: type, fieldName: 'id', path: { key: 'id', prev: undefined, typename: type.name } } as unknown as GraphQLResolveInfo;
        const id = type.getFields()['id']!.resolve!({ id: 'evt_1' }, {}, { principal: admin }, info);
        expect(id instanceof Promise).toBe(!fastPaths['node-ids']);
        expect(await id).toBe('evt_1');
      }
    });

    it('direct-reads: root fields are read past Prisma only when on', async () => {
      const uses = await usesDuring('direct-reads', () => graphql('query ($first: Int) { events(first: $first) { edges { node { id title } } } }', { first: 3 }));
      expect(uses > 0).toBe(fastPaths['direct-reads']);
    });

    it('compiled-execution: queries run as graphql-jit code only when on', async () => {
      const uses = await usesDuring('compiled-execution', () => graphql('query ($first: Int) { categories(first: $first) { edges { node { slug } } } }', { first: 2 }));
      expect(uses > 0).toBe(fastPaths['compiled-execution']);
    });

    it("compiled-execution: a variable's input objects take their fields' defaults, as graphql-js gives them", async () => {
      // EventOrder's direction is SortDirection! = ASC: left out, the sort is ascending on both paths.
      const byTitle = 'query ($order: [EventOrder!]) { events(first: 3, orderBy: $order) { edges { node { id } } } }';
      const uses = await usesDuring('compiled-execution', async () => {
        const leftOut = await graphql(byTitle, { order: [{ field: 'TITLE' }] });
        expect(leftOut).toEqual(await graphql(byTitle, { order: [{ field: 'TITLE', direction: 'ASC' }] }));
        expect(leftOut).not.toEqual(await graphql(byTitle, { order: [{ field: 'TITLE', direction: 'DESC' }] }));
        // A required variable left out takes its own default, input objects and all, and a default
        // that a scalar parses (a DateTime) as its value, not its text.
        expect(await graphql('query ($order: [EventOrder!]! = [{ field: TITLE }]) { events(first: 3, orderBy: $order) { edges { node { id } } } }')).toEqual(leftOut);
        const from = new Date(Date.now() + 86_400_000).toISOString();
        const bookable = (definitions: string, argument: string) =>
          `query ${definitions} { events(first: 3, availableFor: 1, availableFrom: ${argument}) { edges { node { id } } } }`;
        expect(await graphql(bookable(`($from: DateTime! = "${from}")`, '$from'))).toEqual(await graphql(bookable('', `"${from}"`)));
      });
      expect(uses > 0).toBe(fastPaths['compiled-execution']);
    });

    it('json-post: a JSON POST is executed before Yoga only when on', async () => {
      const uses = await usesDuring('json-post', () => graphql('query ($first: Int) { categories(first: $first) { edges { node { id } } } }', { first: 1 }));
      expect(uses > 0).toBe(fastPaths['json-post']);
    });

    it('response-cache: a repeated GraphQL request and REST GET are answered from the response cache only when on', async () => {
      const query = 'query ($first: Int) { events(first: $first) { edges { node { id } } } }';
      const uses = await usesDuring('response-cache', async () => {
        for (let asked = 0; asked < 3; asked++) await graphql(query, { first: 4 });
        for (let asked = 0; asked < 3; asked++) expect((await call('GET', '/api/v1/events?limit=4')).status).toBe(200);
      });
      expect(uses > 0).toBe(fastPaths['response-cache']);
      // Off, nothing is looked up at all.
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      expect(/^hallowgate_response_cache_lookups_total\{/m.test(metrics)).toBe(fastPaths['response-cache']);
    });

    it('a conditional GET of an unchanged REST answer gets 304, response cache or not', async () => {
      for (let asked = 0; asked < 3; asked++) {
        const first = await call('GET', `/api/v1/events/${eventIds[0]}`);
        expect(first.status).toBe(200);
        const tag = first.headers.get('etag')!;
        expect(tag).toBeTruthy();
        const again = await call('GET', `/api/v1/events/${eventIds[0]}`, undefined, { 'if-none-match': tag });
        expect(again.status).toBe(304);
      }
    });
  });
}
