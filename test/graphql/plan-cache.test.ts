import SchemaBuilder from '@pothos/core';
import PrismaPlugin, { type PrismaPlanCache } from '@pothos/plugin-prisma';
import { execute, parse, type DocumentNode } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fastPaths, fastPathUses } from '../../src/fast-paths.js';
import type PrismaTypes from '../../src/generated/pothos-types.js';
import { getDatamodel } from '../../src/generated/pothos-types.js';
import type { PrismaClient } from '../../src/generated/prisma/client.js';
import { createPlanCache } from '../../src/graphql/plan-cache.js';
import { apiClient } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
let statements: string[] = [];
let call: ReturnType<typeof apiClient>;
/** Events with at least two images, their images in order. */
let events: { id: string; images: string[]; categories: string[] }[];

beforeAll(async () => {
  server = await startTestServer({ seed: true, onQuery: (sql) => statements.push(sql) });
  call = apiClient(server.url, (await server.createKey({ scopes: ['directory:read'] })).key);
  const rows = await server.prisma.event.findMany({
    include: { images: { orderBy: { position: 'asc' } }, categories: { orderBy: { slug: 'asc' } } },
    orderBy: { id: 'asc' },
    take: 40,
  });
  events = rows
    .filter((event) => event.images.length >= 2)
    .map((event) => ({ id: event.id, images: event.images.map((image) => image.url), categories: event.categories.map((category) => category.slug) }));
});

afterAll(async () => {
  await server?.close();
});

/** How many kept plans were played while `work` ran. */
async function keptPlansPlayedDuring(work: () => Promise<unknown>): Promise<number> {
  const before = fastPathUses['plan-cache'];
  await work();
  return fastPathUses['plan-cache'] - before;
}

describe('kept query plans', () => {
  it('answer each request by its own variables and load relations with the record, whichever plan ran before', async () => {
    expect(events.length).toBeGreaterThanOrEqual(4);
    const query = `query($id: ID!, $withImages: Boolean!) { event(id: $id) { id images @include(if: $withImages) { url } categories { slug } } }`;
    // Another event each time: nothing is answered from the response cache, every request is planned or replays a plan.
    const played = await keptPlansPlayedDuring(async () => {
      for (const [index, withImages] of [true, false, true, false].entries()) {
        const event = events[index]!;
        statements = [];
        const { body } = await call('POST', '/graphql', { query, variables: { id: event.id, withImages } });
        expect(body).toEqual({
          data: { event: { id: event.id, ...(withImages ? { images: event.images.map((url) => ({ url })) } : {}), categories: event.categories.map((slug) => ({ slug })) } },
        });
        // The relations come with the record: a plan played with another request's context would leave them to load on their own.
        expect(statements.filter((sql) => /"(images|categories|events)"/.test(sql))).toHaveLength(1);
      }
    });
    // The third and fourth requests play the plans of the first and second (the server's own cache).
    expect(played > 0).toBe(fastPaths['plan-cache']);
  });

  /** A schema of its own: an event whose images are taken by the context, or by an argument; its plans kept by `planCache` when given. */
  function eventsSchema(planCache?: PrismaPlanCache) {
    const prisma: PrismaClient = server.prisma;
    const builder = new SchemaBuilder<{ Context: { imagesPerEvent: number }; PrismaTypes: PrismaTypes }>({
      plugins: [PrismaPlugin],
      prisma: { client: prisma, dmmf: getDatamodel(), planCache },
      // Asked for by the scope-auth plugin's typings, which every builder in this program shares; not installed here.
      scopeAuth: { authScopes: () => ({}) },
    });
    builder.prismaObject('Event', {
      fields: (t) => ({
        id: t.exposeID('id'),
        images: t.relation('images', { query: (_args, context) => ({ take: context.imagesPerEvent, orderBy: { position: 'asc' } }) }),
        firstImages: t.relation('images', {
          args: { first: t.arg.int({ required: true }) },
          query: (args) => ({ take: args.first, orderBy: { position: 'asc' } }),
        }),
      }),
    });
    builder.prismaObject('Image', { fields: (t) => ({ url: t.exposeString('url') }) });
    builder.queryType({
      fields: (t) => ({
        event: t.prismaField({
          type: 'Event',
          args: { id: t.arg.id({ required: true }) },
          resolve: (query, _root, args) => prisma.event.findUniqueOrThrow({ ...query, where: { id: String(args.id) } }),
        }),
      }),
    });
    return builder.toSchema();
  }

  it('are not kept where a select function reads the context', async () => {
    const schema = eventsSchema(createPlanCache());
    const document = parse(`{ event(id: "${events[0]!.id}") { images { url } } }`);
    const played = await keptPlansPlayedDuring(async () => {
      for (const imagesPerEvent of [1, 2, 1]) {
        const result = await execute({ schema, document, contextValue: { imagesPerEvent } });
        expect(result.errors).toBeUndefined();
        expect((result.data as { event: { images: unknown[] } }).event.images).toHaveLength(imagesPerEvent);
      }
    });
    expect(played).toBe(0);
  });

  it('are kept by the values of the variables used beneath the field', async () => {
    const schema = eventsSchema(createPlanCache());
    const document = parse(`query($id: ID!, $first: Int!) { event(id: $id) { firstImages(first: $first) { url } } }`);
    const played = await keptPlansPlayedDuring(async () => {
      for (const [index, first] of [1, 2, 1, 2].entries()) {
        const result = await execute({ schema, document, variableValues: { id: events[index]!.id, first }, contextValue: { imagesPerEvent: 0 } });
        expect(result.errors).toBeUndefined();
        expect((result.data as { event: { firstImages: unknown[] } }).event.firstImages).toHaveLength(first);
      }
    });
    // The third and fourth requests play the plans the first and second walked.
    expect(played).toBe(2);
  });

  it('answer as the plugin does without them, with the same SQL', async () => {
    const kept = eventsSchema(createPlanCache());
    const plain = eventsSchema();
    const document = parse(`query($id: ID!, $first: Int!) { event(id: $id) { id firstImages(first: $first) { url } images { url } } }`);
    const run = async (schema: ReturnType<typeof eventsSchema>, document: DocumentNode, variableValues: Record<string, unknown>) => {
      statements = [];
      const result = await execute({ schema, document, variableValues, contextValue: { imagesPerEvent: 1 } });
      // The query's own statements: the server's workers (webhook deliveries, say) may poll meanwhile.
      return { result, statements: statements.filter((sql) => /"public"\."(events|images)"/.test(sql)) };
    };
    for (const [index, first] of [1, 2, 1, 2, 1].entries()) {
      const variables = { id: events[index % 2]!.id, first };
      expect(await run(kept, document, variables)).toEqual(await run(plain, document, variables));
    }
    const byVariables = parse(`query($id: ID!, $first: Int!) { event(id: $id) { firstImages(first: $first) { url } } }`);
    const played = await keptPlansPlayedDuring(async () => {
      for (const first of [2, 1, 2]) expect(await run(kept, byVariables, { id: events[0]!.id, first })).toEqual(await run(plain, byVariables, { id: events[0]!.id, first }));
    });
    expect(played).toBe(1);
  });
});
