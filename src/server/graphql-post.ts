import type { IncomingHttpHeaders } from 'node:http';
import type { GraphQLRequestParams } from '../graphql/kept-answers.js';

/** A GraphQL POST that Yoga would answer with one JSON body, and the media type it would answer in. */
export interface PlainGraphQLPost {
  params: GraphQLRequestParams;
  mediaType: 'application/graphql-response+json' | 'application/json';
}

const answerMediaTypes = ['application/graphql-response+json', 'application/json'] as const;

/** Bodies past this are never kept queries; they are left to Yoga unread. */
const maxPlainPostBytes = 64 * 1024;

const jsonRequestType = /^application\/json\s*(;\s*charset=utf-8\s*)?$/i;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
  return { params: { query, operationName, variables }, mediaType };
}
