import { GraphQLError, type ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { ReadRows } from '../db/connection.js';
import type { RevokedCredentialBus } from '../events/bus.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { Clock } from '../shared/clock.js';
import { endableStream } from '../shared/streams.js';
import { credentialStillValid } from './authenticate.js';
import { forgetCredential } from './credential-cache.js';
import { unauthenticated } from './keys.js';
import type { Admission } from './gate.js';
import { credentialIdOf, type Principal } from './principal.js';

/**
 * How often each instance asks the database whether the credentials holding its open connections
 * are still valid. The announcement on the bus ends them at once; this check keeps the promise
 * (an open connection ends at most 5 s after its credential stops being valid) when an
 * announcement is lost or the bus is down or hung: one interval plus the check's deadline is 3.5 s,
 * which leaves room for a late timer on a loaded machine.
 */
export const credentialRecheckMs = 2_000;

/**
 * How long one check waits for the database. Past it the round counts as failed and connections
 * are kept: an unreachable database says nothing about credentials. The next round starts only
 * once the late query settles, so a hung database holds at most one pooled connection for checks.
 */
const recheckDeadlineMs = 1_500;

/**
 * The held credentials that are no longer valid, in one query whatever the number of connections:
 * each API key with the secret hash its connections were opened with (revoked, expired, deleted or
 * rotated to another secret), each widget token (revoked or deleted). One index lookup per credential.
 */
const invalidCredentialsRead = {
  name: 'hallowgate_invalid_held_credentials',
  text: `SELECT held.id, held.secret_hash FROM unnest($1::text[], $2::text[]) AS held(id, secret_hash)
           WHERE NOT EXISTS (SELECT 1 FROM api_keys k WHERE k.id = held.id AND k.secret_hash = held.secret_hash AND k.revoked_at IS NULL
                               AND (k.expires_at IS NULL OR k.expires_at > ($3::timestamptz AT TIME ZONE 'UTC')))
         UNION ALL
         SELECT held.id, NULL FROM unnest($4::text[]) AS held(id)
           WHERE NOT EXISTS (SELECT 1 FROM widget_tokens w WHERE w.id = held.id AND w.revoked_at IS NULL)`,
};

/**
 * The long-lived connections (graphql-ws sockets, SSE and multipart streams) of each credential, so
 * that they end when it stops being valid: revoked or rotated on this instance (at once), announced
 * on the bus from another one (at once), or found so by the periodic check of the database, or
 * expired.
 */
export interface OpenConnections {
  /**
   * Holds one connection of `principal`: `end` is called once when its credential is revoked, rotated
   * or expires, or when the instance shuts down unless it gives `cut`, which is called then instead.
   * Call the returned release when the connection ends by itself.
   */
  hold(principal: Principal, end: () => void, cut?: () => void): () => void;
  /**
   * Whether `principal`'s credential is still valid, for each new operation over an open connection.
   * Answered from the credential cache (at most a few seconds old; revoking here empties it at once).
   * When it is not, its connections end here at once.
   */
  stillValid(principal: Principal): Promise<boolean>;
  /** Announces revoked or rotated credentials to every instance and applies them on this one at once, whether or not the bus carries them. */
  revokedCredentials: RevokedCredentialBus;
  /** Ends every connection still held: at shutdown, for the streams nothing else closes (SSE and multipart). */
  endAll(): void;
  /** Stops listening for revocations and checking. */
  close(): Promise<void>;
}

interface Held {
  end(): void;
  /** Ends the connection at shutdown, when that is not `end`. */
  cut: (() => void) | undefined;
  /** The secret hash an API key's connection was opened with; null for a widget token. */
  secretHash: string | null;
  expiresAt: Date | null;
}

export interface OpenConnectionsOptions {
  revokedCredentials: RevokedCredentialBus;
  prisma: PrismaClient;
  readRows: ReadRows;
  clock: Clock;
  logger: Logger;
}

export function trackOpenConnections(options: OpenConnectionsOptions): OpenConnections {
  const { logger } = options;
  const byCredential = new Map<string, Set<Held>>();

  /** Ends `credentialId`'s connections (only those opened with `secretHash`, when given), and forgets its cached record. */
  function endConnections(credentialId: string, secretHash?: string | null): void {
    // This instance must read the record again from now on.
    forgetCredential(credentialId);
    for (const held of [...(byCredential.get(credentialId) ?? [])]) {
      if (secretHash === undefined || secretHash === null || held.secretHash === secretHash) held.end();
    }
  }

  const announced = options.revokedCredentials.subscribe()[Symbol.asyncIterator]();
  const listening = (async () => {
    for (;;) {
      const next = await announced.next();
      if (next.done) return;
      endConnections(next.value);
    }
  })().catch((error: unknown) => logger.error({ err: error }, 'revocations: stopped listening'));

  /** The check under way, until its query settles (even past its deadline). */
  let checking: Promise<void> | undefined;

  async function checkHeldCredentials(): Promise<void> {
    const now = options.clock();
    const keyIds: string[] = [];
    const secretHashes: string[] = [];
    const tokenIds: string[] = [];
    for (const [credentialId, connections] of byCredential) {
      const hashes = new Set<string | null>();
      for (const held of connections) {
        // Expiry needs no database: the principal knows when.
        if (held.expiresAt && held.expiresAt <= now) held.end();
        else hashes.add(held.secretHash);
      }
      for (const hash of hashes) {
        if (hash === null) {
          tokenIds.push(credentialId);
        } else {
          keyIds.push(credentialId);
          secretHashes.push(hash);
        }
      }
    }
    if (keyIds.length === 0 && tokenIds.length === 0) return;
    const query = options.readRows<{ id: string; secret_hash: string | null }>({ ...invalidCredentialsRead, values: [keyIds, secretHashes, now.toISOString(), tokenIds] });
    // Applied whenever it answers, even past the deadline: a credential found invalid stays so.
    const applied = query.then(
      (rows) => {
        for (const row of rows) endConnections(row.id, row.secret_hash);
      },
      (error: unknown) => logger.warn({ err: error }, 'revocations: could not check the credentials of open connections; they stay open until the database answers'),
    );
    let timer: NodeJS.Timeout | undefined;
    const overdue = new Promise<'overdue'>((resolve) => (timer = setTimeout(() => resolve('overdue'), recheckDeadlineMs)));
    const outcome = await Promise.race([applied, overdue]);
    clearTimeout(timer);
    if (outcome === 'overdue') {
      logger.warn({ deadline_ms: recheckDeadlineMs }, 'revocations: the database did not answer the credential check in time; open connections stay open until it does');
    }
    await applied;
  }

  const recheck = setInterval(() => {
    if (checking) return;
    checking = checkHeldCredentials()
      .catch((error: unknown) => logger.error({ err: error }, 'revocations: credential check failed'))
      .finally(() => (checking = undefined));
  }, credentialRecheckMs);
  recheck.unref();

  return {
    hold(principal, end, cut) {
      const credentialId = credentialIdOf(principal);
      const connections = byCredential.get(credentialId) ?? new Set<Held>();
      byCredential.set(credentialId, connections);
      const release = () => {
        connections.delete(held);
        if (connections.size === 0 && byCredential.get(credentialId) === connections) byCredential.delete(credentialId);
      };
      const held: Held = {
        end: () => {
          release();
          end();
        },
        cut,
        secretHash: principal.kind === 'api_key' ? principal.secretHash : null,
        expiresAt: principal.kind === 'api_key' ? principal.expiresAt : null,
      };
      connections.add(held);
      return release;
    },
    async stillValid(principal) {
      if (await credentialStillValid(options.prisma, principal, options.clock())) return true;
      endConnections(credentialIdOf(principal), principal.kind === 'api_key' ? principal.secretHash : null);
      return false;
    },
    revokedCredentials: {
      publish(credentialId) {
        endConnections(credentialId);
        options.revokedCredentials.publish(credentialId);
      },
      subscribe: () => options.revokedCredentials.subscribe(),
    },
    endAll() {
      for (const connections of [...byCredential.values()]) for (const held of [...connections]) (held.cut ?? held.end)();
    },
    async close() {
      clearInterval(recheck);
      await announced.return?.();
      await listening;
    },
  };
}

/** The last result of a stream whose credential stopped being valid: its client learns why it ends. */
const credentialEndedResult = (): ExecutionResult => {
  const refusal = unauthenticated('The credential this stream was opened with is no longer valid (revoked, rotated or expired).', 'invalid_token');
  return { errors: [new GraphQLError(refusal.message, { originalError: refusal, extensions: { code: refusal.code } })] };
};

/**
 * A GraphQL stream answered over HTTP, ended with an `unauthenticated` error result when its
 * credential is revoked, rotated or expires. At shutdown its connection is `cut` when that is given:
 * a client that sees its subscription complete does not resubscribe, one that loses its connection
 * reconnects (to another instance), as a graphql-ws client does on 1001.
 */
export function revocableStream(
  connections: Pick<OpenConnections, 'hold'>,
  principal: Principal,
  stream: AsyncIterable<ExecutionResult>,
  cut?: () => void,
): AsyncIterable<ExecutionResult> {
  let release: () => void = () => undefined;
  const revocable = endableStream(stream, () => release());
  release = connections.hold(principal, () => revocable.end(credentialEndedResult()), cut);
  return revocable.stream;
}

/**
 * Ends each GraphQL stream answered over HTTP (SSE, multipart) when its credential is revoked, rotated
 * or expires (revocableStream), and cuts its connection at shutdown.
 */
export function useStreamRevocation(connections: OpenConnections): Plugin<Record<string, unknown>, { admission: Admission; cutConnection?: () => void }> {
  return {
    onResultProcess: ({ result, setResult, serverContext }) => {
      const { principal } = serverContext.admission;
      if (!principal || !isAsyncIterable(result)) return;
      setResult(revocableStream(connections, principal, result, serverContext.cutConnection));
    },
  };
}
