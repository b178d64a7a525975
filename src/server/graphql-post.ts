import type { IncomingHttpHeaders } from 'node:http';
import { getOperationAST, OperationTypeNode, type DocumentNode, type ExecutionResult } from 'graphql';
import { isAsyncIterable } from 'graphql-yoga';
import type { GraphQLRequestParams } from '../graphql/kept-answers.js';
import { maxJsonNesting, nestsDeeperThan } from '../shared/nesting.js';
import type { Yoga } from './yoga.js';

/** A GraphQL POST that Yoga would answer with one JSON body, and the media type it would answer in. */
export interface PlainGraphQLPost {
  params: GraphQLRequestParams;
  mediaType: 'application/graphql-response+json' | 'application/json';
}

const answerMediaTypes = ['application/graphql-response+json', 'application/json'] as const;

/** Bodies past this are never kept queries; they are left to Yoga unread. */
const maxPlainPostBytes = 64 * 1024;

/** As Yoga's JSON body parser takes it (case and spacing included), with no charset but UTF-8. */
const jsonRequestType = /^application\/json(; ?charset=(utf|UTF)-8)?$/;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Whether every number in a parsed JSON value is written back as it was read, so that equal keys
 * mean equal variables: `1e999` parses as Infinity (which Yoga refuses) and would be written as null.
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
 * The media type Yoga answers a query's result in for this Accept header, by its own rule (the last
 * match wins, entries taken last to first, only UTF-8); undefined when it would not answer in JSON.
 */
export function jsonAnswerMediaType(accept: string | undefined): PlainGraphQLPost['mediaType'] | undefined {
  let chosen: PlainGraphQLPost['mediaType'] | undefined;
  const entries = (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',').reverse();
  for (const entry of entries) {
    const [requested = '', ...parameters] = entry.split(';');
    const charset = parameters.find((parameter) => parameter.includes('charset=')) ?? 'charset=utf-8';
    if (charset !== 'charset=utf-8') continue;
    const [type, subtype] = requested.split('/');
    for (const candidate of answerMediaTypes) {
      const [candidateType, candidateSubtype] = candidate.split('/');
      if ((type === '*' || type === candidateType) && (subtype === '*' || subtype === candidateSubtype)) chosen = candidate;
    }
  }
  return chosen;
}

/**
 * The request as a plain GraphQL POST (a JSON body of `query` and optionally `operationName` and
 * `variables`, answered in JSON), or undefined for anything else: Yoga reads, checks and answers those.
 */
export function plainGraphQLPost(method: string, headers: IncomingHttpHeaders, body: Buffer): PlainGraphQLPost | undefined {
  if (method !== 'POST' || body.length > maxPlainPostBytes || !jsonRequestType.test(headers['content-type'] ?? '')) return undefined;
  const mediaType = jsonAnswerMediaType(headers.accept);
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
  // Yoga refuses these (or reads them in ways a key would blur): they are its to answer.
  if (variables && (nestsDeeperThan(variables, maxJsonNesting) || !numbersWriteBack(variables))) return undefined;
  return { params: { query, operationName, variables }, mediaType };
}

/** A plain POST run before Yoga: the body of its 200 answer, or what Yoga is to answer instead of running it again. */
export type PlainPostRun = { body: string } | { result: ExecutionResult | AsyncIterable<ExecutionResult> } | { error: unknown };

/**
 * Runs a plain POST's query or mutation through Yoga's envelop (every plugin /graphql has, as
 * Yoga's own processRequest does) and gives the body of the answer Yoga would send when the result
 * has no errors: 200 with the result as JSON, in the media type negotiated. That saves Yoga's Fetch
 * request pipeline (a tenth of a small query's CPU). Anything else is Yoga's to answer: undefined
 * when nothing ran (a syntax or validation error, a subscription), else the result or error it gave.
 */
export async function runPlainPost(enveloped: ReturnType<Yoga['getEnveloped']>, params: GraphQLRequestParams): Promise<PlainPostRun | undefined> {
  let document: DocumentNode;
  try {
    document = enveloped.parse(params.query);
  } catch {
    return undefined;
  }
  const operation = getOperationAST(document, params.operationName);
  if (!operation || operation.operation === OperationTypeNode.SUBSCRIPTION) return undefined;
  if (enveloped.validate(enveloped.schema, document).length > 0) return undefined;
  let result: (ExecutionResult & { stringify?: (result: ExecutionResult) => string }) | AsyncIterable<ExecutionResult>;
  try {
    const contextValue = await enveloped.contextFactory();
    result = await enveloped.execute({ schema: enveloped.schema, document, contextValue, variableValues: params.variables, operationName: params.operationName });
  } catch (error) {
    return { error };
  }
  if (isAsyncIterable(result) || result.errors || result.extensions?.['http']) return { result };
  // As Yoga writes an answer without errors.
  return { body: (result.stringify ?? JSON.stringify)(result) };
}
