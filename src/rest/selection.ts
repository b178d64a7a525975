import {
  getNamedType,
  isAbstractType,
  isEnumType,
  isObjectType,
  Kind,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

/**
 * One key of an operation's answer, as the schema and the selection set make it: what the REST
 * adapter shapes, and what the OpenAPI document describes.
 */
export interface AnswerKey {
  /** The key in the answer: the alias, else the field name. */
  key: string;
  field: GraphQLField<unknown, unknown>;
  type: GraphQLOutputType;
  /** Under `@include(if: $variable)`: present only when that variable is true. */
  includedBy?: string;
  /** Keys below an object or list of objects, merged over fragments; absent for leaves. */
  children?: AnswerKey[];
  /** The fragment that is the key's whole selection set (`booking { ...BookingFields }`): the shape's name. */
  fragment?: string;
}

/** Keys whose alias starts with `_` are read by the REST table (Last-Modified), never sent. */
export const isHiddenKey = (key: string) => key.startsWith('_');

export function operationOf(document: DocumentNode): OperationDefinitionNode {
  const operation = document.definitions.find((definition) => definition.kind === Kind.OPERATION_DEFINITION);
  if (!operation) throw new Error('The document holds no operation.');
  return operation;
}

function includeVariableOf(selection: {
  directives?: readonly { name: { value: string }; arguments?: readonly { name: { value: string }; value: { kind: string } }[] }[] | undefined;
}) {
  const include = selection.directives?.find((directive) => directive.name.value === 'include');
  const condition = include?.arguments?.find((argument) => argument.name.value === 'if')?.value;
  return condition?.kind === Kind.VARIABLE ? (condition as unknown as { name: { value: string } }).name.value : undefined;
}

/** The fragment a selection set consists of alone, if it does. */
function onlyFragmentOf(set: SelectionSetNode | undefined): string | undefined {
  const selections = set?.selections.filter((selection) => !(selection.kind === Kind.FIELD && selection.name.value === '__typename'));
  const [only] = selections ?? [];
  return selections?.length === 1 && only?.kind === Kind.FRAGMENT_SPREAD ? only.name.value : undefined;
}

/**
 * The answer's keys under a selection set, following fragments. Fields of one key selected in
 * several places merge their children, as GraphQL merges them.
 */
function keysOf(schema: GraphQLSchema, fragments: Map<string, FragmentDefinitionNode>, selectionSet: SelectionSetNode, parent: GraphQLCompositeType): AnswerKey[] {
  const keys = new Map<string, AnswerKey>();
  const visit = (set: SelectionSetNode, type: GraphQLCompositeType) => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(selection.name.value)!;
        visit(fragment.selectionSet, schema.getType(fragment.typeCondition.name.value) as GraphQLCompositeType);
        continue;
      }
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        visit(selection.selectionSet, selection.typeCondition ? (schema.getType(selection.typeCondition.name.value) as GraphQLCompositeType) : type);
        continue;
      }
      const name = selection.name.value;
      if (name === '__typename' || isAbstractType(type)) continue;
      const field = type.getFields()[name]!;
      const key = selection.alias?.value ?? name;
      const named = getNamedType(field.type);
      const children = selection.selectionSet && !isEnumType(named) ? keysOf(schema, fragments, selection.selectionSet, named as GraphQLCompositeType) : undefined;
      const known = keys.get(key);
      const includedBy = includeVariableOf(selection);
      const fragment = onlyFragmentOf(selection.selectionSet);
      if (known) {
        if (children) known.children = [...(known.children ?? []), ...children.filter((child) => !known.children?.some((other) => other.key === child.key))];
        // Selected twice: the merged shape is no longer just the fragment's.
        if (known.fragment !== fragment) delete known.fragment;
        continue;
      }
      keys.set(key, { key, field, type: field.type, ...(includedBy ? { includedBy } : {}), ...(children ? { children } : {}), ...(fragment ? { fragment } : {}) });
    }
  };
  visit(selectionSet, parent);
  return [...keys.values()];
}

/** The keys of an operation's `data`. */
export function answerKeysOf(schema: GraphQLSchema, document: DocumentNode): AnswerKey[] {
  const operation = operationOf(document);
  const fragments = new Map(document.definitions.filter((definition) => definition.kind === Kind.FRAGMENT_DEFINITION).map((fragment) => [fragment.name.value, fragment] as const));
  const root = schema.getRootType(operation.operation);
  if (!root) throw new Error(`The schema has no ${operation.operation} type.`);
  return keysOf(schema, fragments, operation.selectionSet, root);
}

/** The key at a dotted path (`createBooking.booking`) below `keys`. */
export function answerKeyAt(keys: AnswerKey[], path: readonly string[]): AnswerKey {
  let current: AnswerKey | undefined;
  let level = keys;
  for (const segment of path) {
    current = level.find((key) => key.key === segment);
    if (!current) throw new Error(`No key ${path.join('.')} in the operation's answer.`);
    level = current.children ?? [];
  }
  if (!current) throw new Error('An empty path names no key.');
  return current;
}

/** A Relay connection: an object with `edges { node }` and `pageInfo`. */
export function isConnectionType(type: GraphQLOutputType): boolean {
  const named = getNamedType(type);
  return isObjectType(named) && 'edges' in named.getFields() && 'pageInfo' in named.getFields();
}

/** The node keys of a connection key (`edges { node { … } }`). */
export function nodeKeysOf(connection: AnswerKey): AnswerKey[] {
  const node = connection.children?.find((key) => key.key === 'edges')?.children?.find((key) => key.key === 'node');
  if (!node?.children) throw new Error(`${connection.key} selects no edges { node { … } }.`);
  return node.children;
}
