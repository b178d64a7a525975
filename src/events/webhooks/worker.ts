import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import { Prisma, type PrismaClient, type WebhookEndpoint } from '../../generated/prisma/client.js';
import type { Clock } from '../../shared/clock.js';
import { databaseUnavailable } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { pollingLoop } from '../../shared/polling.js';
import type { SecretBox } from '../../shared/secrets.js';
import { describeDeliveryFailure, postWebhook } from './destination.js';
import { signatureHeader } from './signing.js';
import { inDeliverySpan, outgoingTraceHeaders, type DeliverySpan } from '../../tracing/webhooks.js';

/** What one attempt needs: the database, the signing secrets, and the rules of an attempt's outcome. */
export interface AttemptOptions {
  prisma: PrismaClient;
  logger: Logger;
  clock: Clock;
  /** Waits before the 2nd, 3rd, … attempt; after the last one the delivery fails. */
  retrySchedule: number[];
  timeoutMs: number;
  disableAfterMs: number;
  allowPrivate: boolean;
  /** Decrypts the endpoints' signing secrets. */
  secrets: SecretBox;
  /**
   * The worker's: an outcome the database did not take is offered again until this aborts (the
   * worker stops). Without it (a test event, answered within its request) it is offered once.
   */
  retryRecordUntil?: AbortSignal;
}

type AttemptSettings = Pick<Config, 'WEBHOOK_RETRY_SCHEDULE' | 'WEBHOOK_TIMEOUT_MS' | 'WEBHOOK_DISABLE_AFTER_MS' | 'WEBHOOK_ALLOW_PRIVATE'>;

/** The options of an attempt as the settings give them, for the worker and for a test event alike. */
export function attemptOptionsOf(config: AttemptSettings, services: Pick<AttemptOptions, 'prisma' | 'logger' | 'clock' | 'secrets'>): AttemptOptions {
  return {
    ...services,
    retrySchedule: parseSchedule(config.WEBHOOK_RETRY_SCHEDULE),
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    disableAfterMs: config.WEBHOOK_DISABLE_AFTER_MS,
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
  };
}

export interface DeliveryWorkerOptions extends AttemptOptions {
  pollMs: number;
  /** Attempts this instance runs at once. */
  concurrency: number;
  /**
   * Attempts one account may have under way at once, over all instances (counted from the leases
   * in the database), so an account whose endpoints hang cannot take every slot.
   */
  concurrencyPerAccount: number;
}

/** A delivery whose lease this instance holds until locked_until. */
export interface ClaimedDelivery {
  id: string;
  endpoint_id: string;
  message_id: string;
  payload: unknown;
  attempt_count: number;
  locked_until: Date;
  /** The traceparent of the span that recorded the message, which the attempt's span links to. */
  trace_parent: string | null;
}

/**
 * Makes claims, and test events that lease a delivery of their own, take turns across instances, so
 * each counts the leases the others have committed: no account goes over its share, and no endpoint
 * receives two at once.
 */
