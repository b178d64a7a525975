import type { DMMF } from '@prisma/generator-helper';

/**
 * The tables and columns the SQL reads read, as `prisma generate` describes the schema: the generator
 * (generator.ts) writes it to src/generated/sql-reads/model-map.ts. Names are Prisma's; `table` and
 * `column` are the database's (@@map, @map).
 */
export interface ModelMap {
  models: Readonly<Record<string, MappedModel>>;
  /** Each enum's values: Prisma's name to the database's label (they differ under @map). */
  enums: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

export interface MappedModel {
  name: string;
  table: string;
  /** The fields of its primary key (several for @@id). */
  id: readonly string[];
  /** The fields unique on their own (@id, @unique): the keys a cursor may name. */
  uniqueFields: readonly string[];
  fields: readonly MappedField[];
}

export type MappedField = MappedScalar | MappedRelation;

export interface MappedScalar {
  kind: 'scalar' | 'enum';
  name: string;
  column: string;
  /** The Prisma scalar type (String, DateTime…) or the enum's name. */
  type: string;
  isList: boolean;
  isRequired: boolean;
}

export interface MappedRelation {
  kind: 'relation';
  name: string;
  /** The related model. */
  type: string;
  isList: boolean;
  isRequired: boolean;
  join: RelationJoin;
}

/** How a relation's rows are found, as the schema declares it (@relation fields and references). */
export type RelationJoin =
  /** This model holds the key: `fields` here equal `references` of the related model, pair by pair. */
  | { via: 'key here'; fields: readonly string[]; references: readonly string[] }
  /** The related model holds the key: its `fields` equal `references` here, pair by pair. */
  | { via: 'key there'; fields: readonly string[]; references: readonly string[] }
  /**
   * An implicit many-to-many relation's table: `column` holds this model's id, `otherColumn` the
   * related model's. `selfRelation` when both sides are one model (whose columns are not told apart here).
   */
  | { via: 'join table'; table: string; column: string; otherColumn: string; selfRelation: boolean };

/** The model map of a schema's datamodel, as Prisma gives it to generators. */
export function mapModels(datamodel: DMMF.Datamodel): ModelMap {
  const models = Object.fromEntries(datamodel.models.map((model) => [model.name, mapModel(datamodel, model)]));
  const enums = Object.fromEntries(
    datamodel.enums.map((declared) => [declared.name, Object.fromEntries(declared.values.map((value) => [value.name, value.dbName ?? value.name]))]),
  );
  return { models, enums };
}

function mapModel(datamodel: DMMF.Datamodel, model: DMMF.Model): MappedModel {
  return {
    name: model.name,
    table: model.dbName ?? model.name,
    id: model.primaryKey?.fields ?? model.fields.filter((field) => field.isId).map((field) => field.name),
    uniqueFields: model.fields.filter((field) => field.isId || field.isUnique).map((field) => field.name),
    fields: model.fields.flatMap((field): MappedField[] => {
      const common = { name: field.name, isList: field.isList, isRequired: field.isRequired };
      if (field.kind === 'object') return [{ kind: 'relation', ...common, type: field.type, join: joinOf(datamodel, model, field) }];
      if (field.kind === 'scalar' || field.kind === 'enum') return [{ kind: field.kind, ...common, column: field.dbName ?? field.name, type: field.type }];
      // Unsupported("…") columns are not in Prisma's client either.
      return [];
    }),
  };
}

function joinOf(datamodel: DMMF.Datamodel, model: DMMF.Model, field: DMMF.Field): RelationJoin {
  if (field.relationFromFields?.length) return { via: 'key here', fields: field.relationFromFields, references: field.relationToFields ?? [] };
  const target = datamodel.models.find((candidate) => candidate.name === field.type)!;
  const back = target.fields.find((other) => other.relationName === field.relationName && !(target.name === model.name && other.name === field.name));
  if (back?.relationFromFields?.length) return { via: 'key there', fields: back.relationFromFields, references: back.relationToFields ?? [] };
  // Prisma's convention for implicit many-to-many tables: _<relation name>, column A for the model whose name sorts first.
  const [column, otherColumn] = model.name < target.name ? ['A', 'B'] : ['B', 'A'];
  return { via: 'join table', table: `_${field.relationName}`, column, otherColumn, selfRelation: model.name === target.name };
}
