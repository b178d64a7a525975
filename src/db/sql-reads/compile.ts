import type { Comparison } from './codecs.js';
import type { Model, Models, Relation, Scalar } from './models.js';
import { Count, Slot } from './shape.js';
import { empty, hole, identifier, join, literal, Parameter, sql, type Sql } from './sql.js';
import { untranslated } from './untranslated.js';

/**
 * Prisma's findMany arguments (a shape's template: values are Slots) as one statement: the page is
 * cut from the table's rows, then only its rows get their select list, with related records nested
 * by PostgreSQL as json. Whatever is not translated here throws Untranslated: the read goes to Prisma.
 */
export interface CompiledRead {
  statement: Sql;
  selection: Selection;
  /** A backward page (negative take): its rows come in reverse order and are turned around. */
  backwards: boolean;
}

/** The fields a read gives, in Prisma's order: scalars, then relations. */
export interface Selection {
  scalars: readonly ReadScalar[];
  relations: readonly ReadRelation[];
}

/** A scalar read here: one with a codec. */
export type ReadScalar = Scalar & { codec: NonNullable<Scalar['codec']> };

export interface ReadRelation {
  relation: Relation;
  selection: Selection;
  order: OrderTerm[];
}

interface OrderTerm {
  field: ReadScalar;
  ascending: boolean;
}

/** The column of a PiggybackedRead, which comes after the selection's. */
export const piggybackColumn = '__piggybacked';

const knownArgs = new Set(['include', 'select', 'where', 'orderBy', 'take', 'skip', 'cursor']);

const comparisons: Readonly<Record<Exclude<Comparison, 'contains' | 'in'>, Sql>> = { equals: sql`=`, lt: sql`<`, lte: sql`<=`, gt: sql`>`, gte: sql`>=` };

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;

/** A fresh alias per table a statement reads. */
class Aliases {
  private count = 0;
  next(): string {
    return `t${this.count++}`;
  }
}

export function compileRead(models: Models, model: Model, args: Record<string, unknown>, withPiggyback: boolean): CompiledRead {
  for (const name of Object.keys(args)) if (!knownArgs.has(name)) untranslated();
  const aliases = new Aliases();
  const root = aliases.next();
  const selection = selectionOf(model, args);
  const columns = [
    ...selection.scalars.map((field) => sql`${field.codec.read(sql`${identifier(root, field.column)}`)} AS ${identifier(field.name)}`),
    ...selection.relations.map((read) => sql`${relationColumn(read, root, aliases)} AS ${identifier(read.relation.name)}`),
  ];
  if (columns.length === 0) untranslated();
  // On one row only (the driver would parse it on each), and last, after the columns the records are built from.
  if (withPiggyback) columns.push(sql`CASE WHEN row_number() OVER () = 1 THEN ${hole} END AS ${identifier(piggybackColumn)}`);

  const conditions = [whereOf(model, args['where'], root, aliases)];
  const take = countOf(args['take']);
  const skip = countOf(args['skip']);
  if (skip?.sign === 'negative') untranslated();
  const backwards = take?.sign === 'negative';
  const order = orderTerms(model, args['orderBy']);
  if (args['cursor'] !== undefined) conditions.push(cursorCondition(model, order, args['cursor'], backwards, root));
  const orderBy = order.length ? sql` ORDER BY ${orderSql(order, root, backwards)}` : empty;
  // The page is cut from the rows as they are stored, and only its rows are converted and given their
  // relations: a sort below the limit would compute the select list for every row it weighs.
  const page = sql`SELECT * FROM ${identifier(model.table)} AS ${identifier(root)} WHERE ${join(conditions, sql` AND `)}${orderBy}${take ? sql` LIMIT ${take.parameter}` : empty}${skip?.sign === 'positive' ? sql` OFFSET ${skip.parameter}` : empty}`;
  return { statement: sql`SELECT ${join(columns, sql`, `)} FROM (${page}) AS ${identifier(root)}${orderBy}`, selection, backwards };
}

/** take or skip: its sign (from the shape) and its size, sent as a parameter. */
function countOf(value: unknown): { sign: Count['sign']; parameter: Parameter } | undefined {
  if (value === undefined) return undefined;
  if (!(value instanceof Count) || !value.size) return untranslated();
  return { sign: value.sign, parameter: new Parameter(value.size.index, (size) => Math.abs(size as number)) };
}

