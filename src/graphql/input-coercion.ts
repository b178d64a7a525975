import {
  getNamedType,
  getOperationAST,
  GraphQLError,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  Kind,
  specifiedRules,
  TypeInfo,
  typeFromAST,
  ValuesOfCorrectTypeRule,
  visit,
  visitWithTypeInfo,
  type ASTVisitor,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLInputType,
  type GraphQLLeafType,
  type GraphQLNamedInputType,
  type ValidationContext,
  type ValidationRule,
  type ValueNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { z } from 'zod';
import { AppError, withEchoesCut, type FieldError } from '../shared/errors.js';
import { checkInput } from '../shared/validation.js';
import type { Context } from './context.js';

/**
 * The rules of an input object type (a zod schema for the request), kept in the type's extensions:
 * when a request has values of the wrong type, the rules of its inputs are checked too, so one
 * answer names every problem. Without type errors the resolver checks them (parseInput).
 */
const inputRulesKey = 'hallowgateInputRules';
type InputRules = (context: Context) => z.ZodType;

export function inputRules(rules: InputRules): Record<string, unknown> {
  return { [inputRulesKey]: rules };
}

function rulesOf(type: GraphQLNamedInputType): InputRules | undefined {
  return isInputObjectType(type) ? (type.extensions[inputRulesKey] as InputRules | undefined) : undefined;
}

/** A value the schema refuses, where it is and why. */
type Report = (path: readonly string[], code: string, message: (field: string) => string) => void;

/** Stands for a value the schema refused: left out of what the rules check. */
const refused = Symbol('refused');

function errorMessageOf(error: unknown): { code: string; message: (field: string) => string } {
  const refusal = error instanceof GraphQLError && error.originalError instanceof AppError ? error.originalError : error instanceof AppError ? error : undefined;
  const detail = refusal?.fieldErrors[0];
  if (detail) return { code: detail.code, message: () => detail.message };
  const text = error instanceof Error ? withEchoesCut(error.message) : 'not a valid value';
  return { code: 'invalid', message: (field) => `${field}: ${text}` };
}

/** A leaf value as the schema takes it, or `refused` after reporting why: an enum's allowed values, or the scalar's own words. */
function leafValue(type: GraphQLLeafType, path: readonly string[], report: Report, parse: () => unknown): unknown {
  if (isEnumType(type)) {
    const value = parse();
    if (value !== undefined) return value;
    const allowed = type.getValues().map((candidate) => candidate.name);
    report(path, 'invalid', (field) => `${field} must be one of: ${allowed.join(', ')}.`);
    return refused;
  }
  try {
    const value = parse();
    if (value !== undefined) return value;
  } catch (error) {
    const { code, message } = errorMessageOf(error);
    report(path, code, message);
    return refused;
  }
  report(path, 'invalid', (field) => `${field} is not a valid ${type.name}.`);
  return refused;
}

/**
 * Walks a variable's value against its type as graphql-js coercion does, reporting every problem
 * with its path: missing required fields, fields the input does not have, and leaf values the
 * scalar or enum refuses. Answers the coerced value, without the parts refused.
 */
function checkValue(value: unknown, type: GraphQLInputType, path: readonly string[], report: Report): unknown {
  if (isNonNullType(type)) {
    if (value !== null && value !== undefined) return checkValue(value, type.ofType, path, report);
    report(path, 'required', (field) => `${field} is required.`);
    return refused;
  }
  if (value === null || value === undefined) return value;
  if (isListType(type)) {
    const items = (Array.isArray(value) ? value : [value]).map((item, index) => checkValue(item, type.ofType, [...path, String(index)], report));
    return items.includes(refused) ? refused : items;
  }
  if (isInputObjectType(type)) {
    if (typeof value !== 'object' || Array.isArray(value)) {
      report(path, 'invalid_type', (field) => `${field} must be an object.`);
      return refused;
    }
    const given = value as Record<string, unknown>;
    const fields = type.getFields();
    const coerced: Record<string, unknown> = {};
    for (const field of Object.values(fields)) {
      const entry = given[field.name];
      if (entry === undefined && field.defaultValue !== undefined) coerced[field.name] = field.defaultValue;
      else keepAccepted(coerced, field.name, checkValue(entry, field.type, [...path, field.name], report));
    }
    for (const key of Object.keys(given)) {
      if (!Object.hasOwn(fields, key)) report([...path, key], 'unknown_field', (field) => `${field} is not a field of this input.`);
    }
    return coerced;
  }
  return leafValue(type, path, report, () => (isEnumType(type) ? type.getValue(String(value))?.value : type.parseValue(value)));
}

function keepAccepted(object: Record<string, unknown>, key: string, value: unknown) {
  if (value !== refused && value !== undefined) object[key] = value;
}

/**
 * The same walk over an inline literal. Variables inside it take their values from `variables`
 * (their own problems are reported where variables are checked); without values they count as absent.
 */
function checkLiteral(node: ValueNode, type: GraphQLInputType, path: readonly string[], variables: Record<string, unknown> | undefined, report: Report): unknown {
  if (node.kind === Kind.VARIABLE) {
    const value = variables?.[node.name.value];
    return value === undefined ? undefined : checkValue(value, type, path, () => {});
  }
  if (isNonNullType(type)) {
    if (node.kind !== Kind.NULL) return checkLiteral(node, type.ofType, path, variables, report);
    report(path, 'required', (field) => `${field} is required.`);
    return refused;
  }
  if (node.kind === Kind.NULL) return null;
  if (isListType(type)) {
    const nodes = node.kind === Kind.LIST ? node.values : [node];
    const items = nodes.map((item, index) => checkLiteral(item, type.ofType, [...path, String(index)], variables, report));
    return items.includes(refused) ? refused : items;
  }
  if (isInputObjectType(type)) {
    if (node.kind !== Kind.OBJECT) {
      report(path, 'invalid_type', (field) => `${field} must be an object.`);
      return refused;
    }
    const given = new Map(node.fields.map((field) => [field.name.value, field.value]));
    const fields = type.getFields();
    const coerced: Record<string, unknown> = {};
    for (const field of Object.values(fields)) {
      const entry = given.get(field.name);
      if (entry) keepAccepted(coerced, field.name, checkLiteral(entry, field.type, [...path, field.name], variables, report));
      else if (field.defaultValue !== undefined) coerced[field.name] = field.defaultValue;
      else if (isNonNullType(field.type)) report([...path, field.name], 'required', (name) => `${name} is required.`);
    }
    for (const key of given.keys()) {
      if (!Object.hasOwn(fields, key)) report([...path, key], 'unknown_field', (field) => `${field} is not a field of this input.`);
    }
    return coerced;
  }
  return leafValue(type, path, report, () => (isEnumType(type) ? (node.kind === Kind.ENUM ? type.getValue(node.value)?.value : undefined) : type.parseLiteral(node, variables)));
}

/** An argument written (at least partly) as a literal that the schema refuses whatever the variables. */
interface RefusedLiteral {
  name: string;
  type: GraphQLInputType;
  value: ValueNode;
}

const refusedLiteralsByDocument = new WeakMap<DocumentNode, RefusedLiteral[]>();

/** The refused literal arguments anywhere in the document (as validation would look at them), found once per document. */
function refusedLiteralsOf(args: Pick<ExecutionArgs, 'schema' | 'document'>): RefusedLiteral[] {
  const known = refusedLiteralsByDocument.get(args.document);
  if (known) return known;
  const found: RefusedLiteral[] = [];
  const typeInfo = new TypeInfo(args.schema);
  visit(
    args.document,
    visitWithTypeInfo(typeInfo, {
      Argument(node) {
        const argument = typeInfo.getArgument();
        if (!argument || node.value.kind === Kind.VARIABLE) return;
        let isRefused = false;
        checkLiteral(node.value, argument.type, [], undefined, () => (isRefused = true));
        if (isRefused) found.push({ name: node.name.value, type: argument.type, value: node.value });
      },
    }),
  );
  refusedLiteralsByDocument.set(args.document, found);
  return found;
}

/** One argument or variable checked: the field errors of its type, and its value for its rules. */
interface CheckedInput {
  type: GraphQLNamedInputType;
  value: unknown;
  typeErrors: FieldError[];
}

/** Whether one dotted field path lies on the other (equal, inside or around it). */
function overlaps(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}.`) || b.startsWith(`${a}.`);
}

/**
 * Checks an operation's variables and literal arguments against their types before execution, as
 * graphql-js would, but answers with field errors: the field's path in the input object
 * (`customer.email`), else the variable's or argument's name, and a documented code (`required`,
 * `invalid`, `unknown_field`). With any such error, the rules of every input object checked are
 * reported too, for the fields of the right type, so one answer names every problem. A bad input
 * object is 422 validation_failed, any other bad value 400 invalid_parameter.
 */
export function inputErrorsOf(args: Pick<ExecutionArgs, 'schema' | 'document' | 'operationName' | 'variableValues' | 'contextValue'>): GraphQLError | undefined {
  const values = (args.variableValues ?? {}) as Record<string, unknown>;
  const checked: CheckedInput[] = [];
  const check = (name: string, type: GraphQLInputType, walk: (report: Report) => unknown) => {
    const named = getNamedType(type);
    const isInput = isInputObjectType(named);
    const typeErrors: FieldError[] = [];
    const value = walk((path, code, message) => {
      const field = (isInput ? path : [name, ...path]).join('.') || name;
      typeErrors.push({ field, code, message: message(field) });
    });
    checked.push({ type: named, value, typeErrors });
  };
  const operation = getOperationAST(args.document, args.operationName);
  for (const definition of operation?.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const type = typeFromAST(args.schema, definition.type as never) as GraphQLInputType | undefined;
    // A variable of an unknown type fails validation, which runs before this.
    if (!type) continue;
    const value = values[name];
    if (value === undefined && definition.defaultValue) continue;
    check(name, type, (report) => checkValue(value, type, [], report));
  }
  for (const literal of refusedLiteralsOf(args)) check(literal.name, literal.type, (report) => checkLiteral(literal.value, literal.type, [], values, report));

  const typeErrors = checked.flatMap((input) => input.typeErrors);
  if (typeErrors.length === 0) return undefined;
  const fieldErrors = checked.flatMap((input) => {
    const rules = rulesOf(input.type);
    if (!rules || input.value === refused || input.value === undefined || input.value === null) return input.typeErrors;
    const result = checkInput(rules(args.contextValue as Context), input.value);
    const ruleErrors = result.success ? [] : result.fieldErrors.filter((error) => !input.typeErrors.some((typeError) => overlaps(typeError.field, error.field)));
    return [...input.typeErrors, ...ruleErrors];
  });
  const inBody = checked.some((input) => input.typeErrors.length > 0 && isInputObjectType(input.type));
  const code = inBody ? 'validation_failed' : 'invalid_parameter';
  const message = fieldErrors.length === 1 ? fieldErrors[0]!.message : 'The request has invalid fields.';
  return new GraphQLError(message, { originalError: new AppError(code, message, { fieldErrors }), extensions: { code, errors: fieldErrors } });
}

/**
 * graphql-js's check of literal values, except inside arguments: there the execution-time check
 * above answers every problem at once with field paths, where validation would answer them one
 * error each, without paths.
 */
function literalsOutsideArguments(context: ValidationContext): ASTVisitor {
  let argumentDepth = 0;
  const outsideArguments = Object.create(context, {
    reportError: { value: (error: GraphQLError) => argumentDepth === 0 && context.reportError(error) },
  }) as ValidationContext;
  return {
    ...ValuesOfCorrectTypeRule(outsideArguments),
    Argument: { enter: () => void argumentDepth++, leave: () => void argumentDepth-- },
  };
}

function withLiteralsOutsideArguments(rules: readonly ValidationRule[] | undefined): ValidationRule[] {
  return (rules ?? specifiedRules).map((rule) => (rule === ValuesOfCorrectTypeRule ? literalsOutsideArguments : rule));
}

/** Refuses an operation whose variables or literal arguments do not fit their types, with field errors, over every transport. */
export function useInputCoercion(): Plugin {
  const refuse = ({ args, setResultAndStopExecution }: { args: ExecutionArgs; setResultAndStopExecution(result: ExecutionResult): void }) => {
    const error = inputErrorsOf(args);
    if (error) setResultAndStopExecution({ errors: [error] });
  };
  return {
    onValidate: ({ validateFn, setValidationFn }) => {
      setValidationFn((schema, document, rules, ...rest) => validateFn(schema, document, withLiteralsOutsideArguments(rules), ...rest));
    },
    onExecute: refuse,
    onSubscribe: refuse,
  };
}
