import { PothosValidationError } from '@pothos/core';
import { GraphQLError, type ExecutionResult } from 'graphql';
import { handleStreamOrSingleExecutionResult, type Plugin } from 'graphql-yoga';
import { AppError, databaseUnavailable, isErrorCode, statusForCode, withEchoesCut, type ErrorCode, type FieldError } from '../shared/errors.js';
import { withinRequestTrace } from '../tracing/tracing.js';
import type { Context } from './context.js';
import { persistedQueryCodes } from './persisted-queries.js';

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
 * What a JSON parser said of a body, without the body: V8 quotes a piece of it, and Yoga the whole
 * of it, in double quotes after the parser's own words (which quote a token in single quotes).
 */
function jsonSyntaxErrorOf(message: string): string {
  // A body V8 quotes first (`"undefined" is not valid JSON`) leaves no words of the parser's.
  return message.split('"', 1)[0]!.replace(/[,.\s]+$/, '') || 'The body is not valid JSON';
}

/**
 * `error` (with `code` when given) as the client is shown it: what its message quotes of the request
 * cut as `echoed` cuts it, and so is the message of Yoga's `originalError` extension, which repeats
 * a body it could not parse (the extension stays: Yoga reads it to choose the HTTP status). The error
 * itself when there is nothing to change.
 */
function withEchoesCutFrom(error: GraphQLError, code?: ErrorCode): GraphQLError {
  const message = withEchoesCut(error.message);
  const { originalError: cause, ...extensions } = error.extensions as { originalError?: { name?: unknown; message?: unknown } } & Record<string, unknown>;
  const causeMessage = typeof cause?.message === 'string' ? (cause.name === 'SyntaxError' ? jsonSyntaxErrorOf(cause.message) : withEchoesCut(cause.message)) : undefined;
  if (message === error.message && causeMessage === cause?.message && code === undefined) return error;
  return new GraphQLError(message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    // Given its code here, it is the client's mistake however it arose: what caused it is not carried on.
    ...(code ? {} : { originalError: error.originalError }),
    extensions: { ...extensions, ...(cause ? { originalError: { ...cause, ...(causeMessage === undefined ? {} : { message: causeMessage }) } } : {}), ...(code ? { code } : {}) },
  });
}

/**
 * Gives every GraphQL error a stable `extensions.code` (the REST words), keeps field errors,
 * and hides the message of anything unexpected.
 */
export function maskGraphQLError(error: unknown, requestId?: string): GraphQLError {
  const graphQLError =
    error instanceof GraphQLError ? error : new GraphQLError(error instanceof Error ? error.message : String(error), { originalError: error instanceof Error ? error : null });
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
  // Refusals carrying a code of ours already (the document limits'): shown as they are, but for what they quote.
  if (isErrorCode(code) || (typeof code === 'string' && persistedQueryCodes.has(code))) return withEchoesCutFrom(graphQLError);
  if (graphQLError.originalError instanceof PothosValidationError && /^Arguments? "/.test(graphQLError.message)) {
    // Connection arguments Pothos refuses (a negative first, after with last): the client's mistake.
    return new GraphQLError(graphQLError.message, {
      nodes: graphQLError.nodes,
      path: graphQLError.path,
      extensions: { code: 'invalid_parameter' },
    });
  }
  if (!graphQLError.originalError || graphQLError.originalError instanceof GraphQLError) {
    // Syntax, validation and variable coercion errors: the client's mistake, worth showing as is, but
    // for what they quote of the request (withEchoesCutFrom).
    return withEchoesCutFrom(graphQLError, 'invalid_request');
  }
  return new GraphQLError('Something went wrong on our side.', {
    nodes: graphQLError.nodes,
    path: graphQLError.path,
    extensions: { code: 'internal_error', ...(requestId ? { request_id: requestId } : {}) },
  });
}

/**
 * A masked error as sent over a transport without HTTP status (graphql-ws): without the
 * `extensions.http` that tells Yoga which status to answer an HTTP request with.
 */
