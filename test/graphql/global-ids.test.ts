import SchemaBuilder from '@pothos/core';
import RelayPlugin, { encodeGlobalID } from '@pothos/plugin-relay';
import { execute, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { getDatamodel } from '../../src/generated/pothos-types.js';
import type { PrismaClient } from '../../src/generated/prisma/client.js';

interface Thing {
  id: number;
}

type RelayOptions = { synchronousGlobalIDs?: boolean; encodeGlobalID?: (typename: string, id: string | number | bigint) => string };

const prefixed: RelayOptions['encodeGlobalID'] = (typename, id) => `${typename}:${id}`;

/** A schema of its own: nodes whose id is read at once, nodes whose id comes from a promise, and plain globalID fields. */
function thingsSchema(relay: RelayOptions) {
  const builder = new SchemaBuilder<{ Context: object }>({
    plugins: [RelayPlugin],
    relay,
    // Asked for by the typings of the scope-auth and prisma plugins, which every builder in this program shares; neither is installed here.
    scopeAuth: { authScopes: () => ({}) },
    prisma: { client: {} as PrismaClient, dmmf: getDatamodel() },
  });
  const ThingRef = builder.objectRef<Thing>('Thing');
  builder.node(ThingRef, { id: { resolve: (thing) => thing.id }, fields: (t) => ({ n: t.exposeInt('id') }) });
  const SlowThingRef = builder.objectRef<Thing>('SlowThing');
  builder.node(SlowThingRef, { id: { resolve: async (thing) => thing.id }, fields: (t) => ({ n: t.exposeInt('id') }) });
  const things: Thing[] = [{ id: 1 }, { id: 2 }];
  builder.queryType({
    fields: (t) => ({
      things: t.field({ type: [ThingRef], resolve: () => things }),
      slowThings: t.field({ type: [SlowThingRef], resolve: () => things }),
      owner: t.globalID({ resolve: () => ({ type: ThingRef, id: 7 }) }),
      nobody: t.globalID({ nullable: true, resolve: () => null }),
      already: t.globalID({ resolve: () => 'given' }),
    }),
  });
  return builder.toSchema();
}

const everyKind = parse('{ things { id n } slowThings { id n } owner nobody already }');

// The relay plugin's synchronousGlobalIDs option (patches/@pothos+plugin-relay+4.8.1.patch), which the node-ids fast path turns on.
describe('global ids answered at once (relay synchronousGlobalIDs)', () => {
  const schema = thingsSchema({ synchronousGlobalIDs: true, encodeGlobalID: prefixed });

  it('answer a node id read from the record at once: a list of nodes executes without a promise', () => {
    const result = execute({ schema, document: parse('{ things { id n } owner nobody already }') });
    expect(result).not.toBeInstanceOf(Promise);
    expect(result).toEqual({
      data: {
        things: [
          { id: 'Thing:1', n: 1 },
          { id: 'Thing:2', n: 2 },
        ],
        owner: 'Thing:7',
        nobody: null,
        already: 'given',
      },
    });
  });

  it('are awaited by the plugin without the option: the same list executes as a promise', () => {
    const result = execute({ schema: thingsSchema({ encodeGlobalID: prefixed }), document: parse('{ things { id n } }') });
    expect(result).toBeInstanceOf(Promise);
  });

  it('answer what the plugin answers without the option, ids from promises included', async () => {
    const awaited = await execute({ schema: thingsSchema({ encodeGlobalID: prefixed }), document: everyKind });
    expect(await execute({ schema, document: everyKind })).toEqual(awaited);
    expect(awaited).toMatchObject({
      data: {
        slowThings: [
          { id: 'SlowThing:1', n: 1 },
          { id: 'SlowThing:2', n: 2 },
        ],
      },
    });
  });

  it("encode with the relay plugin's own encoding when the schema sets none", () => {
    const result = execute({ schema: thingsSchema({ synchronousGlobalIDs: true }), document: parse('{ things { id } }') });
    expect(result).toEqual({ data: { things: [{ id: encodeGlobalID('Thing', 1) }, { id: encodeGlobalID('Thing', 2) }] } });
    expect(encodeGlobalID('Thing', 1)).toBe(Buffer.from('Thing:1').toString('base64'));
  });

  it('wait for an id that comes from a promise, and encode it the same way', async () => {
    const result = execute({ schema, document: parse('{ slowThings { id n } }') });
    expect(result).toBeInstanceOf(Promise);
    expect(await result).toEqual({
      data: {
        slowThings: [
          { id: 'SlowThing:1', n: 1 },
          { id: 'SlowThing:2', n: 2 },
        ],
      },
    });
  });
});
