import { createHash } from 'node:crypto';
import { getOperationAST, Kind, OperationTypeNode, print, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { credentialIdOf, grantedScopes, type Principal } from '../access/principal.js';
import { KeptAnswers } from '../shared/kept-answers.js';
import type { Context } from './context.js';
import { isTrustedDocument } from './trusted-documents.js';

/**
 * A cheap fingerprint of everything a root field's answer depends on besides its arguments and the
 * caller (one indexed lookup). Equal fingerprints must mean equal answers.
 */
export type DataFingerprint = (context: Context) => Promise<string>;

const extensionName = 'hallowgateDataFingerprint';

/** Keys of answers asked for once and not kept; forgotten all at once when this many. */
const maxAskedOnce = 50_000;

/** Field `extensions` that let the field's answers be kept under its data fingerprint. */
export function answersKeptUnder(fingerprint: DataFingerprint) {
  return { [extensionName]: fingerprint };
}

/**
 * The fingerprints a query's answer depends on, or undefined when it cannot be kept: not a query,
 * a root field without a fingerprint, or root selections other than plain fields.
 */
export function fingerprintsOf(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined) {
  const operation = getOperationAST(document, operationName);
  const queryFields = schema.getQueryType()?.getFields();
  if (!operation || operation.operation !== OperationTypeNode.QUERY || !queryFields) return undefined;
  const fingerprints = new Set<DataFingerprint>();
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) return undefined;
    if (selection.name.value === '__typename') continue;
    const fingerprint = queryFields[selection.name.value]?.extensions[extensionName] as DataFingerprint | undefined;
    if (!fingerprint) return undefined;
    fingerprints.add(fingerprint);
  }
  return fingerprints.size > 0 ? [...fingerprints] : undefined;
}

/** Fingerprints already read for a request: the REST adapter and this plugin read them once between them. */
const readFingerprints = new WeakMap<Context, Map<DataFingerprint, Promise<string>>>();

/** The request's values of `fingerprints`, each read once per request. */
export function fingerprintValues(context: Context, fingerprints: readonly DataFingerprint[]): Promise<string[]> {
  let read = readFingerprints.get(context);
  if (!read) readFingerprints.set(context, (read = new Map()));
  return Promise.all(
    fingerprints.map((fingerprint) => {
      let value = read.get(fingerprint);
      if (!value) read.set(fingerprint, (value = fingerprint(context)));
      return value;
    }),
  );
}

/** Answers differ by caller only through what the caller may see. */
export function callerOf(principal: Principal | null): string {
  if (!principal) return 'anonymous';
  return `${credentialIdOf(principal)}:${principal.accountId}:${grantedScopes(principal).join(',')}`;
}

/**
 * Answers a query whose root fields all have data fingerprints from the answer an equal query got
 * under equal fingerprints, without executing it. The fingerprints are read before execution, so
 * an answer is never kept under a newer fingerprint than its data. Only error-free answers are kept,
 * from the second time they are asked for.
 */
export function useKeptAnswers(schema: GraphQLSchema, budget: number, onLookup: (outcome: 'hit' | 'miss') => void): Plugin<Context> {
  const kept = new KeptAnswers<ExecutionResult>(budget);
  const askedOnce = new Set<string>();
  const printedDocuments = new WeakMap<DocumentNode, string>();
  const printed = (document: DocumentNode) => {
    let text = printedDocuments.get(document);
    if (text === undefined) {
      text = print(document);
      printedDocuments.set(document, text);
    }
    return text;
  };

  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const fingerprints = isTrustedDocument(args.document) ? undefined : fingerprintsOf(schema, args.document, args.operationName);
      if (!fingerprints) return undefined;
      const context = args.contextValue as Context;
      const values = await fingerprintValues(context, fingerprints);
      const key = createHash('sha256')
        .update(callerOf(context.principal))
        .update('\0')
        .update(values.join('\0'))
        .update('\0')
        .update(printed(args.document))
        .update('\0')
        .update(args.operationName ?? '')
        .update('\0')
        .update(JSON.stringify(args.variableValues ?? {}))
        .digest('base64url');
      const answer = kept.get(key);
      onLookup(answer ? 'hit' : 'miss');
      if (answer) {
        setResultAndStopExecution(answer);
        return undefined;
      }
      // Keep an answer the second time it is asked for: one-off queries (most first-time reads)
      // then neither push kept answers out nor pay for measuring their own size.
      if (!askedOnce.has(key)) {
        if (askedOnce.size >= maxAskedOnce) askedOnce.clear();
        askedOnce.add(key);
        return undefined;
      }
      return {
        onExecuteDone({ result }) {
          if (isAsyncIterable(result) || result.errors) return;
          kept.set(key, result, JSON.stringify(result.data).length);
        },
      };
    },
  };
}
