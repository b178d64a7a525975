import { codecOf, type Codec } from './codecs.js';
import type { MappedModel, MappedRelation, ModelMap } from './model-map.js';

export interface Scalar {
  kind: 'scalar';
  name: string;
  column: string;
  isRequired: boolean;
  /** Undefined when the field's values are not read here: a read that needs them goes to Prisma. */
  codec: Codec | undefined;
}

export interface Relation {
  kind: 'relation';
  name: string;
  target: Model;
  isList: boolean;
  join: Join;
}

/** A relation's join, by column: the related rows are those whose `targetColumn` equals the row's `column`, directly or through a table. */
export type Join =
  { via: 'key'; column: string; targetColumn: string } | { via: 'join table'; table: string; column: string; targetColumn: string; tableColumn: string; tableTargetColumn: string };

export interface Model {
  name: string;
  table: string;
  fields: ReadonlyMap<string, Scalar | Relation>;
  /** Every scalar, in the schema's order: what a read without `select` gives. */
  scalars: readonly Scalar[];
  /** The fields unique on their own: the keys a cursor may name. */
  uniqueFields: ReadonlySet<string>;
}

export type Models = ReadonlyMap<string, Model>;

/** A relation the reads cannot join as the schema declares it: refused when the reads are created, before a request is read wrong. */
export class RefusedRelation extends Error {
  constructor(model: string, field: string, reason: string) {
    super(
      `The SQL reads (src/db/sql-reads/) cannot read ${model}.${field}: ${reason}. Teach them this relation, or turn their fast path off (HALLOWGATE_FAST_PATHS=-direct-reads).`,
    );
  }
}

/** The models as the reads use them, with every relation's join checked. */
export function readableModels(map: ModelMap): Models {
  const models = new Map<string, Model>();
  const fields = new Map<string, Map<string, Scalar | Relation>>();
  for (const mapped of Object.values(map.models)) {
    const own = new Map<string, Scalar | Relation>();
    const scalars: Scalar[] = [];
    for (const field of mapped.fields) {
      if (field.kind === 'relation') continue;
      const scalar: Scalar = { kind: 'scalar', name: field.name, column: field.column, isRequired: field.isRequired, codec: codecOf(field, map.enums) };
      own.set(field.name, scalar);
      scalars.push(scalar);
    }
    fields.set(mapped.name, own);
    models.set(mapped.name, { name: mapped.name, table: mapped.table, fields: own, scalars, uniqueFields: new Set(mapped.uniqueFields) });
  }
  for (const mapped of Object.values(map.models)) {
    for (const field of mapped.fields) {
      if (field.kind !== 'relation') continue;
      const target = models.get(field.type);
      if (!target) throw new RefusedRelation(mapped.name, field.name, `its model ${field.type} is not in the model map`);
      fields.get(mapped.name)!.set(field.name, { kind: 'relation', name: field.name, target, isList: field.isList, join: joinOf(map, mapped, field) });
    }
  }
  return models;
}

function joinOf(map: ModelMap, model: MappedModel, field: MappedRelation): Join {
  const target = map.models[field.type]!;
  const refuse = (reason: string) => new RefusedRelation(model.name, field.name, reason);
  const columnOf = (owner: MappedModel, name: string) => {
    const scalar = owner.fields.find((candidate) => candidate.name === name && candidate.kind !== 'relation');
    if (!scalar || scalar.kind === 'relation') throw refuse(`${owner.name} has no field ${name}`);
    return scalar.column;
  };
  /** The single-field id of a model, which the joins here take the related rows by. */
  const idOf = (owner: MappedModel) => {
    if (owner.id.length !== 1) throw refuse(`${owner.name} has no single-field id (its key is ${owner.id.join(', ') || 'none'})`);
    return owner.id[0]!;
  };
  const { join } = field;
  if (join.via === 'join table') {
    if (join.selfRelation) throw refuse('it is a many-to-many relation of a model with itself');
    return {
      via: 'join table',
      table: join.table,
      column: columnOf(model, idOf(model)),
      targetColumn: columnOf(target, idOf(target)),
      tableColumn: join.column,
      tableTargetColumn: join.otherColumn,
    };
  }
  // The side the key references must be referenced by its id: only such joins are compared with Prisma's answers.
  const [keyOwner, referenced] = join.via === 'key here' ? [model, target] : [target, model];
  if (join.fields.length !== 1 || join.references.length !== 1) throw refuse(`its key is composite (${join.fields.join(', ')} references ${join.references.join(', ')})`);
  if (join.references[0] !== idOf(referenced)) throw refuse(`it joins on ${referenced.name}.${join.references[0]}, not ${referenced.name}'s id (${idOf(referenced)})`);
  const key = columnOf(keyOwner, join.fields[0]!);
  const reference = columnOf(referenced, join.references[0]!);
  return join.via === 'key here' ? { via: 'key', column: key, targetColumn: reference } : { via: 'key', column: reference, targetColumn: key };
}
