import { AppError } from '../shared/errors.js';
import type { RestResult } from './routes.js';

/** The part of a Relay connection a REST list needs. */
export interface Connection<Node> {
  pageInfo: { hasNextPage: boolean; endCursor?: string | null };
  edges: ReadonlyArray<{ node: Node }>;
}

export const defaultLimit = 20;
export const maxLimit = 100;

/** `limit` (1–100, default 20) and `cursor` as connection arguments; 400 `invalid_parameter` otherwise. */
export function pageArguments(query: URLSearchParams): { first: number; after?: string } {
  const limitText = query.get('limit');
  const limit = limitText === null ? defaultLimit : /^\d{1,3}$/.test(limitText) ? Number(limitText) : Number.NaN;
  if (!(limit >= 1 && limit <= maxLimit)) {
    throw new AppError('invalid_parameter', `limit must be an integer from 1 to ${maxLimit}.`, {
      fieldErrors: [{ field: 'limit', code: 'out_of_range', message: `Use 1 to ${maxLimit}.` }],
    });
  }
  const cursor = query.get('cursor');
  return { first: limit, ...(cursor ? { after: cursor } : {}) };
}

/** `{ data, has_more, next_cursor }` with a `Link: <…>; rel="next"` header when there is a next page. */
export function listPage<Node, Item>(url: URL, connection: Connection<Node>, toItem: (node: Node) => Item): RestResult {
  const nextCursor = connection.pageInfo.hasNextPage ? (connection.pageInfo.endCursor ?? null) : null;
  const headers: Record<string, string> = {};
  if (nextCursor) {
    const next = new URLSearchParams(url.searchParams);
    next.set('cursor', nextCursor);
    headers['link'] = `<${url.pathname}?${next.toString()}>; rel="next"`;
  }
  return {
    status: 200,
    headers,
    body: { data: connection.edges.map((edge) => toItem(edge.node)), has_more: nextCursor !== null, next_cursor: nextCursor },
  };
}
