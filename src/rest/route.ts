import type { DocumentNode } from 'graphql';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/**
 * A REST route as data: which GraphQL operation answers it and how the request becomes its
 * variables. Everything else is derived from the operation and the schema, by one handler:
 * - path parameters fill the variable of the same name in camelCase (`:delivery_id` → `$deliveryId`);
 * - every other variable is the query parameter of its snake_case name (`$startDate` ← `start_date`),
 *   typed by the variable (Int, Boolean, enum values in lowercase);
 * - `$first`/`$after` are `limit` (1–100, default 20) and `cursor`; `$orderBy` is `sort=-price_min,title`;
 *   `$with…`/`$include…` booleans are `fields=` and `include=` over the keys they guard;
 * - a connection answer is a list page `{ data, has_more, next_cursor }` with a `Link` header;
 * - enum values are lowercase, nested connections are arrays of their nodes, and keys aliased
 *   `_…` are read for headers (Last-Modified) but never sent;
 * - a GET whose root fields all declare a data version has its responses cached (src/response-cache/);
 *   every 200 to a GET carries an ETag, and a matching conditional GET gets 304;
 * - a GET with an `eventStream` whose Accept header prefers `text/event-stream` runs that subscription
 *   instead, its variables filled the same way, and sends each result's answer, in REST form, as one
 *   server-sent event (`data: {…}`).
 */
export interface OperationRoute {
  method: HttpMethod;
  /** Path template such as /v1/bookings/:id */
  path: string;
  operation: DocumentNode;
  /** Dotted path of the answer in `data` (`createBooking.booking`). */
  answer: string;
  /** Variables whose parameter is named otherwise than the rule above: `{ after: 'afterEvent' }`. */
  parameters?: Record<string, string>;
  /** The variable the JSON body fills, its snake_case keys as the input's fields. */
  body?: string;
  /** Request headers that fill variables: `{ 'idempotency-key': 'idempotencyKey' }`. */
  headers?: Record<string, string>;
  /** A child object of the answer whose keys join the answer's own (`{ ...endpoint, secret }`). */
  spread?: string;
  /** Keys with fixed values added to the answer (`{ deleted: true }`). */
  constant?: Record<string, string | number | boolean>;
  /** Success status; 200 when absent. */
  status?: 200 | 201 | 202;
  /** Sends `Location: <path>/<answer id>`, or `<this collection path>/<answer id>` when the record is read elsewhere. */
  location?: true | string;
  /** Response headers sent as `true` when the boolean at a path of `data` is: `{ 'idempotent-replayed': 'createBooking.replayed' }`. */
  flags?: Record<string, string>;
  /** Dotted path (through lists and connections) of the times whose newest is Last-Modified. */
  lastModified?: string;
  /** max-age of Cache-Control on successful GETs. */
  cacheSeconds?: number;
  /** A query parameter with which the answer is undated and not kept: no Last-Modified, max-age 0 (its ETag still follows its content). */
  liveWith?: string;
  /** The subscription that answers the route as server-sent events, and the dotted path of each event's answer in its `data`. */
  eventStream?: { operation: DocumentNode; answer: string };
}

/** A route that serves a fixed document (the OpenAPI documents), without a credential. */
export interface DocumentRoute {
  method: 'GET';
  path: string;
  cacheSeconds: number;
  /** The document for clients reaching the server at `origin` (its `servers`). */
  document(origin: string): unknown;
}

export type RestRoute = OperationRoute | DocumentRoute;

export const isOperationRoute = (route: RestRoute): route is OperationRoute => 'operation' in route;

/** Where a route's new records are read: its own path, or the collection it names. */
export const recordsPath = (route: OperationRoute, path: string): string => (typeof route.location === 'string' ? route.location : path.replace(/\/$/, ''));

/**
 * Whether the route is a PATCH of a path a GET reads: its 200 is the resource as it now is, that
 * GET's representation, and carries that GET's ETag, so the next conditional change needs no read first.
 */
export const answersWithValidator = (route: RestRoute, routes: readonly RestRoute[]): boolean =>
  route.method === 'PATCH' && routes.some((other) => other.method === 'GET' && other.path === route.path);
