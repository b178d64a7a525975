import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { createComplexityRule } from '@pothos/plugin-complexity';
import {
  getNamedType,
  getNullableType,
  GraphQLError,
  Lexer,
  Source,
  TokenKind,
  isListType,
  Kind,
  OperationTypeNode,
  SchemaMetaFieldDef,
  getOperationAST,
  TypeMetaFieldDef,
  type ASTVisitFn,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
  type ExecutionArgs,
  type ExecutionResult,
  validate,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { AppError } from '../shared/errors.js';
import { maxJsonNesting, nestsDeeperThan } from '../shared/nesting.js';
import { isRestOperationDocument } from './rest-operation-documents.js';
import { complexityLimits, largestPages, listMultiplier } from './builder.js';
import { maskGraphQLError } from './errors.js';
import { memoPerOperation } from './operation-memo.js';
import type { Context } from './context.js';

/**
 * Limits every GraphQL document meets before it runs (with the cost, depth and breadth limits in
 * builder.ts). Tokens and nesting (of braces, brackets and parentheses) are counted by the lexer
 * before the parser, which recurses, sees the document; aliases stop one cheap field from being
 * asked many times over; directives likewise.
 */
export const documentLimits = { tokens: 2000, nesting: 64, aliases: 30, directives: 20 };

/** Largest answer sent; the limits above keep real answers far below it, this is the last safety net. */
export const maxAnswerBytes = 10_000_000;

/** The error of a document or answer over a limit; refused before it runs, it answers 400 over HTTP. */
export function queryTooComplex(message: string): GraphQLError {
  return queryTooComplexError(new AppError('query_too_complex', message));
}

function queryTooComplexError(refusal: AppError): GraphQLError {
  return new GraphQLError(refusal.message, { originalError: refusal, extensions: { code: 'query_too_complex' } });
}

const armorPrefix = /^Syntax Error: /;

const opening = new Set<string>([TokenKind.BRACE_L, TokenKind.BRACKET_L, TokenKind.PAREN_L]);
const closing = new Set<string>([TokenKind.BRACE_R, TokenKind.BRACKET_R, TokenKind.PAREN_R]);

/** Reads the document's tokens without recursion, refusing it past the token or nesting limit. */
function checkTokens(source: string | Source): void {
  const lexer = new Lexer(typeof source === 'string' ? new Source(source) : source);
  let tokens = 0;
  let nesting = 0;
  for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
    if (++tokens > documentLimits.tokens) throw queryTooComplex(`The document has more than ${documentLimits.tokens} tokens.`);
    if (opening.has(token.kind) && ++nesting > documentLimits.nesting) throw queryTooComplex(`The document nests deeper than ${documentLimits.nesting} levels.`);
    if (closing.has(token.kind)) nesting--;
  }
}

/** Armor's validation rules report here, always with their validation context. */
function refuse(context: ValidationContext | null, error: GraphQLError): void {
  context?.reportError(queryTooComplex(error.message.replace(armorPrefix, '')));
}

interface IntrospectionWalk {
  schema: GraphQLSchema;
  fragments: Record<string, FragmentDefinitionNode>;
  /** Fragments being walked, so a cycle (refused by validation anyway) cannot loop forever. */
  active: Set<string>;
  /**
   * Each named fragment's cost, by whether it is spread inside introspection: walked once however
   * often it is spread, so fragments spreading fragments cost linear time, not exponential.
   */
  costs: Map<string, number>;
}

/**
 * Cost of the introspection parts of a selection (`__schema`, `__type` and below), by the same rule
 * as every other field: 1 per field, times the list multiplier for each list it is under. The
 * complexity plugin counts `__schema` itself as one field and does not look inside.
 */
