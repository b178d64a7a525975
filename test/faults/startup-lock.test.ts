import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl, unansweredGraceMs, whileLocked } from '../../src/db/connection.js';
import { requireService } from '../support/services.js';
import { startFaultProxy, type FaultProxy } from './proxy.js';
import { slowMachineMarginMs } from './timing.js';

const postgresUrl = await requireService('postgres');
const deadlines = { DATABASE_CONNECT_TIMEOUT_MS: 1000, DATABASE_STATEMENT_TIMEOUT_MS: 1000 };
/** A statement through a frozen link is given up at its deadline and the grace after it. */
const statementGiveUpMs = deadlines.DATABASE_STATEMENT_TIMEOUT_MS + unansweredGraceMs;

/** How long `work` took to settle, and how: its value, or its error's message. */
async function timed(work: () => Promise<unknown>): Promise<{ ms: number; outcome: unknown }> {
  const startedAt = performance.now();
  const outcome = await work().then(
    (value) => value,
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );
  return { ms: performance.now() - startedAt, outcome };
}

describe.skipIf(!postgresUrl)('the start-up lock instances take turns under', () => {
  let proxy: FaultProxy;
  let holder: pg.Client | undefined;
  let name = '';
  let counter = 0;

  beforeAll(async () => {
    proxy = await startFaultProxy(postgresUrl!);
  });
  afterEach(async () => {
    proxy.restore();
    await holder?.end();
    holder = undefined;
  });
  afterAll(() => proxy?.close());

  const lockName = () => (name = `hallowgate:test-startup-lock:${process.pid}:${++counter}`);
  /** Another instance's session, holding the lock (as one that is seeding would). */
  async function holdLock(): Promise<void> {
    holder = new pg.Client({ connectionString: postgresUrl });
    await holder.connect();
    await holder.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
  }
  const viaProxy = () => parseDatabaseUrl(proxy.url);

  it('runs the work holding the lock, and releases it', async () => {
    lockName();
    expect(await whileLocked(viaProxy(), name, async () => 'done', { deadlines })).toBe('done');
    await holdLock();
  });

  it('waits for another instance that holds the lock, and gives up, naming it, at its bound', async () => {
    lockName();
    await holdLock();
    let toldOfWait = 0;
    const { ms, outcome } = await timed(() => whileLocked(viaProxy(), name, async () => 'ran', { deadlines, maxWaitMs: 1500, onWait: () => toldOfWait++ }));
    expect(outcome).toMatch(/another instance has held the start-up lock .* for 2 s/);
    expect(ms).toBeGreaterThanOrEqual(1500);
    expect(ms).toBeLessThan(1500 + slowMachineMarginMs);
    expect(toldOfWait).toBe(1);
  });

  it('takes the lock once the other instance lets it go', async () => {
    lockName();
    await holdLock();
    setTimeout(() => void holder!.query('SELECT pg_advisory_unlock(hashtext($1))', [name]), 600);
    expect(await whileLocked(viaProxy(), name, async () => 'ran', { deadlines, maxWaitMs: 10_000 })).toBe('ran');
  });

  it('gives up within the statement deadline when the database freezes while it waits for the lock', async () => {
    lockName();
    await holdLock();
    setTimeout(() => proxy.freeze(), 500);
    const { ms, outcome } = await timed(() => whileLocked(viaProxy(), name, async () => 'ran', { deadlines, maxWaitMs: 60_000 }));
    // The line start-up prints names the server and the deadline, not the driver's "Query read timeout".
    expect(outcome).toMatch(/^PostgreSQL at 127\.0\.0\.1:\d+\/\w* stopped answering during start-up \(no answer within 2 s\); check that it is up and reachable$/);
    // Nor does it wait for the session's end, which a server that stopped answering would not answer.
    expect(ms).toBeLessThan(500 + statementGiveUpMs + slowMachineMarginMs);
  });

  it('does not wait for ever to end its session when the database froze during the work', async () => {
    lockName();
    const { ms, outcome } = await timed(() =>
      whileLocked(
        viaProxy(),
        name,
        async () => {
          proxy.freeze();
          throw new Error('the work failed: the database stopped answering');
        },
        { deadlines },
      ),
    );
    expect(outcome).toBe('the work failed: the database stopped answering');
    expect(ms).toBeLessThan(unansweredGraceMs + slowMachineMarginMs);
  });
});
