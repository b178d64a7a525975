import type { ExecutionResult } from 'graphql';

/**
 * GraphQL over HTTP as Yoga speaks it, for the paths that answer a request without Yoga's Fetch
 * pipeline (the JSON POST fast path, the response cache, refusals before Yoga): Yoga applies these
 * rules in its request parser and result processor but exports none of them, so each is written
 * here once, as Yoga 5 writes it. test/graphql/json-post.test.ts and
 * test/graphql/response-cache-http.test.ts compare those paths' answers with Yoga's byte for byte.
 */

/** The media types Yoga answers a single result in, in its order of preference. */
const resultMediaTypes = ['application/graphql-response+json', 'application/json'] as const;

export type ResultMediaType = (typeof resultMediaTypes)[number];

/**
 * The media type Yoga answers a single result in for this Accept header (its result processor: the
 * last match wins, entries taken last to first, only UTF-8); undefined when it would not answer in JSON.
 */
export function resultMediaTypeFor(accept: string | undefined): ResultMediaType | undefined {
  let chosen: ResultMediaType | undefined;
  const entries = (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',').reverse();
  for (const entry of entries) {
    const [requested = '', ...parameters] = entry.split(';');
    const charset = parameters.find((parameter) => parameter.includes('charset=')) ?? 'charset=utf-8';
    if (charset !== 'charset=utf-8') continue;
    const [type, subtype] = requested.split('/');
    for (const candidate of resultMediaTypes) {
      const [candidateType, candidateSubtype] = candidate.split('/');
      if ((type === '*' || type === candidateType) && (subtype === '*' || subtype === candidateSubtype)) chosen = candidate;
    }
  }
  return chosen;
}

/**
 * A Content-Type whose body Yoga's JSON request parser reads as UTF-8 JSON (case and spacing
 * included). Yoga takes more (`application/graphql+json`, other parameters): those are left to it.
 */
export const utf8JsonContentType = /^application\/json(; ?charset=(utf|UTF)-8)?$/;

/** A result with neither errors nor HTTP extensions, written as Yoga writes it (a serializer an execution attached comes first). */
export function stringifyResult(result: ExecutionResult & { stringify?: (result: ExecutionResult) => string }): string {
  return (result.stringify ?? JSON.stringify)(result);
}
