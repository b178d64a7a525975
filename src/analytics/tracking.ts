import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { getOperationAST, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { otherGraphQLRoute, type UsageRecorder } from './recorder.js';

/** Records an API key's request when its response has been sent. `routeOf` is read then, once the route is known. */
export function trackResponse(recorder: UsageRecorder, response: ServerResponse, apiKeyId: string, routeOf: () => string, startedAt: number): void {
  // On close, not finish: an event stream its client leaves never finishes, and is counted all the
  // same (its latency how long it was open). A request its client left before any answer is not.
  response.once('close', () => {
    if (!response.headersSent) return;
    recorder.record({
      apiKeyId,
      route: routeOf(),
      status: response.statusCode,
      latencyMs: performance.now() - startedAt,
      bytes: Number(response.getHeader('content-length')) || 0,
    });
  });
}

/** Longest operation name that becomes its own route; labels and usage rows stay small whatever clients send. */
const maxOperationNameLength = 64;
const graphqlName = /^[_A-Za-z][_0-9A-Za-z]*$/;

/** An operation's name when it is short enough to label metrics, usage rows and span names; undefined otherwise. */
export function boundedOperationName(operationName: string | null | undefined): string | undefined {
  return operationName && operationName.length <= maxOperationNameLength && graphqlName.test(operationName) ? operationName : undefined;
}

/** `graphql:<name>` for the name of an operation that was executed; `graphql:other` for anything else. */
export function graphqlRouteOf(operationName: string | null | undefined): string {
  const name = boundedOperationName(operationName);
  return name ? `graphql:${name}` : otherGraphQLRoute;
}

/** The route of the operation of `document` that `operationName` picks. */
export function operationRouteOf(document: DocumentNode, operationName: string | null | undefined): string {
  return graphqlRouteOf(getOperationAST(document, operationName)?.name?.value);
}

/** What the HTTP layer lends an operation's context, to learn which operation ran. */
export interface OperationRouteListener {
  operationRan?(route: string): void;
}

/** Tells the request's listener the route of the operation it executes, once parsed, validated and found. */
export function useOperationRoute(): Plugin {
  const report = ({ args }: { args: { document: DocumentNode; operationName?: string | null | undefined; contextValue: unknown } }) => {
    (args.contextValue as OperationRouteListener).operationRan?.(operationRouteOf(args.document, args.operationName));
  };
  return { onExecute: report, onSubscribe: report };
}
