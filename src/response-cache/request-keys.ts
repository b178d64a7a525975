import { createHash } from 'node:crypto';
import { credentialIdOf, grantedScopes, type Principal } from '../access/principal.js';

/**
 * Request keys of the response cache (its protocol: response-cache.ts): the session and the request
 * as sent, hashed, without the data versions.
 */

/** Who may share a cached response: responses differ by caller only through what the caller may see. */
export function sessionOf(principal: Principal | null): string {
  if (!principal) return 'anonymous';
  return `${credentialIdOf(principal)}:${principal.accountId}:${grantedScopes(principal).join(',')}`;
}

/** A GraphQL request as sent: what, besides the session and the data, its response depends on. */
export interface GraphQLRequestParams {
  query: string;
  operationName?: string | null | undefined;
  variables?: Record<string, unknown> | null | undefined;
}

export function graphqlRequestKey(principal: Principal | null, params: GraphQLRequestParams): string {
  // As JSON: no two requests write the same (an empty operation name is not a missing one, a NUL in
  // the text is not a separator).
  const request = JSON.stringify([sessionOf(principal), params.query, params.operationName ?? null, params.variables ?? {}]);
  return createHash('sha256').update(request).digest('base64url');
}

/** A REST GET's key: with the origin, which Link headers name. */
export function restRequestKey(principal: Principal | null, url: URL): string {
  return createHash('sha256').update(sessionOf(principal)).update('\0').update(url.origin).update(url.pathname).update(url.search).digest('base64url');
}
