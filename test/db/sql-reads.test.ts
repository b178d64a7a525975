import { describe, expect, it } from 'vitest';
import { codecOf } from '../../src/db/sql-reads/codecs.js';
import type { MappedModel, ModelMap } from '../../src/db/sql-reads/model-map.js';
import { RefusedRelation } from '../../src/db/sql-reads/models.js';
import { createSqlReads } from '../../src/db/sql-reads/reads.js';
import { shapeOf } from '../../src/db/sql-reads/shape.js';
import { compile, hole, identifier, literal, Parameter, sql } from '../../src/db/sql-reads/sql.js';
import { Untranslated } from '../../src/db/sql-reads/untranslated.js';
import { modelMap } from '../../src/generated/sql-reads/model-map.js';
import { Prisma } from '../../src/generated/prisma/client.js';

/** The parts of the SQL reads that need no database; their parity with Prisma is test/db/direct-reads.test.ts. */
const noRows = async () => [];
const noClient = {} as never;

describe('the SQL reads at start-up', () => {
  /** Two models whose relation is declared by `join`, each with an id and a slug. */
  function mapWith(join: { fields: string[]; references: string[] }, event: Partial<MappedModel> = {}): ModelMap {
    const scalar = (name: string, column = name) => ({ kind: 'scalar' as const, name, column, type: 'String', isList: false, isRequired: true });
    return {
      enums: {},
      models: {
        Event: {
          name: 'Event',
          table: 'events',
          id: ['id'],
          uniqueFields: ['id'],
          fields: [
            scalar('id'),
            scalar('categorySlug', 'category_slug'),
            scalar('categoryId', 'category_id'),
            { kind: 'relation', name: 'category', type: 'Category', isList: false, isRequired: true, join: { via: 'key here', ...join } },
          ],
          ...event,
        },
        Category: {
          name: 'Category',
          table: 'categories',
          id: ['id'],
          uniqueFields: ['id', 'slug'],
          fields: [scalar('id'), scalar('slug'), { kind: 'relation', name: 'events', type: 'Event', isList: true, isRequired: true, join: { via: 'key there', ...join } }],
        },
      },
    };
  }

  it('read the schema as prisma generate wrote it', () => {
    expect(() => createSqlReads(noClient, noRows)).not.toThrow();
    expect(() => createSqlReads(noClient, noRows, mapWith({ fields: ['categoryId'], references: ['id'] }))).not.toThrow();
  });

  it('refuse a relation on another key than the related model’s id, naming the model and field', () => {
    const create = () => createSqlReads(noClient, noRows, mapWith({ fields: ['categorySlug'], references: ['slug'] }));
    expect(create).toThrow(RefusedRelation);
    expect(create).toThrow("cannot read Event.category: it joins on Category.slug, not Category's id (id)");
    expect(create).toThrow('HALLOWGATE_FAST_PATHS=-direct-reads');
  });

  it('refuse composite keys, and many-to-many relations of models without a single-field id', () => {
    expect(() => createSqlReads(noClient, noRows, mapWith({ fields: ['categoryId', 'categorySlug'], references: ['id', 'slug'] }))).toThrow(
      'cannot read Event.category: its key is composite (categoryId, categorySlug references id, slug)',
    );
    const categories = { kind: 'relation' as const, name: 'categories', type: 'Category', isList: true, isRequired: true };
    const manyToMany = mapWith({ fields: ['categoryId'], references: ['id'] }, { id: ['id', 'categoryId'] });
    const event = manyToMany.models['Event']!;
    const withJoinTable = {
      ...manyToMany,
      models: {
        ...manyToMany.models,
        Event: {
          ...event,
          fields: [...event.fields, { ...categories, join: { via: 'join table' as const, table: '_CategoryToEvent', column: 'B', otherColumn: 'A', selfRelation: false } }],
        },
      },
    };
    expect(() => createSqlReads(noClient, noRows, withJoinTable)).toThrow('cannot read Event.categories: Event has no single-field id (its key is id, categoryId)');
  });
});

