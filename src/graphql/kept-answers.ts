import { createHash } from 'node:crypto';
import { getOperationAST, Kind, OperationTypeNode, print, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { credentialIdOf, grantedScopes, type Principal } from '../access/principal.js';
import { operationRouteOf } from '../analytics/tracking.js';
import { KeptAnswers } from '../shared/kept-answers.js';
import type { Context } from './context.js';
import { isTrustedDocument } from './trusted-documents.js';

/**
 * A cheap fingerprint of everything a root field's answer depends on besides its arguments and the
 * caller (one indexed lookup). Equal fingerprints must mean equal answers.
 */
export type DataFingerprint = (context: Context) => Promise<string>;

const extensionName = 'hallowgateDataFingerprint';

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

/** The request's values of `fingerprints`, each read once per request. */
function fingerprintValues(context: Context, fingerprints: readonly DataFingerprint[]): Promise<string[]> {
  const reads = context.fingerprintReads;
  return Promise.all(
    fingerprints.map((fingerprint) => {
      let value = reads.get(fingerprint);
      if (!value) reads.set(fingerprint, (value = fingerprint(context)));
      return value;
    }),
  );
}

/** An answer's key: its request's key (the caller and the request), under the values of the data fingerprints read for it. */
export async function answerKeyOf(context: Context, fingerprints: readonly DataFingerprint[], requestKey: string): Promise<string> {
  return `${requestKey}${JSON.stringify(await fingerprintValues(context, fingerprints))}`;
}

/** Answers differ by caller only through what the caller may see. */
export function callerOf(principal: Principal | null): string {
  if (!principal) return 'anonymous';
  return `${credentialIdOf(principal)}:${principal.accountId}:${grantedScopes(principal).join(',')}`;
}

/** A GraphQL request as sent: what, besides the caller and the data, its answer depends on. */
export interface GraphQLRequestParams {
  query: string;
  operationName?: string | null | undefined;
  variables?: Record<string, unknown> | null | undefined;
}

/** A kept answer: the result, its body as Yoga would send it, and the route it counts under. */
export interface KeptGraphQLAnswer {
  result: ExecutionResult;
  body: string;
  route: string;
}

/** A request's key without the data: the caller and the request as sent. */
function requestKeyOf(context: Context, params: GraphQLRequestParams): string {
  // As JSON: no two requests write the same (an empty operation name is not a missing one, a NUL in
  // the text is not a separator).
  const request = JSON.stringify([callerOf(context.principal), params.query, params.operationName ?? null, params.variables ?? {}]);
  return createHash('sha256').update(request).digest('base64url');
}

function operationKey(params: GraphQLRequestParams): string {
  return JSON.stringify([params.operationName ?? null, params.query]);
}

/** Operations (query text and operation name) remembered as keepable: far more than clients send, few enough to stay small. */
const maxKeepableQueries = 2_000;

/**
 * Answers of queries whose root fields all have data fingerprints, kept under the caller, the
 * fingerprints' values and the request, and given to an equal request under equal fingerprints without
 * executing it. The fingerprints are read before execution, so an answer is never kept under a newer
 * fingerprint than its data. Only error-free answers are kept, from the second time they are asked for.
 *
 * Two ways in: `plugin()` for every operation Yoga runs, and `lookup()` for the HTTP layer, which
 * answers a POST whose query text was kept before without Yoga's request pipeline (about half of a
 * kept answer's CPU) and hands every other request to Yoga.
 */
export class KeptGraphQLAnswers {
  private readonly kept: KeptAnswers<KeptGraphQLAnswer>;
  /** The fingerprints of each operation whose answers have been kept: what answering it before Yoga parses it needs. */
  private readonly keepable = new LRUCache<string, DataFingerprint[]>({ max: maxKeepableQueries });
  private readonly printedDocuments = new WeakMap<DocumentNode, string>();

  constructor(
    private readonly schema: GraphQLSchema,
    /** JSON characters of kept answers. */
    budget: number,
    private readonly onLookup: (outcome: 'hit' | 'miss') => void,
  ) {
    this.kept = new KeptAnswers(budget);
  }

  /** The answer kept for a request whose operation had one kept before; undefined when Yoga must answer it. */
  async lookup(context: Context, params: GraphQLRequestParams): Promise<KeptGraphQLAnswer | undefined> {
    const fingerprints = this.keepable.get(operationKey(params));
    if (!fingerprints) return undefined;
    const requestKey = requestKeyOf(context, params);
    // A request not asked for before has no answer kept, and its fingerprints need not be read.
    if (!this.kept.wasAsked(requestKey)) return undefined;
    const answer = this.kept.get(await answerKeyOf(context, fingerprints, requestKey));
    // A miss is counted by the plugin, which runs next for the same request.
    if (answer) this.onLookup('hit');
    return answer;
  }

  plugin(): Plugin<Context & { params?: Partial<GraphQLRequestParams> }> {
    return {
      onExecute: async ({ args, setResultAndStopExecution }) => {
        const fingerprints = isTrustedDocument(args.document) ? undefined : fingerprintsOf(this.schema, args.document, args.operationName);
        if (!fingerprints) return undefined;
        const context = args.contextValue;
        // The text as sent over HTTP; over WebSocket there is none, and the printed document stands in.
        const sentText = typeof context.params?.query === 'string' ? context.params.query : undefined;
        const params = { query: sentText ?? this.printed(args.document), operationName: args.operationName, variables: args.variableValues };
        const requestKey = requestKeyOf(context, params);
        // Kept the second time it is asked for: one-off queries (most first-time reads) then neither
        // read the fingerprints, nor push kept answers out, nor pay for measuring their own size.
        if (!this.kept.askedBefore(requestKey)) {
          this.onLookup('miss');
          return undefined;
        }
        const key = await answerKeyOf(context, fingerprints, requestKey);
        const answer = this.kept.get(key);
        this.onLookup(answer ? 'hit' : 'miss');
        if (answer) {
          setResultAndStopExecution(answer.result);
          return undefined;
        }
        return {
          onExecuteDone: ({ result }) => {
            if (isAsyncIterable(result) || result.errors) return;
            // As Yoga serialises an answer without errors.
            const body = JSON.stringify(result);
            this.kept.set(key, { result, body, route: operationRouteOf(args.document, args.operationName) }, body.length);
            // By operation, not text alone: each operation of a document has its own fingerprints.
            if (sentText !== undefined) this.keepable.set(operationKey(params), fingerprints);
          },
        };
      },
    };
  }

  private printed(document: DocumentNode): string {
    let text = this.printedDocuments.get(document);
    if (text === undefined) {
      text = print(document);
      this.printedDocuments.set(document, text);
    }
    return text;
  }
}
