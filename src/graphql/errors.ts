import { PothosValidationError } from '@pothos/core';
import { GraphQLError } from 'graphql';
import { AppError, databaseUnavailable, isErrorCode, type ErrorCode, type FieldError } from '../shared/errors.js';

/** The AppError behind a GraphQL error: one our code threw, or the 503 of an unreachable database. */
function appErrorIn(error: unknown): AppError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    if (current instanceof AppError) return current;
    current = (current as { originalError?: unknown }).originalError;
  }
  return databaseUnavailable(error);
}

/**
 * Gives every GraphQL error a stable `extensions.code` (the REST words), keeps field errors,
 * and hides the message of anything unexpected.
 */
export function maskGraphQLError(error: unknown, requestId?: string): GraphQLError {
  const graphQLError =
    error instanceof GraphQLError
      ? error
      : new GraphQLError(error instanceof Error ? error.message : String(error), { originalError: error instanceof Error ? error : null });
  const appError = appErrorIn(graphQLError);
  if (appError) {
    return new GraphQLError(appError.message, {
      nodes: graphQLError.nodes,
      source: graphQLError.source,
      positions: graphQLError.positions,
      path: graphQLError.path,
      originalError: appError,
      extensions: {
        code: appError.code,
        ...(appError.fieldErrors.length ? { errors: appError.fieldErrors } : {}),
      },
    });
  }
  const code = graphQLError.extensions['code'];
  if (isErrorCode(code)) return graphQLError;
  if (graphQLError.originalError instanceof PothosValidationError && /cursor/i.test(graphQLError.message)) {
    // A cursor the client made up or damaged: their mistake, in the argument named after.
    return new GraphQLError('The cursor is not one this API issued.', {
      nodes: graphQLError.nodes,
      path: graphQLError.path,
      extensions: { code: 'invalid_parameter', errors: [{ field: 'after', code: 'invalid', message: 'Use the cursor of a previous page.' }] },
    });
  }
  if (!graphQLError.originalError || graphQLError.originalError instanceof GraphQLError) {
    // Syntax, validation and variable coercion errors: the client's mistake, worth showing as is.
    return new GraphQLError(graphQLError.message, {
      nodes: graphQLError.nodes,
      source: graphQLError.source,
      positions: graphQLError.positions,
      path: graphQLError.path,
      extensions: { ...graphQLError.extensions, code: 'invalid_request' },
    });
  }
  return new GraphQLError('Something went wrong on our side.', {
    nodes: graphQLError.nodes,
    path: graphQLError.path,
    extensions: { code: 'internal_error', ...(requestId ? { request_id: requestId } : {}) },
  });
}

/** The stable code and field errors a GraphQL error carries, for the REST adapter. */
export function describeGraphQLError(error: GraphQLError): { code: ErrorCode; message: string; fieldErrors: FieldError[] } {
  const masked = maskGraphQLError(error);
  const code = masked.extensions['code'];
  return {
    code: isErrorCode(code) ? code : 'internal_error',
    message: masked.message,
    fieldErrors: (masked.extensions['errors'] as FieldError[] | undefined) ?? [],
  };
}