/** The fields `include` or `select` ask for (Prisma's rules: include adds relations to every scalar). */
function selectionOf(model: Model, args: Record<string, unknown>): Selection {
  const { select, include } = args;
  if (select !== undefined && include !== undefined) untranslated();
  const chosen = select ?? include ?? {};
  if (!isPlainObject(chosen)) return untranslated();
  const scalars: ReadScalar[] = select === undefined ? model.scalars.map(readable) : [];
  const relations: ReadRelation[] = [];
  for (const [name, value] of Object.entries(chosen)) {
    if (value === undefined || value === false) continue;
    const field = model.fields.get(name) ?? untranslated();
    if (field.kind === 'scalar') {
      if (value !== true || select === undefined) untranslated();
      scalars.push(readable(field));
      continue;
    }
    const nested: unknown = value === true ? {} : value;
    if (!isPlainObject(nested) || Object.keys(nested).some((key) => key !== 'include' && key !== 'select' && key !== 'orderBy')) untranslated();
    relations.push({ relation: field, selection: selectionOf(field.target, nested), order: orderTerms(field.target, nested['orderBy']) });
  }
  return { scalars, relations };
}

function readable(field: Scalar): ReadScalar {
  return field.codec ? (field as ReadScalar) : untranslated();
}

/** Where a relation's rows are and how they meet their parent's row. */
function relationSource(relation: Relation, parentAlias: string, alias: string, aliases: Aliases): { from: Sql; where: Sql } {
  const { join: relationJoin, target } = relation;
  const table = sql`${identifier(target.table)} AS ${identifier(alias)}`;
  if (relationJoin.via === 'key') return { from: table, where: sql`${identifier(alias, relationJoin.targetColumn)} = ${identifier(parentAlias, relationJoin.column)}` };
  const through = aliases.next();
  return {
    from: sql`${identifier(relationJoin.table)} AS ${identifier(through)} JOIN ${table} ON ${identifier(alias, relationJoin.targetColumn)} = ${identifier(through, relationJoin.tableTargetColumn)}`,
    where: sql`${identifier(through, relationJoin.tableColumn)} = ${identifier(parentAlias, relationJoin.column)}`,
  };
}

/** A related record, or a list of them, as one json value. */
function relationColumn(read: ReadRelation, parentAlias: string, aliases: Aliases): Sql {
  const alias = aliases.next();
  const { from, where } = relationSource(read.relation, parentAlias, alias, aliases);
  const pairs = [
    ...read.selection.scalars.map((field) => sql`${literal(field.name)}, ${field.codec.read(sql`${identifier(alias, field.column)}`)}`),
    ...read.selection.relations.map((nested) => sql`${literal(nested.relation.name)}, ${relationColumn(nested, alias, aliases)}`),
  ];
  // json_build_object takes 100 arguments at most.
  if (pairs.length > 50) untranslated();
  const object = sql`json_build_object(${join(pairs, sql`, `)})`;
  if (!read.relation.isList) return sql`(SELECT ${object} FROM ${from} WHERE ${where})`;
  const orderBy = read.order.length ? sql` ORDER BY ${orderSql(read.order, alias, false)}` : empty;
  return sql`(SELECT coalesce(json_agg(${object}${orderBy}), '[]') FROM ${from} WHERE ${where})`;
}

/** A `where` as SQL on `alias`; true when empty. */
function whereOf(model: Model, where: unknown, alias: string, aliases: Aliases): Sql {
  if (where === undefined) return sql`TRUE`;
  if (!isPlainObject(where)) return untranslated();
  const terms: Sql[] = [];
  for (const [key, value] of Object.entries(where)) {
    if (key === 'AND' || key === 'OR') {
      const parts = (Array.isArray(value) ? value : [value]).map((part) => sql`(${whereOf(model, part, alias, aliases)})`);
      if (key === 'AND') terms.push(parts.length ? join(parts, sql` AND `) : sql`TRUE`);
      else terms.push(parts.length ? sql`(${join(parts, sql` OR `)})` : sql`FALSE`);
      continue;
    }
    const field = model.fields.get(key) ?? untranslated();
    if (field.kind === 'relation') {
      terms.push(relationFilter(field, value, alias, aliases));
      continue;
    }
    const compare = field.codec?.compare ?? untranslated();
    const column = compare.column(sql`${identifier(alias, field.column)}`);
    if (value === null) terms.push(sql`${column} IS NULL`);
    else if (value instanceof Slot) terms.push(sql`${column} = ${parameterOf(field, value)}`);
    else terms.push(...scalarFilter(field, column, value));
  }
  return terms.length ? join(terms, sql` AND `) : sql`TRUE`;
}

/** A value compared with a field, sent as its codec writes it; a value of another kind goes to Prisma. */
function parameterOf(field: Scalar, value: unknown): Parameter {
  const compare = field.codec?.compare;
  if (!compare || !(value instanceof Slot) || !compare.kinds.includes(value.kind)) return untranslated();
  return new Parameter(value.index, compare.write);
}

