import { createSourceEventStream, execute, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from './context.js';
import { sessionOf } from '../response-cache/request-keys.js';

/**
 * Fan-out of one event to many subscribers: the selection is executed once per event for every
 * subscriber that would get the same answer — the same document, operation, variables and caller
 * (account, credential, scopes) — and each of them is sent that one result. Subscribers of an
 * account that are at the same place of the log receive the same event object (the log read is
 * shared, src/events/subscriptions.ts), which keys the results; they go when the event does.
 * Otherwise this is graphql-js's own subscribe: the source stream per subscriber, its events mapped
 * through `execute` with the event as the root value.
 */
const resultsByEvent = new WeakMap<object, Map<string, Promise<ExecutionResult>>>();
const documentIds = new WeakMap<DocumentNode, number>();
let nextDocumentId = 0;

function groupOf(args: ExecutionArgs): string {
  let documentId = documentIds.get(args.document);
  if (documentId === undefined) documentIds.set(args.document, (documentId = nextDocumentId++));
  const context = args.contextValue as Context;
  return `${documentId}\u0000${args.operationName ?? ''}\u0000${JSON.stringify(args.variableValues ?? {})}\u0000${sessionOf(context.principal)}`;
}

function sharedResult(event: unknown, group: string, run: () => Promise<ExecutionResult>): Promise<ExecutionResult> {
  if (typeof event !== 'object' || event === null) return run();
  let byGroup = resultsByEvent.get(event);
  if (!byGroup) resultsByEvent.set(event, (byGroup = new Map()));
  let result = byGroup.get(group);
  if (!result) byGroup.set(group, (result = run()));
  return result;
}

/**
 * The source's events as results. Not an async generator: its return() would wait behind a next()
 * waiting for the source's next event, so a subscriber that leaves would hold what its source holds
 * until then; here it reaches the source at once.
 */
function mapped(source: AsyncIterator<unknown>, args: ExecutionArgs, group: string): AsyncIterableIterator<ExecutionResult> {
  const done: IteratorReturnResult<undefined> = { done: true, value: undefined };
  const results: AsyncIterableIterator<ExecutionResult> = {
    [Symbol.asyncIterator]: () => results,
    async next() {
      let next: IteratorResult<unknown>;
      try {
        next = await source.next();
      } catch (error) {
        await source.return?.();
        throw error;
      }
      if (next.done) return done;
      return { done: false, value: await sharedResult(next.value, group, async () => execute({ ...args, rootValue: next.value })) };
    },
    async return() {
      await source.return?.();
      return done;
    },
  };
  return results;
}

async function fanOutSubscribe(args: ExecutionArgs): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const source = await createSourceEventStream(args);
  if (!(Symbol.asyncIterator in source)) return source;
  return mapped(source[Symbol.asyncIterator](), args, groupOf(args));
}

export function useSubscriptionFanOut(): Plugin<Context> {
  return {
    onSubscribe: ({ setSubscribeFn }) => {
      setSubscribeFn(fanOutSubscribe as never);
    },
  };
}
