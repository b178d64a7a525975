import { GraphQLBoolean, GraphQLInt, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString, type ExecutionResult } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../src/access/principal.js';
import { useSubscriptionFanOut } from '../../src/graphql/subscription-fan-out.js';

/**
 * The plugin on a schema of its own, through Yoga's real envelope (its parser cache included): every
 * subscriber receives the same event object, and the `label` resolver counts the executions.
 */
function harness() {
  let executions = 0;
  const listeners = new Set<(event: object) => void>();
  const tick = new GraphQLObjectType({
    name: 'Tick',
    fields: {
      n: { type: new GraphQLNonNull(GraphQLInt) },
      label: {
        type: new GraphQLNonNull(GraphQLString),
        args: { prefix: { type: GraphQLString } },
        resolve: (event: { n: number }, args: { prefix?: string | null }) => {
          executions++;
          return `${args.prefix ?? ''}${event.n}`;
        },
      },
    },
  });
  const schema = new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: { ok: { type: GraphQLBoolean } } }),
    subscription: new GraphQLObjectType({
      name: 'Subscription',
      fields: {
        ticks: {
          type: new GraphQLNonNull(tick),
          subscribe: async function* () {
            const queue: object[] = [];
            let wake: (() => void) | undefined;
            const listener = (event: object) => {
              queue.push(event);
              wake?.();
            };
            listeners.add(listener);
            try {
              for (;;) {
                while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
                yield queue.shift();
              }
            } finally {
              listeners.delete(listener);
            }
          },
          resolve: (event: object) => event,
        },
      },
    }),
  });
  const yoga = createYoga({ schema, plugins: [useSubscriptionFanOut()] });
  return {
    executions: () => executions,
    publish: (event: object) => listeners.forEach((listener) => listener(event)),
    subscribers: () => listeners.size,
    /** A subscriber as graphql-ws makes one: the document through Yoga's parse, a context of its own. */
    async subscribe(principal: Principal, query: string, variables: Record<string, unknown> = {}) {
      const { parse, subscribe, contextFactory } = yoga.getEnveloped({});
      const contextValue = Object.assign(await contextFactory(), { principal });
      const stream = (await subscribe({ schema, document: parse(query), contextValue, variableValues: variables })) as AsyncGenerator<ExecutionResult>;
      // A source stream starts when its first value is asked for.
      return { first: stream.next(), stream };
    },
  };
}

const apiKey = (keyId: string): Principal => ({
  kind: 'api_key',
  keyId,
  accountId: 'acct_fan',
  scopes: ['bookings:read'],
  plan: 'pro',
  promo: false,
  expiresAt: null,
  secretHash: 'not-checked-here',
});

describe('useSubscriptionFanOut', () => {
  it('executes an event once for 50 subscribers with one caller, document and variables, and gives each that answer', async () => {
    const fan = harness();
    const subscribers = await Promise.all(Array.from({ length: 50 }, () => fan.subscribe(apiKey('key_a'), 'subscription { ticks { n label(prefix: "#") } }')));
    await expect.poll(() => fan.subscribers()).toBe(50);
    fan.publish({ n: 7 });
    const results = await Promise.all(subscribers.map(({ first }) => first));
    expect(results.map((result) => result.value)).toEqual(Array(50).fill({ data: { ticks: { n: 7, label: '#7' } } }));
    expect(fan.executions()).toBe(1);
    await Promise.all(subscribers.map(({ stream }) => stream.return(undefined)));
  });

  it('keeps callers and variables apart: one execution for each', async () => {
    const fan = harness();
    const query = 'subscription ($prefix: String) { ticks { label(prefix: $prefix) } }';
    const subscribers = await Promise.all([
      ...Array.from({ length: 20 }, () => fan.subscribe(apiKey('key_a'), query, { prefix: 'a' })),
      ...Array.from({ length: 20 }, () => fan.subscribe(apiKey('key_b'), query, { prefix: 'a' })),
      ...Array.from({ length: 20 }, () => fan.subscribe(apiKey('key_a'), query, { prefix: 'b' })),
    ]);
    await expect.poll(() => fan.subscribers()).toBe(60);
    fan.publish({ n: 1 });
    const labels = (await Promise.all(subscribers.map(({ first }) => first))).map((result) => (result.value as ExecutionResult<{ ticks: { label: string } }>).data!.ticks.label);
    expect(labels).toEqual([...Array<string>(40).fill('a1'), ...Array<string>(20).fill('b1')]);
    expect(fan.executions()).toBe(3);
    await Promise.all(subscribers.map(({ stream }) => stream.return(undefined)));
  });

  it('executes events that are different objects each on their own', async () => {
    const fan = harness();
    const subscribers = await Promise.all(Array.from({ length: 3 }, () => fan.subscribe(apiKey('key_a'), 'subscription { ticks { label } }')));
    await expect.poll(() => fan.subscribers()).toBe(3);
    fan.publish({ n: 1 });
    await Promise.all(subscribers.map(({ first }) => first));
    const seconds = subscribers.map(({ stream }) => stream.next());
    fan.publish({ n: 2 });
    expect((await Promise.all(seconds)).map((result) => result.value)).toEqual(Array(3).fill({ data: { ticks: { label: '2' } } }));
    expect(fan.executions()).toBe(2);
    await Promise.all(subscribers.map(({ stream }) => stream.return(undefined)));
  });

  it('lets each subscriber’s source go when the subscriber returns', async () => {
    const fan = harness();
    const subscribers = await Promise.all(Array.from({ length: 3 }, () => fan.subscribe(apiKey('key_a'), 'subscription { ticks { n } }')));
    await expect.poll(() => fan.subscribers()).toBe(3);
    fan.publish({ n: 1 });
    await Promise.all(subscribers.map(({ first }) => first));
    await subscribers[0]!.stream.return(undefined);
    expect(fan.subscribers()).toBe(2);
    await Promise.all(subscribers.slice(1).map(({ stream }) => stream.return(undefined)));
    expect(fan.subscribers()).toBe(0);
    await expect(subscribers[0]!.stream.next()).resolves.toEqual({ done: true, value: undefined });
  });
});
