import { createHash } from 'node:crypto';
import { Prisma, type PrismaClient } from '../generated/prisma/client.js';
import { getDatamodel } from '../generated/pothos-types.js';
import type { ReadRows } from './connection.js';

/**
 * Prisma's findMany and findUnique for the reads the GraphQL root fields send (a model with its
 * scalars and relations, filtered, ordered, paged by cursor), run as one SQL statement through the
 * driver (readRows) and answered with the objects Prisma would give: the same values, `Date`,
 * `Prisma.Decimal` and `bigint` included. Prisma's client spends more CPU on such a read than
 * everything else on the request does (planning, rows to tagged values, tagged values to objects);
 * PostgreSQL builds the nested relations here, as json. Arguments outside what is translated here
 * go to Prisma unchanged, so the answer never depends on which path ran.
 */
export interface DirectReads {
  /** With a companion, its value is read in the same statement when the rows are read here; `receive` gets undefined otherwise. */
  findMany<Args, Answer>(delegate: { findMany(args: Args): PromiseLike<Answer> }, model: Prisma.ModelName, args: Args, companion?: Companion): Promise<Answer>;
  findUnique<Args, Answer>(delegate: { findUnique(args: Args): PromiseLike<Answer> }, model: Prisma.ModelName, args: Args): Promise<Answer>;
}

/**
 * Another read of the same request that rides along as one more column of a list's statement (a
 * statement costs more than the lookup in it). Its SQL must not refer to the rows: PostgreSQL then
 * evaluates it once. It comes back on one of the rows, so an empty list brings nothing.
 */
export interface Companion {
  /** The column's SQL, a scalar subquery, taking its parameters through `parameter`. */
  column(parameter: (value: unknown) => string): string;
  /** Called once: with the column's value (as the driver parses it), or undefined when there was none. */
  receive(value: unknown): void;
}

const companionColumn = '__companion';

interface Field {
  name: string;
  column: string;
  kind: 'scalar' | 'enum' | 'object';
  type: string;
  isList: boolean;
  isRequired: boolean;
  relationName?: string;
  /** The foreign key fields on this side of a relation (empty on the side without them). */
  relationFromFields?: readonly string[];
}

interface Model {
  name: string;
  table: string;
  /** The column of the single-field id, which relations reference (every @relation here references an id). */
  idColumn: string | undefined;
  fields: Map<string, Field>;
  scalars: Field[];
}

type Models = Map<string, Model>;

/** Not translated here: the read goes to Prisma. */
class Unsupported extends Error {}

