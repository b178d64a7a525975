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
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import type { Context } from '../graphql/context.js';
import type { DataVersion } from './response-cache.js';

/** A data version of the schema's fields: read with the request's context. */
export type GraphQLDataVersion = DataVersion<Context>;

const extensionName = 'responseCacheDataVersion';

/**
 * Field `extensions` that declare the data version the field's responses depend on. On a root field,
 * its responses may be cached under it; on any other field, every cached response that selects it
 * is cached under it too (what a service, or its availability, says does not move with the bookings
 * data version it is reached through).
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

const dataVersionOf = (field: { extensions: Readonly<Record<string, unknown>> } | undefined) => field?.extensions[extensionName] as GraphQLDataVersion | undefined;

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

/**
 * The data versions an operation's response depends on, or undefined when it cannot be cached: not
 * a query, a root field without a data version, root selections other than plain fields, or a field
 * marked neverCached. Fields below the root that declare a data version of their own add it.
 */
export function dataVersionsOf(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined): GraphQLDataVersion[] | undefined {
  const operation = getOperationAST(document, operationName);
  const queryType = schema.getQueryType();
  if (!operation || operation.operation !== OperationTypeNode.QUERY || !queryType) return undefined;
  const queryFields = queryType.getFields();
  const dataVersions = new Set<GraphQLDataVersion>();
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) return undefined;
    if (selection.name.value === '__typename') continue;
    const dataVersion = dataVersionOf(queryFields[selection.name.value]);
    if (!dataVersion) return undefined;
    dataVersions.add(dataVersion);
  }
  if (dataVersions.size === 0) return undefined;
  collectNested(schema, document, operation.selectionSet, queryType, dataVersions, new Set());
  return dataVersions.has(uncacheable) ? undefined : [...dataVersions];
}