function introspectionCost(walk: IntrospectionWalk, selectionSet: SelectionSetNode, parentType: GraphQLCompositeType, inside: boolean): number {
  let cost = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (!selection.selectionSet) {
        if (inside) cost += 1;
        continue;
      }
      const name = selection.name.value;
      const field = name === '__schema' ? SchemaMetaFieldDef : name === '__type' ? TypeMetaFieldDef : 'getFields' in parentType ? parentType.getFields()[name] : undefined;
      if (!field) continue;
      const type = getNamedType(field.type) as GraphQLCompositeType;
      const isIntrospection = inside || name === '__schema' || name === '__type';
      const below = introspectionCost(walk, selection.selectionSet, type, isIntrospection);
      if (isIntrospection) cost += 1 + below * (isListType(getNullableType(field.type)) ? listMultiplier : 1);
      else cost += below;
      continue;
    }
    const fragment = selection.kind === Kind.FRAGMENT_SPREAD ? walk.fragments[selection.name.value] : selection;
    if (!fragment) continue;
    const key = selection.kind === Kind.FRAGMENT_SPREAD ? `${selection.name.value}:${inside}` : undefined;
    const known = key === undefined ? undefined : walk.costs.get(key);
    if (known !== undefined) {
      cost += known;
      continue;
    }
    if (key && walk.active.has(key)) continue;
    const type = fragment.typeCondition ? (walk.schema.getType(fragment.typeCondition.name.value) as GraphQLCompositeType | undefined) : parentType;
    if (!type) continue;
    if (key) walk.active.add(key);
    const fragmentCost = introspectionCost(walk, fragment.selectionSet, type, inside);
    if (key) {
      walk.active.delete(key);
      walk.costs.set(key, fragmentCost);
    }
    cost += fragmentCost;
  }
  return cost;
}

/**
 * The cost limit as a validation rule: the complexity plugin's measure of schema fields plus
 * introspection counted the same way. It depends on the variables, so it runs for each request
 * rather than among the validation rules, whose results Yoga caches per document.
 */
function costLimitRule(context: object, variableValues: Record<string, unknown>, operationName: string | null | undefined): ValidationRule {
  return (validation) => {
    let introspection = 0;
    const complexity = createComplexityRule({
      context,
      variableValues,
      operationName: operationName ?? null,
      validate: ({ complexity: fieldsCost, breadth }, report) => {
        const cost = fieldsCost + introspection;
        if (cost > complexityLimits.complexity) report(queryTooComplex(`The query's cost ${Math.ceil(cost)} is over the limit of ${complexityLimits.complexity}.`));
        if (breadth > complexityLimits.breadth) report(queryTooComplex(`The query's breadth ${breadth} is over the limit of ${complexityLimits.breadth}.`));
      },
    })(validation);
    const operation = (complexity as { OperationDefinition?: { enter?: ASTVisitFn<OperationDefinitionNode>; leave?: ASTVisitFn<OperationDefinitionNode> } }).OperationDefinition;
    // Absent when the operation named is not in the document (the rule reports that).
    if (!operation) return complexity;
    const fragments: Record<string, FragmentDefinitionNode> = {};
    for (const definition of validation.getDocument().definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
    }
    return {
      ...complexity,
      OperationDefinition: {
        ...operation,
        enter(node, ...rest) {
          const rootType = validation.getSchema().getRootType(node.operation);
          const walk = { schema: validation.getSchema(), fragments, active: new Set<string>(), costs: new Map<string, number>() };
          introspection = rootType ? introspectionCost(walk, node.selectionSet, rootType, false) : 0;
          return operation.enter?.(node, ...rest);
        },
      },
    };
  };
}