const unsupported = (): never => {
  throw new Unsupported();
};

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The models with their relations (from the Pothos datamodel) and their table and column names (@@map, @map: only the client's runtime model holds them). */
function loadModels(prisma: PrismaClient): Models {
  const runtime = (prisma as unknown as { _runtimeDataModel: { models: Record<string, { dbName: string | null; fields: { name: string; dbName?: string | null }[] }> } })
    ._runtimeDataModel.models;
  const models: Models = new Map();
  for (const [name, model] of Object.entries(getDatamodel().datamodel.models)) {
    const columns = new Map(runtime[name]!.fields.map((field) => [field.name, field.dbName ?? field.name]));
    const fields = new Map<string, Field>(
      model.fields.map((field) => [
        field.name,
        {
          name: field.name,
          column: columns.get(field.name) ?? field.name,
          kind: field.kind as Field['kind'],
          type: field.type,
          isList: field.isList,
          isRequired: field.isRequired,
          ...('relationName' in field && field.relationName ? { relationName: field.relationName } : {}),
          ...('relationFromFields' in field && field.relationFromFields ? { relationFromFields: field.relationFromFields } : {}),
        },
      ]),
    );
    const id = model.fields.find((field) => 'isId' in field && field.isId);
    models.set(name, {
      name,
      table: runtime[name]!.dbName ?? name,
      idColumn: id ? fields.get(id.name)!.column : undefined,
      fields,
      scalars: [...fields.values()].filter((field) => field.kind !== 'object'),
    });
  }
  return models;
}

/** A time as PostgreSQL reads it: toISOString writes years after 9999 with a sign and six digits (the day after 9999-12-31 ends a range). */
function postgresTimestamp(date: Date): string {
  const iso = date.toISOString();
  return iso.startsWith('+') ? iso.slice(1).replace(/^0+(?=\d{5})/, '') : iso;
}

/** One statement being written: its parameters and a fresh alias per table it reads. */
class Statement {
  values: unknown[] = [];
  constructor(private aliases = 0) {}
  /** How many aliases are taken. */
  get aliasCount(): number {
    return this.aliases;
  }
  alias(): string {
    return `t${this.aliases++}`;
  }
  parameter(value: unknown): string {
    this.values.push(value instanceof Date ? postgresTimestamp(value) : value instanceof Prisma.Decimal || typeof value === 'bigint' ? value.toString() : value);
    return `$${this.values.length}`;
  }
}

/** A column as this module reads it: times as epoch milliseconds, numbers PostgreSQL keeps exactly as text. */
function readColumn(field: Field, alias: string): string {
  const column = `${alias}.${quote(field.column)}`;
  if (field.kind === 'enum') return field.isList ? `${column}::text[]` : `${column}::text`;
  if (field.isList) return field.type === 'String' || field.type === 'Boolean' ? column : unsupported();
  switch (field.type) {
    case 'DateTime':
      // date_part's float8 costs PostgreSQL a third of extract's numeric. Prisma's times are whole
      // milliseconds (timestamp(3)), which rounding gives back exactly while float8's error stays
      // under half of one: up to the year 144,000. Later times (up to PostgreSQL's 294,276) take numeric.
      return `CASE WHEN ${column} < '100000-01-01' THEN round(date_part('epoch', ${column}) * 1000) ELSE (extract(epoch from ${column}) * 1000)::float8 END`;
    case 'Decimal':
    case 'BigInt':
      return `${column}::text`;
    case 'Bytes':
      return unsupported();
    default:
      return column;
  }
}

/** Prisma's value of a column read by readColumn. */
function toPrismaValue(field: Field, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (field.type) {
    case 'DateTime':
      return new Date(value as number);
    case 'Decimal':
      return new Prisma.Decimal(value as string);
    case 'BigInt':
      return BigInt(value as string);
    default:
      return value;
  }
}

interface Selection {
  scalars: Field[];
  relations: { field: Field; target: Model; selection: Selection; order: OrderTerm[] }[];
}

/** The fields `include` or `select` ask for (Prisma's rules: include adds relations to every scalar). */
function selectionOf(models: Models, model: Model, args: { include?: unknown; select?: unknown }): Selection {
  if (args.include !== undefined && args.select !== undefined) unsupported();
  const chosen = (args.select ?? args.include ?? {}) as Record<string, unknown>;
  if (typeof chosen !== 'object' || chosen === null) unsupported();
  const scalars = args.select === undefined ? model.scalars : [];
  const relations: Selection['relations'] = [];
  for (const [name, value] of Object.entries(chosen)) {
    if (value === undefined || value === false) continue;
    const field = model.fields.get(name) ?? unsupported();
    if (field.kind !== 'object') {
      if (value !== true || args.select === undefined) unsupported();
      scalars.push(field);
      continue;
    }
    const target = models.get(field.type)!;
    const nested = (value === true ? {} : value) as Record<string, unknown>;
    if (Object.keys(nested).some((key) => key !== 'include' && key !== 'select' && key !== 'orderBy')) unsupported();
    relations.push({ field, target, selection: selectionOf(models, target, nested), order: orderTerms(target, nested['orderBy']) });
  }
  return { scalars, relations };
}

/** The key of a list relation's join: the foreign key on the related model, or the implicit many-to-many table. */
function relationSource(models: Models, parent: Model, field: Field, parentAlias: string, alias: string, statement: Statement): { from: string; where: string } {
  const target = models.get(field.type)!;
  const back = [...target.fields.values()].find((other) => other.relationName === field.relationName && other !== field)!;
  const idOf = (model: Model, tableAlias: string) => `${tableAlias}.${quote(model.idColumn ?? unsupported())}`;
  if (field.relationFromFields?.length) {
    // This side holds the foreign key: to one.
    const key = parent.fields.get(field.relationFromFields[0]!)!;
    return { from: `${quote(target.table)} AS ${alias}`, where: `${idOf(target, alias)} = ${parentAlias}.${quote(key.column)}` };
  }
  if (back.relationFromFields?.length) {
    const key = target.fields.get(back.relationFromFields[0]!)!;
    return { from: `${quote(target.table)} AS ${alias}`, where: `${alias}.${quote(key.column)} = ${idOf(parent, parentAlias)}` };
  }
  // Implicit many-to-many: _<A>To<B>, column A for the model whose name sorts first.
  const join = statement.alias();
  const [parentColumn, targetColumn] = parent.name < target.name ? ['A', 'B'] : ['B', 'A'];
  return {
    from: `${quote(`_${field.relationName}`)} AS ${join} JOIN ${quote(target.table)} AS ${alias} ON ${idOf(target, alias)} = ${join}.${quote(targetColumn)}`,
    where: `${join}.${quote(parentColumn)} = ${idOf(parent, parentAlias)}`,
  };
}

/** A related record, or a list of them, as one json value. */
function relationColumn(models: Models, parent: Model, relation: Selection['relations'][number], parentAlias: string, statement: Statement): string {
  const alias = statement.alias();
  const { from, where } = relationSource(models, parent, relation.field, parentAlias, alias, statement);
  const pairs = [
    ...relation.selection.scalars.map((field) => `'${field.name}', ${readColumn(field, alias)}`),
    ...relation.selection.relations.map((nested) => `'${nested.field.name}', ${relationColumn(models, relation.target, nested, alias, statement)}`),
  ];
  if (pairs.length > 50) unsupported();
  const object = `json_build_object(${pairs.join(', ')})`;
  const orderBy = orderSql(relation.order, alias, false);
  if (!relation.field.isList) return `(SELECT ${object} FROM ${from} WHERE ${where})`;
  return `(SELECT coalesce(json_agg(${object}${orderBy.length ? ` ORDER BY ${orderBy.join(', ')}` : ''}), '[]') FROM ${from} WHERE ${where})`;
}

type RowBuilder = (row: readonly unknown[]) => Record<string, unknown>;

/**
 * Prisma's object from a row of a select list's columns, read in the driver's array row mode. The
 * builder is written once per select list as one object literal, so every row takes its final shape
 * at once: the driver's own row objects, then rewritten time by time, cost about 90 µs more CPU per
 * read of 96 bookings (8 % of such a request). The names are the datamodel's, quoted as JSON strings.
 */
function rowBuilderOf(selection: Selection): RowBuilder {
  const scalarValue = (field: Field, index: number) => {
    const value = `row[${index}]`;
    if (field.type === 'DateTime') return `${value} === null ? null : new Date(${value})`;
    if (field.type === 'Decimal' || field.type === 'BigInt') return `${value} === null ? null : toPrismaValue(scalars[${index}], ${value})`;
    return value;
  };
  const entries = [
    ...selection.scalars.map((field, index) => `${JSON.stringify(field.name)}: ${scalarValue(field, index)}`),
    ...selection.relations.map((relation, offset) => `${JSON.stringify(relation.field.name)}: relationValue(relations[${offset}], row[${selection.scalars.length + offset}])`),
  ];
  const compile = new Function('toPrismaValue', 'relationValue', 'scalars', 'relations', `return (row) => ({ ${entries.join(', ')} });`) as (
    ...helpers: [typeof toPrismaValue, typeof relationValue, Field[], Selection['relations']]
  ) => RowBuilder;
  return compile(toPrismaValue, relationValue, selection.scalars, selection.relations);
}

/** A relation's json as Prisma gives it: its records' values converted, null when there is none. */
function relationValue(relation: Selection['relations'][number], value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (relation.field.isList) toPrismaObjects(relation.selection, value as Record<string, unknown>[]);
  else toPrismaObjects(relation.selection, [value as Record<string, unknown>]);
  return value;
}

/** Prisma's objects from the json of relations (the records PostgreSQL nested), converted in place. */
function toPrismaObjects(selection: Selection, rows: Record<string, unknown>[]): Record<string, unknown>[] {
  for (const row of rows) {
    for (const field of selection.scalars) {
      if (field.type === 'DateTime' || field.type === 'Decimal' || field.type === 'BigInt') row[field.name] = toPrismaValue(field, row[field.name]);
    }
    for (const relation of selection.relations) row[relation.field.name] = relationValue(relation, row[relation.field.name]);
  }
  return rows;
}

const filterOperators: Record<string, string> = { equals: '=', lt: '<', lte: '<=', gt: '>', gte: '>=' };

/** A `where` as SQL on `alias`; true when empty. */
function whereOf(models: Models, model: Model, where: unknown, alias: string, statement: Statement): string {
  if (where === undefined || where === null) return 'TRUE';
  if (typeof where !== 'object' || Array.isArray(where)) unsupported();
  const terms: string[] = [];
  for (const [key, value] of Object.entries(where as Record<string, unknown>)) {
    if (value === undefined) continue;
    if (key === 'AND' || key === 'OR') {
      const parts = (Array.isArray(value) ? value : [value]).map((part) => `(${whereOf(models, model, part, alias, statement)})`);
      if (key === 'AND') terms.push(parts.length ? parts.join(' AND ') : 'TRUE');
      else terms.push(parts.length ? `(${parts.join(' OR ')})` : 'FALSE');
      continue;
    }
    const field = model.fields.get(key) ?? unsupported();
    if (field.kind === 'object') {
      terms.push(relationFilter(models, model, field, value, alias, statement));
      continue;
    }
    if (field.isList || field.type === 'Json' || field.type === 'Bytes') unsupported();
    // Enums compare as text: a value that is no label of the enum matches nothing instead of failing the statement.
    const column = field.kind === 'enum' ? `${alias}.${quote(field.column)}::text` : `${alias}.${quote(field.column)}`;
    if (field.kind === 'enum' && typeof value === 'object' && value !== null && Object.keys(value).some((operator) => operator !== 'equals')) unsupported();
    if (value === null) {
      terms.push(`${column} IS NULL`);
      continue;
    }
    if (typeof value !== 'object' || value instanceof Date || value instanceof Prisma.Decimal) {
      terms.push(`${column} = ${statement.parameter(value)}`);
      continue;
    }
    terms.push(...scalarFilter(column, value as Record<string, unknown>, statement));
  }
  return terms.length ? terms.join(' AND ') : 'TRUE';
}

function scalarFilter(column: string, filter: Record<string, unknown>, statement: Statement): string[] {
  const { mode, ...operators } = filter;
  if (mode !== undefined && mode !== 'default' && mode !== 'insensitive') unsupported();
  const terms: string[] = [];
  for (const [operator, operand] of Object.entries(operators)) {
    if (operand === undefined) continue;
    if (operator === 'contains' && typeof operand === 'string') {
      // Prisma passes the operand to (I)LIKE as it is: %, _ and \ keep their LIKE meanings.
      terms.push(`${column}::text ${mode === 'insensitive' ? 'ILIKE' : 'LIKE'} '%' || ${statement.parameter(operand)}::text || '%'`);
      continue;
    }
    const sql = filterOperators[operator];
    if (!sql || mode === 'insensitive' || operand === null || (typeof operand === 'object' && !(operand instanceof Date) && !(operand instanceof Prisma.Decimal))) unsupported();
    terms.push(`${column} ${sql} ${statement.parameter(operand)}`);
  }
  return terms;
}

/** `{ some: where }` on a list relation; other relation filters go to Prisma. */
function relationFilter(models: Models, model: Model, field: Field, filter: unknown, alias: string, statement: Statement): string {
  const keys = Object.keys(filter as object);
  if (!field.isList || keys.length !== 1 || keys[0] !== 'some') unsupported();
  const target = models.get(field.type)!;
  const inner = statement.alias();
  const { from, where } = relationSource(models, model, field, alias, inner, statement);
  return `EXISTS (SELECT 1 FROM ${from} WHERE ${where} AND (${whereOf(models, target, (filter as { some: unknown }).some, inner, statement)}))`;
}

interface FindArgs {
  include?: unknown;
  select?: unknown;
  where?: unknown;
  orderBy?: unknown;
  take?: number;
  skip?: number;
  cursor?: Record<string, unknown>;
}

const knownArgs = new Set(['include', 'select', 'where', 'orderBy', 'take', 'skip', 'cursor']);

/** The rows after (or, taking backwards, before) the cursor's row in the order, the cursor's row included, as Prisma pages. */
function cursorCondition(model: Model, order: OrderTerm[], cursor: Record<string, unknown>, backwards: boolean, alias: string, statement: Statement): string {
  const entries = Object.entries(cursor);
  if (entries.length !== 1) unsupported();
  const [name, value] = entries[0]!;
  const key = model.fields.get(name);
  if (!key || key.kind === 'object' || !order.some((term) => term.field === key) || order.some((term) => !term.field.isRequired)) unsupported();
  const cursorValue = (field: Field) => `(SELECT ${quote(field.column)} FROM ${quote(model.table)} WHERE ${quote(key!.column)} = ${statement.parameter(value)})`;
  const alternatives = order.map((term, index) => {
    const equalBefore = order.slice(0, index).map((earlier) => `${alias}.${quote(earlier.field.column)} = ${cursorValue(earlier.field)}`);
    const forward = term.ascending !== backwards;
    const comparison = index === order.length - 1 ? (forward ? '>=' : '<=') : forward ? '>' : '<';
    return `(${[...equalBefore, `${alias}.${quote(term.field.column)} ${comparison} ${cursorValue(term.field)}`].join(' AND ')})`;
  });
  return `(${alternatives.join(' OR ')})`;
}

/** The select list of a read: the same for every read with the same model and `select`/`include`, whatever its filters and page. */
interface SelectList {
  selection: Selection;
  columns: string;
  /** Aliases the list takes: the root table's (t0) and its relations'. */
  aliases: number;
  /** Prisma's object from a row of these columns; a companion's column comes after them. */
  build: RowBuilder;
}

function selectListOf(models: Models, model: Model, args: FindArgs): SelectList {
  const statement = new Statement();
  const alias = statement.alias();
  const selection = selectionOf(models, model, args);
  const columns = [
    ...selection.scalars.map((field) => `${readColumn(field, alias)} AS ${quote(field.name)}`),
    ...selection.relations.map((relation) => `${relationColumn(models, model, relation, alias, statement)} AS ${quote(relation.field.name)}`),
  ];
  if (columns.length === 0 || statement.values.length > 0) unsupported();
  return { selection, columns: columns.join(', '), aliases: statement.aliasCount, build: rowBuilderOf(selection) };
}

function translate(model: Model, selectList: SelectList, args: FindArgs, models: Models, companion: Companion | undefined) {
  const statement = new Statement(selectList.aliases);
  const alias = 't0';
  const where = [whereOf(models, model, args.where, alias, statement)];
  const take = args.take;
  if (take !== undefined && !Number.isInteger(take)) unsupported();
  if (args.skip !== undefined && (!Number.isInteger(args.skip) || args.skip < 0)) unsupported();
  const backwards = take !== undefined && take < 0;
  const order = orderTerms(model, args.orderBy);
  if (args.cursor !== undefined) where.push(cursorCondition(model, order, args.cursor, backwards, alias, statement));
  const orderBy = orderSql(order, alias, backwards).join(', ');
  // The page is cut from the rows as they are stored, and only its rows are converted and given their
  // relations: a sort below the limit would compute the select list for every row it weighs.
  const page = [
    `SELECT * FROM ${quote(model.table)} AS ${alias} WHERE ${where.join(' AND ')}`,
    orderBy ? `ORDER BY ${orderBy}` : '',
    take !== undefined ? `LIMIT ${statement.parameter(Math.abs(take))}` : '',
    args.skip ? `OFFSET ${statement.parameter(args.skip)}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  // On one row only (the driver would parse it on each), and last, after the columns the rows are built from.
  const columns = companion
    ? `${selectList.columns}, CASE WHEN row_number() OVER () = 1 THEN ${companion.column((value) => statement.parameter(value))} END AS ${quote(companionColumn)}`
    : selectList.columns;
  const text = `SELECT ${columns} FROM (${page}) AS ${alias}${orderBy ? ` ORDER BY ${orderBy}` : ''}`;
  return { text, values: statement.values, selectList, backwards };
}

interface OrderTerm {
  field: Field;
  ascending: boolean;
}

/** `orderBy` as Prisma takes it: an object or a list of them, of scalar fields to 'asc' or 'desc'. */
function orderTerms(model: Model, orderBy: unknown): OrderTerm[] {
  if (orderBy === undefined) return [];
  return (Array.isArray(orderBy) ? orderBy : [orderBy]).flatMap((entry) =>
    Object.entries(entry as Record<string, unknown>).map(([name, direction]) => {
      const field = model.fields.get(name);
      if (!field || field.kind === 'object' || (direction !== 'asc' && direction !== 'desc')) unsupported();
      return { field: field!, ascending: direction === 'asc' };
    }),
  );
}

function orderSql(order: OrderTerm[], alias: string, backwards: boolean): string[] {
  return order.map((term) => `${alias}.${quote(term.field.column)} ${term.ascending !== backwards ? 'ASC' : 'DESC'}`);
}

/**
 * Statements named (prepared once per connection) for the first texts seen, select lists kept for
 * the first shapes seen; later ones are not, so what is kept stays bounded whatever clients send.
 */
const maxNamedStatements = 500;
const maxSelectLists = 500;

export function createDirectReads(prisma: PrismaClient, readRows: ReadRows): DirectReads {
  const models = loadModels(prisma);
  const names = new Map<string, string>();
  const nameOf = (text: string): string | undefined => {
    let name = names.get(text);
    if (name === undefined && names.size < maxNamedStatements) {
      name = `direct_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
      names.set(text, name);
    }
    return name;
  };
  const selectLists = new Map<string, SelectList | Unsupported>();
  const selectListFor = (model: Model, args: FindArgs): SelectList => {
    const key = `${model.name} ${JSON.stringify(args.select ?? null)} ${JSON.stringify(args.include ?? null)}`;
    let selectList = selectLists.get(key);
    if (selectList === undefined) {
      try {
        selectList = selectListOf(models, model, args);
      } catch (error) {
        if (!(error instanceof Unsupported)) throw error;
        selectList = error;
      }
      if (selectLists.size < maxSelectLists) selectLists.set(key, selectList);
    }
    if (selectList instanceof Unsupported) throw selectList;
    return selectList;
  };
  /** The rows as Prisma objects, and the companion's value; undefined when the read is not translated here. */
  async function read(modelName: string, args: FindArgs, companion?: Companion) {
    let translated: ReturnType<typeof translate>;
    try {
      if (Object.keys(args).some((key) => !knownArgs.has(key) && (args as Record<string, unknown>)[key] !== undefined)) unsupported();
      const model = models.get(modelName) ?? unsupported();
      translated = translate(model, selectListFor(model, args), args, models, companion);
    } catch (error) {
      if (error instanceof Unsupported) return undefined;
      throw error;
    }
    const rows = await readRows<unknown[]>({ name: nameOf(translated.text), text: translated.text, values: translated.values, rowMode: 'array' });
    const { selection, build } = translated.selectList;
    const companionIndex = selection.scalars.length + selection.relations.length;
    const companionValue = companion ? rows.find((row) => row[companionIndex] !== null)?.[companionIndex] : undefined;
    const objects = rows.map(build);
    return { objects: translated.backwards ? objects.reverse() : objects, companionValue };
  }
  return {
    async findMany(delegate, model, args, companion) {
      let answer: Awaited<ReturnType<typeof read>>;
      try {
        answer = await read(model, args as FindArgs, companion);
      } catch (error) {
        companion?.receive(undefined);
        throw error;
      }
      companion?.receive(answer?.companionValue);
      return (answer?.objects ?? (await delegate.findMany(args))) as never;
    },
    async findUnique(delegate, model, args) {
      const answer = await read(model, { ...(args as FindArgs), take: 1 });
      if (answer === undefined) return delegate.findUnique(args);
      return (answer.objects[0] ?? null) as never;
    },
  };
}
