import type { IncomingHttpHeaders } from 'node:http';
import type { Context } from '../graphql/context.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface RestRequest {
  method: HttpMethod;
  url: URL;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body; undefined when the request had none. */
  body: unknown;
  context: Context;
}

export interface RestResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Newest update time of the records in the body, for Last-Modified. */
  lastModified?: Date | null;
}

export interface RestRoute {
  method: HttpMethod;
  /** Path template such as /v1/bookings/:id */
  path: string;
  /** Routes that answer without a key (the OpenAPI documents). */
  public?: boolean;
  /** max-age for Cache-Control on successful GETs. */
  cacheSeconds?: number;
  /**
   * A cheap fingerprint of everything the route's answer depends on besides the URL (its data, and
   * the caller if answers differ by caller). The router reads it before every GET and keeps each
   * 200 answer under (fingerprint, URL); a GET whose answer is kept gets it (or its 304) without
   * running the operation. Equal fingerprints must mean equal answers.
   */
  validator?(request: RestRequest): Promise<string>;
  handle(request: RestRequest): Promise<RestResult>;
}
