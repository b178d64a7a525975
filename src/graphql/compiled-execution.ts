import { GraphQLError, OperationTypeNode, getOperationAST, type ExecutionResult } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';
import { fastPathUses } from '../fast-paths.js';
import { memoPerOperation } from './operation-memo.js';

/** What a document's operation compiled to; null when graphql-jit cannot compile it and graphql-js runs it. */
type Plan = CompiledQuery | null;

/**
 * graphql-jit's errors carry no `extensions` object when their cause has none, and no `nodes`: the
 * same error as graphql-js makes it, so masking, logging and REST read one shape.
 */
function asGraphQLJsError(error: GraphQLError): GraphQLError {
  const original = error.originalError ?? undefined;
  const rebuilt = new GraphQLError(error.message, {
    path: error.path,
    originalError: original,
    extensions: original && 'extensions' in original ? (original as GraphQLError).extensions : undefined,
  });
  (rebuilt as { locations: GraphQLError['locations'] }).locations = error.locations;
  return rebuilt;
}

function withGraphQLJsErrors(result: ExecutionResult): ExecutionResult {
  return result.errors ? { ...result, errors: result.errors.map(asGraphQLJsError) } : result;
}

/**
 * Queries and mutations run as code graphql-jit compiled once per document and operation, instead of
 * graphql-js interpreting the document on every request (a quarter of an executed list's CPU).
 * Subscriptions stay with graphql-js: their events are executed once per group of subscribers.
 */
export function useCompiledExecution(): Plugin {
  const planOf = memoPerOperation<Plan>((args) => {
    const operation = getOperationAST(args.document, args.operationName);
    if (!operation) return undefined;
    if (operation.operation === OperationTypeNode.SUBSCRIPTION) return null;
    const compiled = compileQuery(args.schema, args.document, args.operationName ?? undefined);
    return isCompiledQuery(compiled) ? compiled : null;
  }, null);

  return {
    // Last in the plugin list, so these are the arguments the operation runs with.
    onExecute: ({ args, setExecuteFn }) => {
      const plan = planOf(args);
      if (!plan) return;
      fastPathUses['compiled-execution']++;
      setExecuteFn(async ({ rootValue, contextValue, variableValues }) => withGraphQLJsErrors(await plan.query(rootValue, contextValue, variableValues)));
    },
  };
}
