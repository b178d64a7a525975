import { z } from 'zod';
import { planLimits, promoBypassActive } from '../access/rate-limit.js';
import { enqueueDeliveries, nextMessagePosition, type WebhookMessage } from '../events/webhooks/fanout.js';
import { Prisma, type AlertRule, type ApiKey, type PrismaClient, type UsageAlert } from '../generated/prisma/client.js';
import { isUniqueViolation } from '../db/errors.js';
import { isoTimestamp as iso } from '../shared/clock.js';
import { AppError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import type { UsageAlertBus } from '../events/bus.js';
import type { FlushedBucket } from './recorder.js';
import type { WebhookEventType } from '../events/kinds.js';

const minuteMs = 60_000;
const dayMs = 86_400_000;

/** Below this many requests in its window an error rate says little (one failed call is 100 %), so it is not judged. */
export const errorRateMinimumRequests = 10;

export const alertRuleInput = z
  .object({
    metric: z.enum(['rate_limit_share', 'daily_requests', 'error_rate']),
    threshold: z.number().positive(),
    windowMinutes: z.number().int().min(1).max(1440).optional(),
  })
  .refine((rule) => rule.metric === 'daily_requests' || rule.threshold <= 1, {
    path: ['threshold'],
    message: 'Shares (rate_limit_share, error_rate) are between 0 and 1.',
  })
  .refine((rule) => rule.metric !== 'daily_requests' || Number.isInteger(rule.threshold), {
    path: ['threshold'],
    message: 'daily_requests counts requests: its threshold is a whole number.',
  })
  .refine((rule) => rule.metric === 'error_rate' || rule.windowMinutes === undefined, {
    path: ['windowMinutes'],
    message: 'Only error_rate takes a window; rate_limit_share uses the minute and daily_requests the UTC day.',
  });

export type AlertRuleInput = z.infer<typeof alertRuleInput>;

/** Rules one key may have: each is checked on every flush of the key's usage and fires on its own. */
export const maxAlertRulesPerKey = 25;

/**
 * Adds a rule to `apiKeyId`, refused with too_many_alert_rules once the key has maxAlertRulesPerKey.
 * `query` is the caller's selection (Pothos passes it for the fields asked for).
 */
export function createAlertRule(prisma: PrismaClient, apiKeyId: string, input: AlertRuleInput, query: Pick<Prisma.AlertRuleCreateArgs, 'select' | 'include'>): Promise<AlertRule> {
  return prisma.$transaction(async (tx) => {
    // The key row's lock makes concurrent creations take turns, so two cannot both take the last place.
    // NO KEY: the usage rows that reference the key (whose inserts share-lock it) do not hold it back.
    await tx.$queryRaw`SELECT id FROM api_keys WHERE id = ${apiKeyId} FOR NO KEY UPDATE`;
    if ((await tx.alertRule.count({ where: { apiKeyId } })) >= maxAlertRulesPerKey) {
      throw new AppError('too_many_alert_rules', `A key has at most ${maxAlertRulesPerKey} alert rules; delete one before creating another.`);
    }
    return tx.alertRule.create({ ...query, data: { id: newId('alertRule'), apiKeyId, ...input } });
  });
}

export function parseAlertRuleInput(raw: unknown): AlertRuleInput {
  const result = alertRuleInput.safeParse(raw);
  if (result.success) return result.data;
  const fieldErrors = result.error.issues.map((issue) => ({ field: issue.path.join('.') || 'input', code: issue.code, message: issue.message }));
  throw new AppError('validation_failed', fieldErrors[0]!.message, { fieldErrors });
}

/** How long the windows of `rule` are: a minute, a UTC day, or the rule's own number of minutes. */
function windowLengthMs(rule: Pick<AlertRule, 'metric' | 'windowMinutes'>): number {
  return rule.metric === 'rate_limit_share' ? minuteMs : rule.metric === 'daily_requests' ? dayMs : rule.windowMinutes * minuteMs;
}

export const windowMinutesOf = (rule: Pick<AlertRule, 'metric' | 'windowMinutes'>): number => windowLengthMs(rule) / minuteMs;

/** The window of `rule` that holds `minute`: the minute, the UTC day, or the rule's own number of minutes (aligned to the epoch). */
export function windowOf(rule: Pick<AlertRule, 'metric' | 'windowMinutes'>, minute: Date): { start: Date; end: Date } {
  const length = windowLengthMs(rule);
  const start = minute.getTime() - (minute.getTime() % length);
  return { start: new Date(start), end: new Date(start + length) };
}

type RuleWithKey = AlertRule & { apiKey: Pick<ApiKey, 'accountId' | 'plan' | 'promo'> };

/** The rule's measure over one window, from the buckets every instance has flushed; null when it does not apply. */
async function measure(prisma: PrismaClient, rule: RuleWithKey, window: { start: Date; end: Date }): Promise<number | null> {
  const rows = await prisma.usageBucket.groupBy({
    by: ['statusClass'],
    where: { apiKeyId: rule.apiKeyId, minute: { gte: window.start, lt: window.end } },
    _sum: { requests: true },
  });
  const requests = rows.reduce((sum, row) => sum + (row._sum.requests ?? 0), 0);
  switch (rule.metric) {
    case 'daily_requests':
      return requests;
    case 'rate_limit_share':
      // A promo key has no limit while its bypass lasts, so no share of one.
      // Refused requests are counted too (429 past the limit): the share stops at the whole limit.
      return rule.apiKey.promo && promoBypassActive(window.start) ? null : Math.min(1, requests / planLimits[rule.apiKey.plan]);
    case 'error_rate': {
      if (requests < errorRateMinimumRequests) return null;
      const errors = rows.filter((row) => row.statusClass === '4xx' || row.statusClass === '5xx').reduce((sum, row) => sum + (row._sum.requests ?? 0), 0);
      return errors / requests;
    }
  }
}

/** The `api_key.usage_alert` webhook body: the envelope of booking events, the alert as `data`. */
export function usageAlertPayload(messageId: string, alert: UsageAlert, windowMinutes: number) {
  return {
    id: messageId,
    event: 'api_key.usage_alert',
    created: iso(alert.createdAt),
    data: {
      id: alert.id,
      api_key_id: alert.apiKeyId,
      rule_id: alert.ruleId,
      metric: alert.metric,
      threshold: alert.threshold,
      window_minutes: windowMinutes,
      value: alert.value,
      window_start: iso(alert.windowStart),
      window_end: iso(alert.windowEnd),
      created_at: iso(alert.createdAt),
    },
  } satisfies { event: WebhookEventType } & Prisma.InputJsonObject;
}

async function usageAlertMessage(tx: Prisma.TransactionClient, alert: UsageAlert, windowMinutes: number): Promise<WebhookMessage> {
  // msg_ like a booking event's id: every webhook-id an endpoint sees has one form.
  const messageId = newId('bookingEvent');
  return {
    accountId: alert.accountId,
    messageId,
    type: 'api_key.usage_alert',
    seq: await nextMessagePosition(tx),
    createdAt: alert.createdAt,
    payload: usageAlertPayload(messageId, alert, windowMinutes),
  };
}

/**
 * Checks the rules of the keys in a flush against the windows the flush touched. An alert is stored
 * once per (rule, window) — the unique index decides between instances — with its webhook
 * deliveries in the same transaction, and only the instance that stored it announces it.
 */
export async function evaluateAlertRules(prisma: PrismaClient, bus: UsageAlertBus, buckets: FlushedBucket[], now: Date): Promise<void> {
  const minutesByKey = new Map<string, Set<number>>();
  for (const bucket of buckets) {
    const minutes = minutesByKey.get(bucket.apiKeyId) ?? new Set<number>();
    minutes.add(bucket.minute.getTime());
    minutesByKey.set(bucket.apiKeyId, minutes);
  }
  const rules = await prisma.alertRule.findMany({
    where: { apiKeyId: { in: [...minutesByKey.keys()] } },
    include: { apiKey: { select: { accountId: true, plan: true, promo: true } } },
  });
  for (const rule of rules) {
    const windows = new Map<number, { start: Date; end: Date }>();
    for (const minute of minutesByKey.get(rule.apiKeyId) ?? []) {
      const window = windowOf(rule, new Date(minute));
      windows.set(window.start.getTime(), window);
    }
    for (const window of windows.values()) {
      const value = await measure(prisma, rule, window);
      if (value === null || value < rule.threshold) continue;
      const alert = await prisma
        .$transaction(async (tx) => {
          const stored = await tx.usageAlert.create({
            data: {
              id: newId('usageAlert'),
              ruleId: rule.id,
              apiKeyId: rule.apiKeyId,
              accountId: rule.apiKey.accountId,
              metric: rule.metric,
              threshold: rule.threshold,
              value,
              windowStart: window.start,
              windowEnd: window.end,
              createdAt: now,
            },
          });
          await enqueueDeliveries(tx, await usageAlertMessage(tx, stored, windowMinutesOf(rule)));
          return stored;
        })
        .catch((error: unknown) => {
          if (isUniqueViolation(error)) return null;
          throw error;
        });
      if (alert) bus.publish(alert.accountId, alert.id);
    }
  }
}
