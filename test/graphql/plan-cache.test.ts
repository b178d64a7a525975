import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import { execute, parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type PrismaTypes from '../../src/generated/pothos-types.js';
import { getDatamodel } from '../../src/generated/pothos-types.js';
import type { PrismaClient } from '../../src/generated/prisma/client.js';
// Installs the kept plans, as the server does.
import '../../src/graphql/schema.js';
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

describe('kept query plans', () => {
  it('answer each request by its own variables and load relations with the record, whichever plan ran before', async () => {
    expect(events.length).toBeGreaterThanOrEqual(4);
    const query = `query($id: ID!, $withImages: Boolean!) { event(id: $id) { id images @include(if: $withImages) { url } categories { slug } } }`;
    // Another event each time: nothing is answered from a kept answer, every request is planned or replays a plan.
    for (const [index, withImages] of [true, false, true, false].entries()) {
      const event = events[index]!;
      statements = [];
      const { body } = await call('POST', '/graphql', { query, variables: { id: event.id, withImages } });
      expect(body).toEqual({
        data: { event: { id: event.id, ...(withImages ? { images: event.images.map((url) => ({ url })) } : {}), categories: event.categories.map((slug) => ({ slug })) } },
      });
      // The relations come with the record: a plan bound to another request would leave them to load on their own.
      expect(statements.filter((sql) => /"(images|categories|events)"/.test(sql))).toHaveLength(1);
    }
  });

  /** A schema of its own: an event whose images are taken by the context, or by an argument. */
  function eventsSchema() {
    const prisma: PrismaClient = server.prisma;
    const builder = new SchemaBuilder<{ Context: { imagesPerEvent: number }; PrismaTypes: PrismaTypes }>({
      plugins: [PrismaPlugin],
      prisma: { client: prisma, dmmf: getDatamodel() },
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
    const schema = eventsSchema();
    const document = parse(`{ event(id: "${events[0]!.id}") { images { url } } }`);
    for (const imagesPerEvent of [1, 2, 1]) {
      const result = await execute({ schema, document, contextValue: { imagesPerEvent } });
      expect(result.errors).toBeUndefined();
      expect((result.data as { event: { images: unknown[] } }).event.images).toHaveLength(imagesPerEvent);
    }
  });

  it('are kept by the values of the variables used beneath the field', async () => {
    const schema = eventsSchema();
    const document = parse(`query($id: ID!, $first: Int!) { event(id: $id) { firstImages(first: $first) { url } } }`);
    for (const [index, first] of [1, 2, 1, 2].entries()) {
      const result = await execute({ schema, document, variableValues: { id: events[index]!.id, first }, contextValue: { imagesPerEvent: 0 } });
      expect(result.errors).toBeUndefined();
      expect((result.data as { event: { firstImages: unknown[] } }).event.firstImages).toHaveLength(first);
    }
  });
});
