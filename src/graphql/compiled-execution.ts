import { GraphQLError, OperationTypeNode, execute, getOperationAST, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';

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
  // Per document (Yoga's parse cache and the REST table hand the same one back), then per operation.
  const plans = new WeakMap<DocumentNode, Map<string | null, Plan>>();

  function planOf(args: ExecutionArgs): Plan {
    let byOperation = plans.get(args.document);
    if (!byOperation) plans.set(args.document, (byOperation = new Map()));
    const operationName = args.operationName ?? null;
    let plan = byOperation.get(operationName);
    if (plan === undefined) {
      const operation = getOperationAST(args.document, operationName);
      // Remembered only for the document's own operations: names it lacks are as many as clients send.
      if (!operation) return null;
      const compiled = operation.operation !== OperationTypeNode.SUBSCRIPTION ? compileQuery(args.schema, args.document, operationName ?? undefined) : undefined;
      plan = compiled && isCompiledQuery(compiled) ? compiled : null;
      byOperation.set(operationName, plan);
    }
    return plan;
  }

  return {
    onExecute: ({ args, setExecuteFn }) => {
      if (!planOf(args)) return;
      setExecuteFn(async (executeArgs) => {
        const plan = planOf(executeArgs);
        if (!plan) return execute(executeArgs);
        return withGraphQLJsErrors(await plan.query(executeArgs.rootValue, executeArgs.contextValue, executeArgs.variableValues));
      });
    },
  };
}
