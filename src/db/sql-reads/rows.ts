import type { ReadRelation, Selection } from './compile.js';

/** Prisma's record from a row of the driver's array rows (a PiggybackedRead's column, if any, comes after the selection's). */
export type RowDecoder = (row: readonly unknown[]) => Record<string, unknown>;

type Decode = (value: never) => unknown;

/**
 * The decoder of a selection's rows, written once per compiled read as one object literal, so every
 * record takes its final shape at once (the driver's own row objects, then rewritten field by field,
 * cost more CPU). The only code generated at run time: property names (as
 * JSON strings) and calls of the codecs' `decode` and of the relations' decoders, nothing else.
 */
export function rowDecoderOf(selection: Selection): RowDecoder {
  const helpers: (Decode | RelationDecoder)[] = [];
  const helper = (decode: Decode | RelationDecoder) => `helpers[${helpers.push(decode) - 1}]`;
  const entries = [
    ...selection.scalars.map(({ name, codec }, index) => {
      const value = `row[${index}]`;
      return `${JSON.stringify(name)}: ${codec.decode ? `${value} === null ? null : ${helper(codec.decode)}(${value})` : value}`;
    }),
    ...selection.relations.map((read, offset) => `${JSON.stringify(read.relation.name)}: ${helper(relationDecoderOf(read))}(row[${selection.scalars.length + offset}])`),
  ];
  const compile = new Function('helpers', `return (row) => ({ ${entries.join(', ')} });`) as (helpers: readonly (Decode | RelationDecoder)[]) => RowDecoder;
  return compile(helpers);
}

type RelationDecoder = (value: unknown) => unknown;

/** A relation's json as Prisma gives it: its records' values decoded in place, null when there is none. */
function relationDecoderOf(read: ReadRelation): RelationDecoder {
  const decoded = read.selection.scalars.filter((field) => field.codec.decode).map((field) => ({ name: field.name, decode: field.codec.decode! }));
  const nested = read.selection.relations.map((inner) => ({ name: inner.relation.name, decode: relationDecoderOf(inner) }));
  const decodeRecord = (record: Record<string, unknown>) => {
    for (const { name, decode } of decoded) if (record[name] !== null) record[name] = decode(record[name] as never);
    for (const { name, decode } of nested) record[name] = decode(record[name]);
  };
  return (value) => {
    if (value === null || value === undefined) return null;
    if (read.relation.isList) (value as Record<string, unknown>[]).forEach(decodeRecord);
    else decodeRecord(value as Record<string, unknown>);
    return value;
  };
}