/** Refuses, with `query_too_complex`, documents over the token, alias, directive, depth, breadth or cost limits. */
export function useQueryLimits(): Plugin {
  const onReject = [refuse];
  return {
    onPluginInit({ addPlugin }) {
      addPlugin(
        EnvelopArmorPlugin({
          blockFieldSuggestion: { enabled: false },
          costLimit: { enabled: false },
          maxTokens: { enabled: false },
          // __typename too: armor lets it be aliased without limit by default.
          maxAliases: { n: documentLimits.aliases, allowList: [], onReject, propagateOnRejection: false },
          maxDirectives: { n: documentLimits.directives, onReject, propagateOnRejection: false },
          // The one depth check: it counts introspection and looks through fragments, as the complexity plugin's does.
          maxDepth: { n: complexityLimits.depth, ignoreIntrospection: false, flattenFragments: true, onReject, propagateOnRejection: false },
        }),
      );
    },
    onParse: ({ parseFn, setParseFn }) => {
      setParseFn((source, options) => {
        checkTokens(source);
        return parseFn(source, options);
      });
    },
    onExecute: refuseCostly,
    onSubscribe: refuseCostly,
  };
}

/**
 * What the cost rule finds in an operation with these variables, weighed in `context` (largestPages
 * for its largest). Weighing reads the arguments through their checks, so an argument they refuse
 * (a NUL in an id) is the operation's refusal: its error, as execution would report it, before
 * anything runs (thrown, it would close a graphql-ws socket and every operation on it).
 */
function costErrors(args: ExecutionArgs, context: object): readonly GraphQLError[] {
  try {
    return validate(args.schema, args.document, [costLimitRule(context, args.variableValues ?? {}, args.operationName)]);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return [maskGraphQLError(error)];
  }
}

/** The limits' own refusals among them: other errors (unknown operation, bad variables) are left to execution to report. */
const refusalsIn = (errors: readonly GraphQLError[]) => errors.filter((error) => error.originalError instanceof AppError);

/**
 * Whether each operation is within the limits whatever its variables: weighed once with every page
 * at its largest, as cost depends on the variables only through page sizes. Only those that are not
 * are weighed again for each request, with its variables.
 */
const isWithinLimitsAlways = memoPerOperation((args) => {
  const errors = costErrors(args, largestPages);
  // Bad variables or arguments stop the rule before it weighs anything: no answer yet, ask again next time.
  const overLimits = refusalsIn(errors).filter((error) => (error.originalError as AppError).code === 'query_too_complex');
  if (errors.length > 0 && overLimits.length === 0) return undefined;
  return errors.length === 0;
}, false);

/** Stops an operation over the cost limit before it runs. */
function refuseCostly({ args, setResultAndStopExecution }: { args: ExecutionArgs; setResultAndStopExecution(result: ExecutionResult): void }): void {
  if (isRestOperationDocument(args.document) || isWithinLimitsAlways(args)) return;
  const refusals = refusalsIn(costErrors(args, args.contextValue ?? {}));
  if (refusals.length > 0) setResultAndStopExecution({ errors: refusals });
}

/**
 * Replaces an answer over maxAnswerBytes by a `query_too_complex` error, whatever the transport. The
 * text measured is the one Yoga sends for an answer without errors (its results may carry their own
 * `stringify`), so an answer is serialised once, not once to measure and again to send. The REST
 * table's documents are passed by: their pages are bounded far below the limit, and REST sends its
 * own representation of the result, not this text.
 */
export function useAnswerSizeLimit(): Plugin {
  const tooLarge = () => ({ errors: [queryTooComplex(`The answer is over ${maxAnswerBytes} bytes; ask for fewer fields or items.`)] });
  return {
    onExecute: ({ args }) => ({
      onExecuteDone: ({ result, setResult }) => {
        if (isRestOperationDocument(args.document) || Symbol.asyncIterator in Object(result)) return;
        const text = JSON.stringify(result);
        if (Buffer.byteLength(text) > maxAnswerBytes) setResult(tooLarge());
        // Answers with errors are reshaped before they are sent (Yoga drops internal extensions).
        else if (!(result as ExecutionResult).errors) setResult({ ...(result as ExecutionResult), stringify: () => text } as ExecutionResult);
      },
    }),
  };
}

const isQuery = memoPerOperation((args) => getOperationAST(args.document, args.operationName)?.operation === OperationTypeNode.QUERY, false);

/** When each running operation's time budget ends (performance.now(): a test's clock must not move it), by its context. */
const deadlines = new WeakMap<object, number>();

