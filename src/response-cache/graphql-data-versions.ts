import {
  getNamedType,
  getOperationAST,
  isInterfaceType,
  isObjectType,
  Kind,
  OperationTypeNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type OperationDefinitionNode,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import type { Context } from '../graphql/context.js';
import type { DataVersion, DataVersionDependency } from './response-cache.js';

/** A data version of the schema's fields: read with the request's context. */
export type GraphQLDataVersion = DataVersion<Context>;
export type GraphQLDataVersionDependency = DataVersionDependency<Context>;

const extensionName = 'responseCacheDataVersion';

/**
 * Field `extensions` that declare the data version the field's responses depend on. On a root field,
 * its responses may be cached under it; on any other field, every cached response that selects it
 * is cached under it too (what a service, or its availability, says does not move with the bookings
 * data version it is reached through). On an argument of a root field, responses depend on it when
 * the argument is given (a filter on data the field's own data version does not cover).
 */
export function cachedUnderDataVersion(dataVersion: GraphQLDataVersion) {
  return { [extensionName]: dataVersion };
}

/**
 * Field `extensions` of a field whose answer changes with no data version moving (a waitlist entry's
 * status, which time and writes without a log event change): a response that selects it is not cached.
 */
export function neverCached() {
  return { [extensionName]: uncacheable };
}

/** The data version of fields marked neverCached: it makes the whole response uncacheable. */
const uncacheable: GraphQLDataVersion = () => {
  throw new Error('a response that selects a neverCached field is never cached');
};

const dataVersionOf = (field: { extensions?: Readonly<Record<string, unknown>> | null | undefined } | undefined) =>
  field?.extensions?.[extensionName] as GraphQLDataVersion | undefined;

/** Adds the data versions declared by the fields selected in `selectionSet` (of `type`) and below, through fragments. */
function collectNested(
  schema: GraphQLSchema,
  document: DocumentNode,
  selectionSet: SelectionSetNode,
  type: GraphQLNamedType,
  into: Set<GraphQLDataVersion>,
  seen: Set<string>,
): void {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      const field = isObjectType(type) || isInterfaceType(type) ? type.getFields()[selection.name.value] : undefined;
      if (!field) continue;
      const dataVersion = dataVersionOf(field);
      if (dataVersion) into.add(dataVersion);
      if (selection.selectionSet) collectNested(schema, document, selection.selectionSet, getNamedType(field.type), into, seen);
      continue;
    }
    if (selection.kind === Kind.FRAGMENT_SPREAD) {
      const name = selection.name.value;
      if (seen.has(name)) continue;
      seen.add(name);
      const fragment = document.definitions.find(
        (definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION && definition.name.value === name,
      );
      const fragmentType = fragment && schema.getType(fragment.typeCondition.name.value);
      if (fragment && fragmentType) collectNested(schema, document, fragment.selectionSet, fragmentType, into, seen);
      continue;
    }
    const inlineType = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : type;
    if (inlineType) collectNested(schema, document, selection.selectionSet, inlineType, into, seen);
  }
}

/** Whether the operation gives the variable a default: the argument is then set whether the request sets the variable or not. */
const hasDefault = (operation: OperationDefinitionNode, variable: string) =>
  operation.variableDefinitions?.some(
    (definition) => definition.variable.name.value === variable && definition.defaultValue !== undefined && definition.defaultValue.kind !== Kind.NULL,
  ) ?? false;

/**
 * The data versions an operation's response depends on, or undefined when it cannot be cached: not
 * a query, a root field without a data version, root selections other than plain fields, or a field
 * marked neverCached. Fields below the root that declare a data version of their own add it.
 */
export function dataVersionsOf(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined): GraphQLDataVersionDependency[] | undefined {
  const operation = getOperationAST(document, operationName);
  const queryType = schema.getQueryType();
  if (!operation || operation.operation !== OperationTypeNode.QUERY || !queryType) return undefined;
  const queryFields = queryType.getFields();
  const dataVersions = new Set<GraphQLDataVersion>();
  /** Data versions of arguments given by variables, by variable. */
  const whenSet = new Map<string, GraphQLDataVersion>();
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) return undefined;
    if (selection.name.value === '__typename') continue;
    const field = queryFields[selection.name.value];
    const dataVersion = dataVersionOf(field);
    if (!dataVersion) return undefined;
    dataVersions.add(dataVersion);
    for (const argument of selection.arguments ?? []) {
      const argumentVersion = dataVersionOf(field?.args.find((definition) => definition.name === argument.name.value));
      if (!argumentVersion || argument.value.kind === Kind.NULL) continue;
      if (argument.value.kind !== Kind.VARIABLE || hasDefault(operation, argument.value.name.value)) dataVersions.add(argumentVersion);
      else whenSet.set(argument.value.name.value, argumentVersion);
    }
  }
  if (dataVersions.size === 0) return undefined;
  collectNested(schema, document, operation.selectionSet, queryType, dataVersions, new Set());
  if (dataVersions.has(uncacheable)) return undefined;
  const dependsWhenSet = [...whenSet].filter(([, dataVersion]) => !dataVersions.has(dataVersion)).map(([variable, dataVersion]) => ({ dataVersion, variable }));
  return [...dataVersions, ...dependsWhenSet];
}
