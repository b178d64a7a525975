import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { RevokedCredentialBus } from '../events/bus.js';
import type { Clock } from '../shared/clock.js';
import { endableStream } from '../shared/streams.js';
import { forgetCredential } from './credential-cache.js';
import type { Admission } from './gate.js';
import { credentialIdOf, type Principal } from './principal.js';

/** How often held connections are checked for keys past their expiry: they end at most this late. */
const expiryCheckMs = 1_000;

/**
 * The long-lived connections (graphql-ws sockets, SSE streams) of each credential, so that they end
 * when it stops being valid: revoked or rotated on any instance (announced on the bus), or expired.
 */
export interface OpenConnections {
  /**
   * Holds one connection of `principal`: `end` is called once when its credential is revoked, rotated
   * or expires. Call the returned release when the connection ends by itself.
   */
  hold(principal: Principal, end: () => void): () => void;
  /** Stops listening for revocations and expiries. */
  close(): Promise<void>;
}

interface Held {
  end(): void;
  expiresAt: Date | null;
}

export function trackOpenConnections(options: { revokedCredentials: RevokedCredentialBus; clock: Clock; logger: Logger }): OpenConnections {
  const byCredential = new Map<string, Set<Held>>();
  const expiring = new Set<Held>();

  const revoked = options.revokedCredentials.subscribe()[Symbol.asyncIterator]();
  const listening = (async () => {
    for (;;) {
      const next = await revoked.next();
      if (next.done) return;
      // Wherever it was revoked or rotated, this instance must read the record again from now on.
      forgetCredential(next.value);
      for (const held of [...(byCredential.get(next.value) ?? [])]) held.end();
    }
  })().catch((error: unknown) => options.logger.error({ err: error }, 'revocations: stopped listening'));

  const expiryCheck = setInterval(() => {
    const now = options.clock();
    for (const held of [...expiring]) if (held.expiresAt! <= now) held.end();
  }, expiryCheckMs);
  expiryCheck.unref();

  return {
    hold(principal, end) {
      const credentialId = credentialIdOf(principal);
      const connections = byCredential.get(credentialId) ?? new Set<Held>();
      byCredential.set(credentialId, connections);
      const release = () => {
        connections.delete(held);
        if (connections.size === 0 && byCredential.get(credentialId) === connections) byCredential.delete(credentialId);
        expiring.delete(held);
      };
      const held: Held = {
        end: () => {
          release();
          end();
        },
        expiresAt: principal.kind === 'api_key' ? principal.expiresAt : null,
      };
      connections.add(held);
      if (held.expiresAt) expiring.add(held);
      return release;
    },
    async close() {
      clearInterval(expiryCheck);
      await revoked.return?.();
      await listening;
    },
  };
}

/** Ends each GraphQL stream answered over HTTP (SSE) when its credential is revoked, rotated or expires. */
export function useStreamRevocation(connections: OpenConnections): Plugin<Record<string, unknown>, { admission: Admission }> {
  return {
    onResultProcess: ({ result, setResult, serverContext }) => {
      const { principal } = serverContext.admission;
      if (!principal || !isAsyncIterable(result)) return;
      let release: () => void = () => undefined;
      const revocable = endableStream(result, () => release());
      release = connections.hold(principal, revocable.end);
      setResult(revocable.stream);
    },
  };
}