const overTimeBudget = (budgetMs: number) =>
  new AppError('query_too_complex', `The operation ran past its time budget of ${budgetMs} ms and was stopped; ask for fewer fields or items.`);

/** Throws the operation's refusal once its time budget has run out: long work calls it between its steps, so it stops there. */
export function stopPastTimeBudget(context: Context): void {
  const deadline = deadlines.get(context);
  if (deadline !== undefined && performance.now() > deadline) throw overTimeBudget(context.services.config.GRAPHQL_TIME_BUDGET_MS);
}

/**
 * A time budget per query (GRAPHQL_TIME_BUDGET_MS): past it the query is answered
 * `query_too_complex`, whatever it still has under way, and long work (availability) stops at its
 * next step. Weighing keeps every admitted operation far under it; this is the net for work the
 * weights cannot see. By default it outlasts the database's deadlines (config.ts), so a database
 * that stops answering is answered 503 by them first. Subscriptions run for as long as they are
 * open, their events are not timed. After the compiled execution in the plugin list: it times the
 * execution that really runs.
 */
export function useOperationTimeBudget(): Plugin<Context> {
  return {
    onExecute: ({ args, executeFn, setExecuteFn }) => {
      // A mutation's writes may have committed by then: answering it refused would lose them.
      if (!isQuery(args)) return;
      const context = args.contextValue;
      const budgetMs = context.services.config.GRAPHQL_TIME_BUDGET_MS;
      setExecuteFn((executeArgs) => {
        const deadline = performance.now() + budgetMs;
        deadlines.set(context, deadline);
        // Made only when needed: an error's stack is costly, and most operations never need it.
        const refusal = (): ExecutionResult => ({ errors: [queryTooComplexError(overTimeBudget(budgetMs))] });
        const running = executeFn(executeArgs) as ExecutionResult | Promise<ExecutionResult>;
        // Finished within this turn of the event loop: nothing else ran meanwhile, no timer is needed.
        if (!(running instanceof Promise)) return performance.now() > deadline ? refusal() : running;
        let timer: NodeJS.Timeout | undefined;
        const pastBudget = new Promise<ExecutionResult>((resolve) => {
          timer = setTimeout(() => resolve(refusal()), budgetMs);
        });
        // Work that stopped at its budget leaves partial data and errors: the answer is the refusal.
        return Promise.race([running, pastBudget])
          .then((result) => (performance.now() > deadline ? refusal() : result))
          .finally(() => clearTimeout(timer));
      });
    },
  };
}

function invalidRequest(message: string): GraphQLError {
  return new GraphQLError(message, { originalError: new AppError('invalid_request', message), extensions: { code: 'invalid_request' } });
}

/** Why a request's variables or extensions cannot be taken, if they cannot: nested past what anything here walks safely. */
export function paramsRefusal(params: { variables?: unknown; extensions?: unknown }): GraphQLError | undefined {
  if (nestsDeeperThan(params.variables, maxJsonNesting) || nestsDeeperThan(params.extensions, maxJsonNesting)) {
    return invalidRequest(`variables and extensions nest at most ${maxJsonNesting} levels.`);
  }
  return undefined;
}

/**
 * GraphQL params over HTTP that cannot be read (variables or extensions in a query string that are
 * not JSON) or nest too deep are the client's mistake: 400 `invalid_request` before anything runs.
 */
export function useRequestParams(): Plugin {
  return {
    onRequestParse: ({ requestParser, setRequestParser }) => {
      if (!requestParser) return;
      setRequestParser(async (request) => {
        try {
          return await requestParser(request);
        } catch (error) {
          if (error instanceof SyntaxError) throw invalidRequest('variables and extensions must be JSON objects.');
          throw error;
        }
      });
    },
    onParams: ({ params, setResult }) => {
      const refusal = paramsRefusal(params);
      if (refusal) setResult({ errors: [refusal] });
    },
  };
}
