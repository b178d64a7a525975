import { Prisma } from '../../generated/prisma/client.js';
import type { MappedScalar, ModelMap } from './model-map.js';
import type { ValueKind } from './shape.js';
import { sql, type Sql } from './sql.js';

/** The comparisons of Prisma's filters translated here. */
export type Comparison = 'equals' | 'lt' | 'lte' | 'gt' | 'gte' | 'contains' | 'in';

/**
 * What the reads know of one Prisma scalar type: how to read its column (so that the driver, or
 * PostgreSQL's json of nested records, gives a value `decode` turns into Prisma's), and how filters
 * and cursors compare it with a value sent as a parameter. A field without a codec is not read here.
 */
export interface Codec {
  read(column: Sql): Sql;
  /** Prisma's value from the value read (never null); undefined when that is Prisma's value already. */
  decode: ((value: never) => unknown) | undefined;
  /** Undefined when filters on the field go to Prisma. */
  compare: Compare | undefined;
  /** Whether `orderBy` and cursors may use the field. */
  orderable: boolean;
}

interface Compare {
  /** The kinds of value (shape.ts) a filter may give: others go to Prisma, which says what is wrong. */
  kinds: readonly ValueKind[];
  comparisons: readonly Comparison[];
  /** The column as compared. */
  column(column: Sql): Sql;
  /** The parameter's value. */
  write(value: unknown): unknown;
}

const asIs = (column: Sql) => column;
const same = (value: unknown) => value;
const ordered: readonly Comparison[] = ['equals', 'lt', 'lte', 'gt', 'gte'];

/** A time as PostgreSQL reads it: toISOString writes years after 9999 with a sign and six digits (the day after 9999-12-31 ends a range). */
function postgresTimestamp(date: Date): string {
  const iso = date.toISOString();
  return iso.startsWith('+') ? iso.slice(1).replace(/^0+(?=\d{5})/, '') : iso;
}

const scalarCodecs: Readonly<Record<string, Codec>> = {
  String: { read: asIs, decode: undefined, compare: { kinds: ['string', 'strings'], comparisons: [...ordered, 'contains', 'in'], column: asIs, write: same }, orderable: true },
  Int: { read: asIs, decode: undefined, compare: { kinds: ['integer'], comparisons: ordered, column: asIs, write: same }, orderable: true },
  Float: { read: asIs, decode: undefined, compare: { kinds: ['integer', 'number'], comparisons: ordered, column: asIs, write: same }, orderable: true },
  Boolean: { read: asIs, decode: undefined, compare: { kinds: ['boolean'], comparisons: ['equals'], column: asIs, write: same }, orderable: true },
  // Exact as text: numeric and int8 go past what a JavaScript number holds.
  Decimal: {
    read: (column) => sql`${column}::text`,
    decode: (value: string) => new Prisma.Decimal(value),
    compare: { kinds: ['decimal', 'integer', 'number'], comparisons: ordered, column: asIs, write: String },
    orderable: true,
  },
  BigInt: {
    read: (column) => sql`${column}::text`,
    decode: (value: string) => BigInt(value),
    compare: { kinds: ['bigint', 'integer'], comparisons: ordered, column: asIs, write: String },
    orderable: true,
  },
  DateTime: {
    // Epoch milliseconds. date_part's float8 costs PostgreSQL a third of extract's numeric. Prisma's
    // times are whole milliseconds (timestamp(3)), which rounding gives back exactly while float8's
    // error stays under half of one: up to the year 144,000. Later times (up to PostgreSQL's 294,276) take numeric.
    read: (column) => sql`CASE WHEN ${column} < '100000-01-01' THEN round(date_part('epoch', ${column}) * 1000) ELSE (extract(epoch from ${column}) * 1000)::float8 END`,
    decode: (value: number) => new Date(value),
    // Dates only: PostgreSQL would drop the offset of a time given as text.
    compare: { kinds: ['date'], comparisons: ordered, column: asIs, write: (value) => postgresTimestamp(value as Date) },
    orderable: true,
  },
  Json: { read: asIs, decode: undefined, compare: undefined, orderable: false },
};

/** Lists the driver and PostgreSQL's json give as Prisma does. */
const listCodecs: Readonly<Record<string, Codec>> = Object.fromEntries(
  ['String', 'Boolean', 'Int', 'Float'].map((type) => [type, { read: asIs, decode: undefined, compare: undefined, orderable: false }]),
);

/** An enum, read and compared as text: a value that is no label of the enum matches nothing instead of failing the statement. */
function enumCodec(values: Readonly<Record<string, string>>, isList: boolean): Codec {
  const mapped = Object.entries(values).some(([name, label]) => name !== label);
  const names = new Map(Object.entries(values).map(([name, label]) => [label, name]));
  const nameOf = (label: string) => names.get(label) ?? label;
  if (isList) {
    return { read: (column) => sql`${column}::text[]`, decode: mapped ? (labels: string[]) => labels.map(nameOf) : undefined, compare: undefined, orderable: false };
  }
  return {
    read: (column) => sql`${column}::text`,
    decode: mapped ? nameOf : undefined,
    compare: { kinds: ['string'], comparisons: ['equals'], column: (column) => sql`${column}::text`, write: (value) => values[value as string] ?? value },
    orderable: true,
  };
}

/** The codec of a field; undefined when its values are not read here (Bytes, lists of times or numbers kept as text). */
export function codecOf(field: MappedScalar, enums: ModelMap['enums']): Codec | undefined {
  if (field.kind === 'enum') return enumCodec(enums[field.type] ?? {}, field.isList);
  return (field.isList ? listCodecs : scalarCodecs)[field.type];
}
