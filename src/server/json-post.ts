import type { IncomingHttpHeaders } from 'node:http';
import { getOperationAST, OperationTypeNode, type DocumentNode, type execute, type ExecutionResult, type GraphQLSchema, type parse, type validate } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { Context } from '../graphql/context.js';
import { paramsRefusal } from '../graphql/limits.js';
import { resultMediaTypeFor, stringifyResult, utf8JsonContentType, type ResultMediaType } from '../graphql/over-http.js';
import type { GraphQLRequestParams } from '../response-cache/request-keys.js';

/**
 * The JSON POST fast path ('json-post', src/fast-paths.ts): a GraphQL-over-HTTP POST of a JSON body,
 * answered with one JSON result, is executed by the HTTP layer through Yoga's envelop directly (as
 * envelop's own HTTP integrations call `getEnveloped()`), without Yoga's Fetch request pipeline.
 * Every plugin /graphql has still runs; Yoga's HTTP rules come from src/graphql/over-http.ts. Anything
 * it does not take, and any result it does not answer itself, is Yoga's.
 */

/** A JSON POST that Yoga would answer with one JSON result, and the media type it would answer in. */
export interface JsonPost {
  params: GraphQLRequestParams;
  mediaType: ResultMediaType;
}

/** Bodies past this are never cached queries; they are left to Yoga unread. */
const maxJsonPostBytes = 64 * 1024;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Whether every number in a parsed JSON value is written back as it was read, so that equal cache
 * keys mean equal variables: `1e999` parses as Infinity (which Yoga refuses) and would be written as null.
 */
function numbersWriteBack(value: unknown): boolean {
  const pending = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'number' && (!Number.isFinite(next) || Object.is(next, -0))) return false;
    if (typeof next === 'object' && next !== null) pending.push(...Object.values(next));
  }
  return true;
}

/**
 * The request as a JSON POST (a JSON body of `query` and optionally `operationName` and `variables`,
 * answered in JSON), or undefined for anything else: Yoga reads, checks and answers those.
 */
export function jsonPostOf(method: string, headers: IncomingHttpHeaders, body: Buffer): JsonPost | undefined {
  if (method !== 'POST' || body.length > maxJsonPostBytes || !utf8JsonContentType.test(headers['content-type'] ?? '')) return undefined;
  const mediaType = resultMediaTypeFor(headers.accept);
  if (!mediaType) return undefined;
  let sent: unknown;
  try {
    sent = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isPlainObject(sent)) return undefined;
  const { query, operationName, variables, ...others } = sent;
  if (typeof query !== 'string' || Object.keys(others).length > 0) return undefined;
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return undefined;
  if (variables !== undefined && variables !== null && !isPlainObject(variables)) return undefined;
  // Yoga refuses these (or reads them in ways a cache key would blur): they are its to answer.
  if (variables && (paramsRefusal({ variables }) || !numbersWriteBack(variables))) return undefined;
  return { params: { query, operationName, variables }, mediaType };
}

/** What executing needs of Yoga's envelop for one request (`yoga.getEnveloped(…)`). */
export interface EnvelopedExecution {
  schema: GraphQLSchema;
  parse: typeof parse;
  validate: typeof validate;
  contextFactory(): unknown;
  execute: typeof execute;
}

/** A JSON POST executed before Yoga: the body of its 200 answer, or what Yoga is to answer instead of executing it again. */
export type JsonPostExecution = { body: string } | { result: ExecutionResult | AsyncIterable<ExecutionResult> } | { error: unknown };

/**
 * Executes a JSON POST's query or mutation through Yoga's envelop (every plugin /graphql has, as
 * Yoga's own processRequest does) and gives the body of the answer Yoga would send when the result
 * has no errors: 200 with the result as JSON, in the media type negotiated. Anything else is Yoga's
 * to answer: undefined when nothing ran (a syntax or validation error, a subscription), else the
 * result or error it gave, for useJsonPostExecution.
 */
export async function executeJsonPost(enveloped: EnvelopedExecution, params: GraphQLRequestParams): Promise<JsonPostExecution | undefined> {
  let document: DocumentNode;
  try {
    document = enveloped.parse(params.query);
  } catch {
    return undefined;
  }
  const operation = getOperationAST(document, params.operationName);
  if (!operation || operation.operation === OperationTypeNode.SUBSCRIPTION) return undefined;
  if (enveloped.validate(enveloped.schema, document).length > 0) return undefined;
  let result: ExecutionResult | AsyncIterable<ExecutionResult>;
  try {
    const contextValue = await enveloped.contextFactory();
    result = await enveloped.execute({ schema: enveloped.schema, document, contextValue, variableValues: params.variables, operationName: params.operationName });
  } catch (error) {
    return { error };
  }
  if (isAsyncIterable(result) || result.errors || result.extensions?.['http']) return { result };
  return { body: stringifyResult(result) };
}

/** What the HTTP layer hands Yoga with a JSON POST it executed already and leaves to Yoga to answer. */
export interface JsonPostExecuted {
  jsonPostExecution?: Exclude<JsonPostExecution, { body: string }> | undefined;
}

/** Answers a JSON POST the HTTP layer executed already (a result with errors, say) as Yoga answers it, without executing it again. */
export function useJsonPostExecution(): Plugin<Context, JsonPostExecuted> {
  return {
    onParams: ({ context, setResult, setParamsHandler }) => {
      const executed = context.jsonPostExecution;
      if (!executed) return;
      if ('result' in executed) setResult(executed.result);
      // Thrown where Yoga's own run would have thrown it, so it is masked and answered the same way.
      else
        setParamsHandler(() => {
          throw executed.error;
        });
    },
  };
}
