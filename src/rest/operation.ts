import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { execute, type ExecutionResult, type GraphQLError } from 'graphql';
import type { Context } from '../graphql/context.js';
import { describeGraphQLError } from '../graphql/errors.js';
import { schema } from '../graphql/schema.js';
import { AppError, statusForCode, type FieldError } from '../shared/errors.js';
import { restFieldName } from './shape.js';

/** GraphQL arguments whose REST parameter has another name. */
const restParameterFor: Record<string, string> = { after: 'cursor', first: 'limit', afterEvent: 'after' };

const variableError = /^Variable "\$(\w+)" got invalid value .*?(?: at "([\w.[\]]+)")?; (.*)$/s;

/**
 * A variable the schema refused: the JSON body (variable `input`) is a validation failure (422),
 * anything else is a bad query parameter (400). Both name the REST field.
 */
function variableProblem(error: GraphQLError): AppError | undefined {
  const match = variableError.exec(error.message);
  if (!match) return undefined;
  const [, variable, path, reason] = match as unknown as [string, string, string | undefined, string];
  const field = restFieldName((path ?? variable).replace(/^input\.?/, '').replace(/\[\d+\]/g, '') || variable);
  const fieldErrors: FieldError[] = [{ field, code: 'invalid', message: reason }];
  return variable === 'input'
    ? new AppError('validation_failed', `${field}: ${reason}`, { fieldErrors })
    : new AppError('invalid_parameter', `${field}: ${reason}`, { fieldErrors });
}

/**
 * Runs one of the REST adapter's GraphQL operations against the shared schema, in process.
 * A GraphQL error becomes the AppError REST answers with, so both surfaces speak the same codes.
 */
export async function runOperation<Result, Variables extends Record<string, unknown>>(
  document: TypedDocumentNode<Result, Variables>,
  variables: Variables,
  context: Context,
): Promise<Result> {
  const result = (await execute({ schema, document, variableValues: variables, contextValue: context })) as ExecutionResult<Result>;
  const firstError = result.errors?.[0];
  if (firstError) {
    const fromVariables = variableProblem(firstError);
    if (fromVariables) throw fromVariables;
    const { code, message, fieldErrors } = describeGraphQLError(firstError);
    // A failure on our side goes up as it is: the HTTP layer answers it and logs it with its cause.
    if (statusForCode[code] >= 500) throw firstError.originalError ?? firstError;
    throw new AppError(code, message, {
      fieldErrors: fieldErrors.map((fieldError) => ({ ...fieldError, field: restFieldName(restParameterFor[fieldError.field] ?? fieldError.field) })),
      // Retry-After and the like, when our own code raised the error.
      ...(firstError.originalError instanceof AppError ? { headers: firstError.originalError.headers } : {}),
    });
  }
  return result.data as Result;
}
