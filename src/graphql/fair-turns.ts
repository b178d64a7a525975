import type { Plugin } from '@envelop/core';
import type { Principal } from '../access/principal.js';
import { AppError } from '../shared/errors.js';
import type { Context } from './context.js';
import { maskGraphQLError } from './errors.js';

/** An operation that did not get its turn within its wait: the database is too slow to serve every client. */
class NoTurnInTime extends Error {}

/**
 * Queries and mutations running at once on this instance, taken in turns by credential. While every
 * turn is taken, the next one goes to the credential after the one served last (round robin), to the
 * oldest of its waiting operations: a client that sends hundreds at once delays another client's one
 * by a turn, where the database pool's own queue (first come, first served) would put it behind all
 * of them. Below the limit nothing waits; an operation waits at most as long as for a connection of
 * the pool, and is then refused as the pool would refuse it.
 */
export class FairTurns {
  private running = 0;
  /** Operations waiting their turn, by credential, the credentials in the order they are served. */
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(readonly limit: number) {}

  /** Operations running, and waiting their turn. */
  counts(): { running: number; waiting: number } {
    let waiting = 0;
    for (const queue of this.waiting.values()) waiting += queue.length;
    return { running: this.running, waiting };
  }

  /** Runs `operation` in a turn of `credential`'s; throws NoTurnInTime when none came within `waitMs`. */
  async run<T>(credential: string, operation: () => T | Promise<T>, waitMs: number): Promise<T> {
    if (this.running < this.limit) this.running++;
    else await this.turnOf(credential, waitMs);
    try {
      return await operation();
    } finally {
      this.handOver();
    }
  }

  private turnOf(credential: string, waitMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const queue = this.queueOf(credential);
      const start = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        queue.splice(queue.indexOf(start), 1);
        if (queue.length === 0 && this.waiting.get(credential) === queue) this.waiting.delete(credential);
        reject(new NoTurnInTime());
      }, waitMs);
      queue.push(start);
    });
  }

  private queueOf(credential: string): (() => void)[] {
    let queue = this.waiting.get(credential);
    if (!queue) this.waiting.set(credential, (queue = []));
    return queue;
  }

  /** Gives the turn that ended to the next credential waiting, which then goes to the back; or frees it. */
  private handOver(): void {
    const next = this.waiting.entries().next();
    if (next.done) {
      this.running--;
      return;
    }
    const [credential, queue] = next.value;
    const start = queue.shift()!;
    this.waiting.delete(credential);
    if (queue.length > 0) this.waiting.set(credential, queue);
    start();
  }
}

/** The turns of an instance whose pool holds `poolSize` connections: two stay free of operations, for the access checks and the workers. */
export const turnsOfPool = (poolSize: number) => new FairTurns(Math.max(1, poolSize - 2));

/** Whose turns an operation takes: an API key's, or a widget token's (all its visitors together). */
function credentialOf(principal: Principal | null): string {
  if (!principal) return 'anonymous';
  return principal.kind === 'api_key' ? `key:${principal.keyId}` : `token:${principal.tokenId}`;
}

/**
 * Every query and mutation runs in a turn (FairTurns), waiting for it at most `waitMs`; the response
 * cache answers before, without one. Last in the plugin list, so it wraps the whole execution: the
 * time budget starts once the turn has come.
 */
export function useFairTurns(turns: FairTurns, waitMs: number): Plugin<Context> {
  return {
    onExecute: ({ args, executeFn, setExecuteFn }) => {
      const credential = credentialOf(args.contextValue.principal);
      setExecuteFn(async (executeArgs) => {
        try {
          return await turns.run(credential, () => executeFn(executeArgs), waitMs);
        } catch (error) {
          if (!(error instanceof NoTurnInTime)) throw error;
          // The instance's turns were all taken for as long as a connection of the pool may be waited
          // for: too much at once for this instance (or a database slow to answer), not one that is down.
          const busy = new AppError('service_unavailable', `This instance is busy: the request waited ${waitMs} ms for its turn and ran nothing; retry shortly.`, {
            headers: { 'retry-after': '5' },
          });
          return { errors: [maskGraphQLError(busy)] };
        }
      });
    },
  };
}
