import {
  getNamedType,
  getOperationAST,
  GraphQLError,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  typeFromAST,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLInputType,
  type GraphQLLeafType,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { AppError, echoed, type FieldError } from '../shared/errors.js';

/** A value the schema refuses, where it is and why. */
type Report = (path: readonly string[], code: string, message: (field: string) => string) => void;

/** The message of a leaf value the schema refused: the allowed values of an enum, or the scalar's own words. */
function leafProblem(type: GraphQLLeafType, value: unknown): { code: string; message: (field: string) => string } | undefined {
  if (isEnumType(type)) {
    if (typeof value === 'string' && type.getValue(value)) return undefined;
    const allowed = type.getValues().map((candidate) => candidate.name);
    return { code: 'invalid', message: (field) => `${field} must be one of: ${allowed.join(', ')}.` };
  }
  try {
    if (type.parseValue(value) !== undefined) return undefined;
  } catch (error) {
    const refusal = error instanceof GraphQLError && error.originalError instanceof AppError ? error.originalError : error instanceof AppError ? error : undefined;
    const detail = refusal?.fieldErrors[0];
    if (detail) return { code: detail.code, message: () => detail.message };
    const text = error instanceof Error ? echoed(error.message) : 'not a valid value';
    return { code: 'invalid', message: (field) => `${field}: ${text}` };
  }
  return { code: 'invalid', message: (field) => `${field} is not a valid ${type.name}.` };
}

/**
 * Walks a variable's value against its type as graphql-js coercion does, reporting every problem
 * with its path: missing required fields, fields the input does not have, and leaf values the
 * scalar or enum refuses.
 */
function checkValue(value: unknown, type: GraphQLInputType, path: readonly string[], report: Report): void {
  if (isNonNullType(type)) {
    if (value === null || value === undefined) report(path, 'required', (field) => `${field} is required.`);
    else checkValue(value, type.ofType, path, report);
    return;
  }
  if (value === null || value === undefined) return;
  if (isListType(type)) {
    const items = Array.isArray(value) ? value : [value];
    items.forEach((item, index) => checkValue(item, type.ofType, [...path, String(index)], report));
    return;
  }
  if (isInputObjectType(type)) {
    if (typeof value !== 'object' || Array.isArray(value)) {
      report(path, 'invalid_type', (field) => `${field} must be an object.`);
      return;
    }
    const fields = type.getFields();
    for (const field of Object.values(fields)) {
      const entry = (value as Record<string, unknown>)[field.name];
      if (entry === undefined && field.defaultValue !== undefined) continue;
      checkValue(entry, field.type, [...path, field.name], report);
    }
    for (const key of Object.keys(value)) {
      if (!Object.hasOwn(fields, key)) report([...path, key], 'unknown_field', (field) => `${field} is not a field of this input.`);
    }
    return;
  }
  const problem = leafProblem(type, value);
  if (problem) report(path, problem.code, problem.message);
}

/**
 * Checks an operation's variables against their types before execution, as graphql-js would, but
 * answers with field errors: the field's path in the variable (`customer.email` inside an input
 * object, else the variable's name) and a documented code (`required`, `invalid`, `unknown_field`).
 * A bad input object is 422 validation_failed, any other bad variable 400 invalid_parameter.
 */
export function variableErrorsOf(args: Pick<ExecutionArgs, 'schema' | 'document' | 'operationName' | 'variableValues'>): GraphQLError | undefined {
  const operation = getOperationAST(args.document, args.operationName);
  if (!operation?.variableDefinitions?.length) return undefined;
  const values = (args.variableValues ?? {}) as Record<string, unknown>;
  const fieldErrors: FieldError[] = [];
  let inBody = false;
  for (const definition of operation.variableDefinitions) {
    const name = definition.variable.name.value;
    const type = typeFromAST(args.schema, definition.type as never) as GraphQLInputType | undefined;
    // A variable of an unknown type fails validation, which runs before this.
    if (!type) continue;
    const isInput = isInputObjectType(getNamedType(type));
    const value = values[name];
    if (value === undefined && definition.defaultValue) continue;
    checkValue(value, type, [], (path, code, message) => {
      const field = (isInput ? path : [name, ...path]).join('.') || name;
      inBody ||= isInput;
      fieldErrors.push({ field, code, message: message(field) });
    });
  }
  if (fieldErrors.length === 0) return undefined;
  const code = inBody ? 'validation_failed' : 'invalid_parameter';
  const message = fieldErrors.length === 1 ? fieldErrors[0]!.message : 'The request has invalid fields.';
  return new GraphQLError(message, { originalError: new AppError(code, message, { fieldErrors }), extensions: { code, errors: fieldErrors } });
}

/** Refuses an operation whose variables do not fit their types, with field errors, over every transport. */
export function useInputCoercion(): Plugin {
  const refuse = ({ args, setResultAndStopExecution }: { args: ExecutionArgs; setResultAndStopExecution(result: ExecutionResult): void }) => {
    const error = variableErrorsOf(args);
    if (error) setResultAndStopExecution({ errors: [error] });
  };
  return { onExecute: refuse, onSubscribe: refuse };
}