export async function takeDeliveryTurn(tx: Prisma.TransactionClient): Promise<void> {
  await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtext('hallowgate:webhook-claim'))::text`;
}

/**
 * A lease outlasts the attempt's timeout by this much, for the database work around the request
 * (loading the endpoint, recording the outcome): an attempt never outlives its lease, so no other
 * instance claims a delivery while it is still being sent.
 */
export const leaseMarginMs = 5_000;

const units = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** "5s,5m,30m" → milliseconds. */
export function parseSchedule(text: string): number[] {
  return text.split(',').map((part) => {
    const [, amount, unit] = /^(\d+)(ms|s|m|h)$/.exec(part.trim())!;
    return Number(amount) * units[unit as keyof typeof units];
  });
}

/** `deadlineMs`: how long `deadline` gave the attempt, for the outcome to say. `started`: when the request began. */
async function send(options: AttemptOptions, endpoint: WebhookEndpoint, delivery: ClaimedDelivery, deadline: AbortSignal, deadlineMs: number) {
  const { clock } = options;
  const started = clock();
  const body = JSON.stringify(delivery.payload);
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'hallowgate-webhooks/1',
    'webhook-id': delivery.message_id,
    'webhook-timestamp': String(Math.floor(started.getTime() / 1000)),
    'webhook-signature': signatureHeader(endpoint, options.secrets, delivery.message_id, started, body),
    // The attempt's span, so the receiver's work joins its trace (none when tracing is off).
    ...outgoingTraceHeaders(),
  };
  try {
    const status = await postWebhook(new URL(endpoint.url), headers, body, { allowPrivate: options.allowPrivate, signal: deadline });
    return { ok: status >= 200 && status < 300, responseStatus: status, error: null, started };
  } catch (error) {
    const message = deadline.aborted ? `No answer within ${deadlineMs} ms.` : describeDeliveryFailure(error);
    return { ok: false, responseStatus: null, error: message, started };
  }
}

/** Whether a delivery's body is a test event (`"test": true`, which only test events carry). */
export function isTestEventBody(payload: unknown): boolean {
  return (payload as { test?: unknown } | null)?.test === true;
}

/**
 * Sends one attempt of a claimed delivery and records its outcome: the attempt, the delivery's next
 * state (done, or due again after the retry schedule), and the endpoint's failure streak.
 */
export async function attemptDelivery(options: AttemptOptions, delivery: ClaimedDelivery): Promise<void> {
  await inDeliverySpan(delivery, (span) => sendAndRecord(options, delivery, span));
}

async function sendAndRecord(options: AttemptOptions, delivery: ClaimedDelivery, span: DeliverySpan): Promise<void> {
  const { prisma, logger, clock } = options;
  // Counted from the lease, so loading the endpoint, DNS, the request and the answer (its body too)
  // all end leaseMarginMs before it does, however long the claim took to come back, and the attempt
  // keeps its slot, here and in its account's share, until its connection is finished with.
  const sendingMs = Math.floor(Math.min(options.timeoutMs, delivery.locked_until.getTime() - leaseMarginMs - clock().getTime()));
  if (sendingMs < options.timeoutMs / 2) {
    // The claim came back too late to send within its lease: given back untried, to be claimed again
    // with a whole attempt's time, rather than cut short and counted as a receiver that did not answer.
    logger.warn({ delivery: delivery.id, left_ms: sendingMs }, 'webhook claim came back too late to send within its lease; given back');
    await prisma.webhookDelivery.updateMany({ where: { id: delivery.id, lockedUntil: delivery.locked_until }, data: { lockedUntil: null, attemptCount: { decrement: 1 } } });
    return;
  }
  const deadline = AbortSignal.timeout(sendingMs);
  const endpoint = await prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: delivery.endpoint_id } });
  const { started, ...outcome } = await send(options, endpoint, delivery, deadline, sendingMs);
  // The attempt lasts from its request to the answer (or the failure), not to the end of the database work recording it.
  const now = clock();
  span.answered(new URL(endpoint.url), outcome.responseStatus);
  // A test event is attempted once, redelivered or not: it never holds the endpoint's real deliveries back.
  const retryAfter = isTestEventBody(delivery.payload) ? undefined : options.retrySchedule[delivery.attempt_count - 1];
  // 410 Gone: the receiver says the endpoint is no more, so it is disabled rather than retried.
  const gone = outcome.responseStatus === 410;
  const finished = outcome.ok || gone || retryAfter === undefined;
  // One id for every try of the record: a try whose commit went through unanswered is not recorded twice.
  const attemptId = newId('webhookAttempt');
  const recordOutcome = async (tx: Prisma.TransactionClient) => {
    // The request was sent: it is part of the delivery's history even when its record comes so late
    // that another instance has claimed the delivery again.
    const { count: added } = await tx.webhookAttempt.createMany({
      skipDuplicates: true,
      data: {
        id: attemptId,
        deliveryId: delivery.id,
        attemptNumber: delivery.attempt_count,
        startedAt: started,
        // On the clock started_at and completed_at are read from; one set back meanwhile makes it no time, never a negative one.
        durationMs: Math.max(0, now.getTime() - started.getTime()),
        responseStatus: outcome.responseStatus,
        error: outcome.error,
      },
    });
    if (added === 0) return;
    // Only the holder of the lease records what the outcome means for the delivery and the endpoint.
    const { count } = await tx.webhookDelivery.updateMany({ where: { id: delivery.id, lockedUntil: delivery.locked_until }, data: { lockedUntil: null } });
    if (count === 0) return;
    // Still pending: a delivery its endpoint's deletion abandoned meanwhile stays failed (its attempt is still recorded).
    await tx.webhookDelivery.updateMany({
      where: { id: delivery.id, status: 'pending' },
      data: {
        status: outcome.ok ? 'succeeded' : finished ? 'failed' : 'pending',
        ...(finished ? { completedAt: now } : { nextAttemptAt: new Date(now.getTime() + retryAfter!) }),
      },
    });
    if (outcome.ok) {
      if (endpoint.failingSince) await tx.webhookEndpoint.update({ where: { id: endpoint.id }, data: { failingSince: null } });
      return;
    }
    const failingSince = endpoint.failingSince ?? now;
    const disabledReason = gone
      ? 'The endpoint answered 410 Gone.'
      : now.getTime() - failingSince.getTime() >= options.disableAfterMs
        ? `No successful delivery since ${failingSince.toISOString()}.`
        : null;
    await tx.webhookEndpoint.update({
      where: { id: endpoint.id },
      data: { failingSince, ...(disabledReason ? { enabled: false, disabledReason } : {}) },
    });
  };
  const recorded = await recordedOnceTheDatabaseTakesIt(() => prisma.$transaction(recordOutcome), options.retryRecordUntil);
  if (!recorded) {
    logger.warn(
      { delivery: delivery.id, endpoint: endpoint.id, attempt: delivery.attempt_count, ...outcome },
      'webhook attempt not recorded: the database did not take its outcome in time; the delivery will be sent again',
    );
    return;
  }
  if (!outcome.ok) logger.info({ delivery: delivery.id, endpoint: endpoint.id, attempt: delivery.attempt_count, ...outcome }, 'webhook attempt failed');
}

/** How often, and for how long after an attempt, its outcome is offered again to a database that did not take it. */
const recordRetryEveryMs = 1_000;
const recordRetryForMs = 60_000;

/**
 * Runs `record` until the database takes it: an attempt's outcome is offered again through an outage
 * (PostgreSQL restarting, frozen, out of connections) rather than lost, which would leave the attempt
 * out of the delivery's history and send the delivery again once its lease ends. False when the
 * outage outlasts recordRetryForMs or the worker stops first.
 */
async function recordedOnceTheDatabaseTakesIt(record: () => Promise<void>, until: AbortSignal | undefined): Promise<boolean> {
  const giveUpAt = performance.now() + recordRetryForMs;
  for (;;) {
    try {
      await record();
      return true;
    } catch (error) {
      if (!until || !databaseUnavailable(error)) throw error;
      if (until.aborted || performance.now() + recordRetryEveryMs > giveUpAt) return false;
      const waited = await sleep(recordRetryEveryMs, true, { signal: until }).catch(() => false);
      if (!waited) return false;
    }
  }
}

/**
 * Claims due deliveries from the database and sends them. A claim is a lease (locked_until) taken
 * with FOR UPDATE SKIP LOCKED, so instances never send one attempt twice, and a crashed instance's
 * attempt is claimed again once its lease ends, with the same webhook-id. Per endpoint, only the
 * oldest pending delivery is claimable, and only while none of the endpoint's deliveries is leased
 * (a redelivery, or a test event being sent), so each endpoint receives events in log order, one at a time.
 *
 * Claims are made whenever a slot frees (and every pollMs), never waiting for a batch to finish, so
 * a slow endpoint holds one slot, not the queue; and each account has at most
 * concurrencyPerAccount attempts leased at once, so the other accounts always find slots.
 */
export function createDeliveryWorker(workerOptions: DeliveryWorkerOptions) {
  const stopping = new AbortController();
  const options: DeliveryWorkerOptions = { ...workerOptions, retryRecordUntil: stopping.signal };
  const { prisma, logger, clock } = options;
  /** Attempts under way here, by delivery id. */
  const inFlight = new Map<string, Promise<void>>();
  let claiming: Promise<void> | undefined;
  /** A slot freed (or the poll came) while a claim was running: claim again after it. */
  let claimAgain = false;

  async function claim(limit: number): Promise<ClaimedDelivery[]> {
    return prisma.$transaction(async (tx) => {
      await takeDeliveryTurn(tx);
      // Timed once the turn is taken: a wait for a connection or for other claims is no part of a lease.
      const now = clock();
      const leaseUntil = new Date(now.getTime() + options.timeoutMs + leaseMarginMs);
      // Heads come from the pending rows only (not each endpoint's history), so a claim costs the
      // same however many deliveries an endpoint has had; the row conditions are checked again on
      // the locked row, so a delivery another instance has just claimed is left alone.
      return tx.$queryRaw<ClaimedDelivery[]>`
        UPDATE webhook_deliveries SET locked_until = ${leaseUntil}, attempt_count = attempt_count + 1
        WHERE id IN (
          SELECT d.id FROM webhook_deliveries d
          WHERE d.status = 'pending' AND (d.locked_until IS NULL OR d.locked_until <= ${now})
            -- Never this instance's own attempts, even if the clock jumped past their lease.
            AND NOT d.id = ANY(${[...inFlight.keys()]})
            AND d.id IN (
              SELECT due.id FROM (
                SELECT head.id, head.next_attempt_at, head.seq, coalesce(leased.count, 0) AS leased,
                  row_number() OVER (PARTITION BY e.account_id ORDER BY head.next_attempt_at, head.seq) AS place
                FROM (
                  SELECT DISTINCT ON (endpoint_id) id, endpoint_id, seq, next_attempt_at
                  FROM webhook_deliveries WHERE status = 'pending' ORDER BY endpoint_id, seq) head
                JOIN webhook_endpoints e ON e.id = head.endpoint_id
                LEFT JOIN (
                  SELECT le.account_id, count(*) AS count
                  FROM webhook_deliveries ld JOIN webhook_endpoints le ON le.id = ld.endpoint_id
                  WHERE ld.status = 'pending' AND ld.locked_until > ${now}
                  GROUP BY le.account_id) leased ON leased.account_id = e.account_id
                WHERE e.enabled AND e.deleted_at IS NULL AND head.next_attempt_at <= ${now}
                  -- One at a time: none of the endpoint's deliveries is being sent (a redelivery may stand before one).
                  AND NOT EXISTS (
                    SELECT 1 FROM webhook_deliveries sending
                    WHERE sending.endpoint_id = head.endpoint_id AND sending.status = 'pending'
                      AND (sending.locked_until > ${now} OR sending.id = ANY(${[...inFlight.keys()]})))) due
              WHERE due.leased + due.place <= ${options.concurrencyPerAccount}
              ORDER BY due.next_attempt_at, due.seq
              LIMIT ${limit})
          FOR UPDATE SKIP LOCKED)
        RETURNING id, endpoint_id, message_id, payload, attempt_count, locked_until, trace_parent`;
    });
  }

  function launch(delivery: ClaimedDelivery) {
    const attempted: Promise<void> = attemptDelivery(options, delivery)
      .catch((error: unknown) => logger.error({ err: error, delivery: delivery.id }, 'webhook attempt crashed'))
      .finally(() => {
        inFlight.delete(delivery.id);
        fill();
      });
    inFlight.set(delivery.id, attempted);
  }

  /** Claims deliveries until this instance's slots are full or nothing more is due. */
  function fill() {
    if (!loop.running) return;
    if (claiming) {
      claimAgain = true;
      return;
    }
    claiming = (async () => {
      do {
        claimAgain = false;
        while (loop.running && inFlight.size < options.concurrency) {
          const free = options.concurrency - inFlight.size;
          const claimed = await claim(free);
          for (const delivery of claimed) launch(delivery);
          if (claimed.length < free) break;
        }
      } while (loop.running && claimAgain && inFlight.size < options.concurrency);
    })()
      .catch((error: unknown) => {
        if (!(error instanceof Prisma.PrismaClientKnownRequestError)) logger.error({ err: error }, 'webhook claim failed');
      })
      .finally(() => {
        claiming = undefined;
      });
  }

  // Each poll starts a fill and returns: attempts run on beyond it, and stop() waits for them below.
  const loop = pollingLoop(options.pollMs, async () => fill());

  return {
    start: loop.start,
    /** Stops claiming and waits for the attempts already under way. */
    async stop() {
      await loop.stop();
      stopping.abort();
      await claiming;
      await Promise.all(inFlight.values());
    },
  };
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;