describe('SQL as values', () => {
  it('quote names and string constants when compiled, and number each parameter once', () => {
    const id = new Parameter(0, String);
    const statement = compile(
      sql`SELECT ${identifier('t"0', 'col')}, ${literal("it's")} WHERE a = ${id} OR b = ${id} LIMIT ${new Parameter(1, (size) => Math.abs(size as number))}`,
    );
    expect(statement.text).toBe(`SELECT "t""0"."col", 'it''s' WHERE a = $1 OR b = $1 LIMIT $2`);
    expect(statement.values([7, -3])).toEqual(['7', 3]);
  });

  it('put SQL its owner writes per statement in the hole, its parameters numbered after the statement’s', () => {
    const statement = compile(sql`SELECT ${new Parameter(0, (value) => value)}, ${hole}`);
    expect(statement.text).toBeUndefined();
    expect(statement.withWritten(['a'], (parameter) => `(SELECT ${parameter('b')}::text)`)).toEqual({ text: 'SELECT $1, (SELECT $2::text)', values: ['a', 'b'] });
  });
});

describe('argument shapes', () => {
  const base = { where: { cityKey: 'salem', startsAt: { gte: new Date(0) } }, orderBy: [{ startsAt: 'asc' }], take: 21, skip: 1, cursor: { id: 'ev_1' } };

  it('are the same for other values, which come out in order', () => {
    const other = shapeOf({ ...base, where: { cityKey: 'boston', startsAt: { gte: new Date(1) } }, take: 5, cursor: { id: 'ev_2' } }, false);
    expect(other.key).toBe(shapeOf(base, false).key);
    expect(other.values).toEqual(['boston', new Date(1), 5, 1, 'ev_2']);
  });

  it('differ in what the statement depends on: null, sort order, mode, the sign of take, a zero skip, the kind of a value', () => {
    const key = (args: Record<string, unknown>) => shapeOf(args, false).key;
    const variants = [
      { ...base, where: { ...base.where, cityKey: null } },
      { ...base, orderBy: [{ startsAt: 'desc' }] },
      { ...base, where: { ...base.where, cityKey: { contains: 'sa', mode: 'insensitive' } } },
      { ...base, where: { ...base.where, cityKey: { contains: 'sa', mode: 'default' } } },
      { ...base, take: -21 },
      { ...base, skip: 0 },
      { ...base, where: { ...base.where, startsAt: { gte: new Prisma.Decimal(0) } } },
      { ...base, where: { ...base.where, startsAt: { gte: '1970-01-01T00:00:00Z' } } },
      { ...base, take: 2.5 },
    ];
    expect(new Set([key(base), ...variants.map(key)]).size).toBe(variants.length + 1);
  });

  it('leave what they cannot write to Prisma', () => {
    expect(() => shapeOf({ select: { id: 1n } }, false)).toThrow(Untranslated);
    expect(() => shapeOf({ where: { id: new Map() } }, false)).toThrow(Untranslated);
  });
});

describe('codecs', () => {
  const plan = modelMap.models['ApiKey']!.fields.find((field) => field.name === 'plan')!;
  if (plan.kind === 'relation') throw new Error('ApiKey.plan is a scalar');

  it('give an enum whose values are mapped (@map) Prisma’s names, and compare it by its labels', () => {
    const codec = codecOf(plan, { Plan: { free: 'FREE', pro: 'pro' } })!;
    expect((codec.decode as (label: string) => unknown)('FREE')).toBe('free');
    expect(codec.compare!.write('free')).toBe('FREE');
    expect(codecOf(plan, modelMap.enums)!.decode).toBeUndefined();
  });

  it('send times as PostgreSQL reads them, past the year 9999 too, and exact numbers as text', () => {
    const time = codecOf({ kind: 'scalar', name: 'at', column: 'at', type: 'DateTime', isList: false, isRequired: true }, {})!;
    expect(time.compare!.write(new Date(Date.UTC(10_000, 0, 1)))).toBe('10000-01-01T00:00:00.000Z');
    expect(time.compare!.kinds).toEqual(['date']);
    const big = codecOf({ kind: 'scalar', name: 'n', column: 'n', type: 'BigInt', isList: false, isRequired: true }, {})!;
    expect(big.compare!.write(9_007_199_254_740_993n)).toBe('9007199254740993');
    expect(codecOf({ kind: 'scalar', name: 'b', column: 'b', type: 'Bytes', isList: false, isRequired: true }, {})).toBeUndefined();
  });
});