function scalarFilter(field: Scalar, column: Sql, filter: unknown): Sql[] {
  if (!isPlainObject(filter)) return untranslated();
  const { mode, ...operators } = filter;
  if (mode !== undefined && mode !== 'default' && mode !== 'insensitive') untranslated();
  const allowed = field.codec!.compare!.comparisons;
  return Object.entries(operators).map(([operator, operand]) => {
    if (!allowed.includes(operator as Comparison)) return untranslated();
    if (operator === 'in') {
      // One array parameter, whatever the list's length; an empty list matches nothing, as in Prisma.
      if (!(operand instanceof Slot) || operand.kind !== 'strings') return untranslated();
      return sql`${column} = ANY(${parameterOf(field, operand)}::text[])`;
    }
    if (operand instanceof Slot && operand.kind === 'strings') return untranslated();
    if (operator === 'contains') {
      // Prisma passes the operand to (I)LIKE as it is: %, _ and \ keep their LIKE meanings.
      return sql`${column}::text ${mode === 'insensitive' ? sql`ILIKE` : sql`LIKE`} '%' || ${parameterOf(field, operand)}::text || '%'`;
    }
    if (mode === 'insensitive') untranslated();
    return sql`${column} ${comparisons[operator as keyof typeof comparisons]} ${parameterOf(field, operand)}`;
  });
}

/** `{ some: where }` on a list relation; other relation filters go to Prisma. */
function relationFilter(relation: Relation, filter: unknown, alias: string, aliases: Aliases): Sql {
  if (!relation.isList || !isPlainObject(filter) || Object.keys(filter).length !== 1 || !('some' in filter)) return untranslated();
  const inner = aliases.next();
  const { from, where } = relationSource(relation, alias, inner, aliases);
  return sql`EXISTS (SELECT 1 FROM ${from} WHERE ${where} AND (${whereOf(relation.target, filter['some'], inner, aliases)}))`;
}

/** The rows after (or, taking backwards, before) the cursor's row in the order, the cursor's row included, as Prisma pages. */
function cursorCondition(model: Model, order: OrderTerm[], cursor: unknown, backwards: boolean, alias: string): Sql {
  const entries = isPlainObject(cursor) ? Object.entries(cursor) : [];
  if (entries.length !== 1) untranslated();
  const [name, value] = entries[0]!;
  const key = model.fields.get(name);
  if (!key || key.kind !== 'scalar' || !model.uniqueFields.has(name) || !order.some((term) => term.field === key) || order.some((term) => !term.field.isRequired)) untranslated();
  // One parameter, however many times the condition names the cursor's row.
  const keyValue = parameterOf(key as Scalar, value);
  const cursorValue = (field: Scalar) => sql`(SELECT ${identifier(field.column)} FROM ${identifier(model.table)} WHERE ${identifier((key as Scalar).column)} = ${keyValue})`;
  const alternatives = order.map((term, index) => {
    const equalBefore = order.slice(0, index).map((earlier) => sql`${identifier(alias, earlier.field.column)} = ${cursorValue(earlier.field)}`);
    const forward = term.ascending !== backwards;
    const comparison = index === order.length - 1 ? (forward ? sql`>=` : sql`<=`) : forward ? sql`>` : sql`<`;
    return sql`(${join([...equalBefore, sql`${identifier(alias, term.field.column)} ${comparison} ${cursorValue(term.field)}`], sql` AND `)})`;
  });
  return sql`(${join(alternatives, sql` OR `)})`;
}

/** `orderBy` as Prisma takes it: an object or a list of them, of scalar fields to 'asc' or 'desc'. */
function orderTerms(model: Model, orderBy: unknown): OrderTerm[] {
  if (orderBy === undefined) return [];
  return (Array.isArray(orderBy) ? orderBy : [orderBy]).flatMap((entry: unknown) => {
    if (!isPlainObject(entry)) return untranslated();
    return Object.entries(entry).map(([name, direction]) => {
      const field = model.fields.get(name);
      if (!field || field.kind !== 'scalar' || !field.codec?.orderable || (direction !== 'asc' && direction !== 'desc')) return untranslated();
      return { field: field as ReadScalar, ascending: direction === 'asc' };
    });
  });
}

function orderSql(order: OrderTerm[], alias: string, backwards: boolean): Sql {
  return join(
    order.map((term) => sql`${identifier(alias, term.field.column)} ${term.ascending !== backwards ? sql`ASC` : sql`DESC`}`),
    sql`, `,
  );
}