export function maskSocketError(error: unknown, requestId?: string): GraphQLError {
  const masked = maskGraphQLError(error, requestId);
  if (!('http' in masked.extensions)) return masked;
  const { http: _http, ...extensions } = masked.extensions;
  return new GraphQLError(masked.message, {
    nodes: masked.nodes,
    source: masked.source,
    positions: masked.positions,
    path: masked.path,
    originalError: masked.originalError,
    extensions,
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

/** Whether an error, once masked, is a failure on our side (a 5xx code) rather than the client's mistake. */
export function isServerError(error: unknown): boolean {
  const code = maskGraphQLError(error).extensions['code'];
  if (typeof code === 'string' && persistedQueryCodes.has(code)) return false;
  return !isErrorCode(code) || statusForCode[code] >= 500;
}

/** Failures already logged with their request id; Yoga logs every error it masks, and these it need not. */
const loggedErrors = new WeakSet<object>();

/** Marks a failure whose cause is logged already, so the HTTP layer does not log it again. */
export function markLogged<E extends Error>(error: E): E {
  loggedErrors.add(error);
  return error;
}

export function wasLogged(error: unknown): boolean {
  return error instanceof Error && loggedErrors.has(error);
}

/** Yoga's level for an error it masked: error only for a failure on our side that no request logged. */
export function yogaLogLevel(error: unknown): 'error' | 'debug' {
  if (error instanceof Error && (loggedErrors.has(error) || !isServerError(error))) return 'debug';
  return 'error';
}

function logServerError(context: Context, error: unknown) {
  if (!(error instanceof Error) || loggedErrors.has(error) || !isServerError(error)) return;
  loggedErrors.add(error);
  const cause = error instanceof GraphQLError ? (error.originalError ?? error) : error;
  const path = error instanceof GraphQLError ? error.path : undefined;
  withinRequestTrace(context.requestTrace, () => context.services.logger.error({ err: cause, request_id: context.requestId, path }, 'GraphQL operation failed'));
}

/**
 * Logs every failure on our side in a GraphQL answer (over HTTP, SSE and WebSocket alike) at error
 * level with its request id, before Yoga masks it.
 */
export function useServerErrorLog(): Plugin<Context> {
  const logResult = (context: Context, result: ExecutionResult) => {
    for (const error of result.errors ?? []) logServerError(context, error);
  };
  return {
    onExecute: ({ args }) => ({
      onExecuteDone: (payload) => handleStreamOrSingleExecutionResult(payload, ({ result }) => logResult(args.contextValue, result)),
    }),
    onSubscribe: ({ args }) => ({
      onSubscribeResult: (payload) => handleStreamOrSingleExecutionResult(payload, ({ result }) => logResult(args.contextValue, result)),
      onSubscribeError: ({ error }) => logServerError(args.contextValue, error),
    }),
  };
}

/**
 * Syntax and validation errors carry the documented `invalid_request` code, as every other refusal
 * carries its word, instead of Yoga's GRAPHQL_PARSE_FAILED and GRAPHQL_VALIDATION_FAILED. Refusals
 * that already have a documented code (the document limits' `query_too_complex`) keep it. Both are
 * HTTP 400 under `application/graphql-response+json` (the GraphQL over HTTP spec's status, which a
 * client accepting only `application/json` is not sent): Yoga marks a syntax error so only on its own
 * request path, and a parse cached from the JSON POST path would otherwise keep 200.
 */
export function useDocumentErrorCodes(): Plugin {
  const mark = (error: unknown) => {
    if (!(error instanceof GraphQLError)) return;
    const extensions = error.extensions as Record<string, unknown>;
    // Yoga shows these as they are, unmasked: what they quote of the document is cut here.
    error.message = withEchoesCut(error.message);
    if (!isErrorCode(extensions['code'])) extensions['code'] = 'invalid_request';
    extensions['http'] ??= { spec: true, status: 400 };
  };
  return {
    onParse:
      () =>
      ({ result }) => {
        if (result instanceof Error) mark(result);
      },
    onValidate:
      () =>
      ({ valid, result }) => {
        if (!valid) result.forEach(mark);
      },
  };
}
