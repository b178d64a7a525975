import { Kind, type DocumentNode, type FieldNode, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode, type VariableDefinitionNode } from 'graphql';
import { snakeCaseOf } from '../shared/naming.js';

/**
 * What graphql-codegen does to the REST operations (src/rest/operations) before it types them and
 * prints the documents the REST table runs, so the documents say only what is particular to a route:
 *
 * - every field below the root is answered under its REST name (snakeCaseOf its GraphQL name) unless
 *   the document aliases it to another name; the connection plumbing (`pageInfo`) keeps its names,
 *   which the router reads;
 * - a variable that guards fields (`@include(if: $withName)`, the `fields=` and `include=` switches)
 *   is declared `Boolean!` by the operations that use it, directly or through their fragments, so a
 *   list and its single-record operation do not both spell out the fragment's switches.
 */
export function restDocuments(documents: readonly DocumentNode[]): DocumentNode[] {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const document of documents) {
    for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  return documents.map((document) => ({
    ...document,
    definitions: document.definitions.map((definition) => {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) return { ...definition, selectionSet: withRestNames(definition.selectionSet) };
      if (definition.kind === Kind.OPERATION_DEFINITION) return withSwitchesDeclared(withRestNamesBelowRoot(definition), fragments);
      return definition;
    }),
  }));
}

/** The codegen `documentTransforms` entry that applies restDocuments. */
export const restDocumentTransform = {
  transform<File extends { document?: DocumentNode | undefined }>({ documents }: { documents: File[] }): File[] {
    const transformed = restDocuments(documents.flatMap((file) => (file.document ? [file.document] : [])));
    let next = 0;
    return documents.map((file) => (file.document ? { ...file, document: transformed[next++]! } : file));
  },
};

function withRestNamesBelowRoot(operation: OperationDefinitionNode): OperationDefinitionNode {
  const selections = operation.selectionSet.selections.map((selection) =>
    selection.kind === Kind.FIELD && selection.selectionSet ? { ...selection, selectionSet: withRestNames(selection.selectionSet) } : selection,
  );
  return { ...operation, selectionSet: { ...operation.selectionSet, selections } };
}

function withRestNames(selectionSet: SelectionSetNode): SelectionSetNode {
  const selections = selectionSet.selections.map((selection) => {
    if (selection.kind === Kind.INLINE_FRAGMENT) return { ...selection, selectionSet: withRestNames(selection.selectionSet) };
    if (selection.kind !== Kind.FIELD || selection.name.value === 'pageInfo') return selection;
    return restNamed(selection);
  });
  return { ...selectionSet, selections };
}

function restNamed(field: FieldNode): FieldNode {
  const restName = snakeCaseOf(field.name.value);
  if (field.alias?.value === restName) {
    throw new Error(`${field.alias.value}: ${field.name.value} is answered as ${restName} without the alias; write ${field.name.value} alone.`);
  }
  const selectionSet = field.selectionSet && withRestNames(field.selectionSet);
  const alias = field.alias ?? (restName === field.name.value ? undefined : { kind: Kind.NAME, value: restName });
  return { ...field, ...(alias ? { alias } : {}), ...(selectionSet ? { selectionSet } : {}) };
}

/** The operation with a `Boolean!` declaration for each `@include`/`@skip` variable it uses and does not declare, in order of first use. */
function withSwitchesDeclared(operation: OperationDefinitionNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>): OperationDefinitionNode {
  const declared = new Set((operation.variableDefinitions ?? []).map((definition) => definition.variable.name.value));
  const switches: string[] = [];
  const seenFragments = new Set<string>();
  const walk = (selectionSet: SelectionSetNode) => {
    for (const selection of selectionSet.selections) {
      for (const directive of selection.directives ?? []) {
        if (directive.name.value !== 'include' && directive.name.value !== 'skip') continue;
        for (const argument of directive.arguments ?? []) {
          const name = argument.value.kind === Kind.VARIABLE ? argument.value.name.value : undefined;
          if (name && !declared.has(name) && !switches.includes(name)) switches.push(name);
        }
      }
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(selection.name.value);
        if (fragment && !seenFragments.has(fragment.name.value)) {
          seenFragments.add(fragment.name.value);
          walk(fragment.selectionSet);
        }
      } else if (selection.selectionSet) walk(selection.selectionSet);
    }
  };
  walk(operation.selectionSet);
  if (switches.length === 0) return operation;
  const definitions: VariableDefinitionNode[] = switches.map((name) => ({
    kind: Kind.VARIABLE_DEFINITION,
    variable: { kind: Kind.VARIABLE, name: { kind: Kind.NAME, value: name } },
    type: { kind: Kind.NON_NULL_TYPE, type: { kind: Kind.NAMED_TYPE, name: { kind: Kind.NAME, value: 'Boolean' } } },
  }));
  return { ...operation, variableDefinitions: [...definitions, ...(operation.variableDefinitions ?? [])] };
}
