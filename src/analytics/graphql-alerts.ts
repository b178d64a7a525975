// Alert rules and fired usage alerts: listed on Viewer, managed by mutations, streamed by a subscription.
import type { UsageAlert } from '../generated/prisma/client.js';
import { AlertMetric } from '../generated/prisma/enums.js';
import type { Context } from '../graphql/context.js';
import { builder, listOfAtMost } from '../graphql/builder.js';
import { upperCaseEnum } from '../graphql/enums.js';
import { insufficientScope } from '../access/principal.js';
import { AppError, notFound } from '../shared/errors.js';
import { createAlertRule, maxAlertRulesPerKey, parseAlertRuleInput, windowMinutesOf } from './alerts.js';
import { Viewer } from '../access/graphql-types.js';

const AlertMetricEnum = upperCaseEnum(
  'AlertMetric',
  Object.values(AlertMetric),
  'RATE_LIMIT_SHARE: requests in a minute over the per-minute limit (0–1); DAILY_REQUESTS: requests in a UTC day; ERROR_RATE: 4xx and 5xx share of the requests in a window (0–1, judged from 10 requests on).',
);

const AlertRuleRef = builder.prismaObject('AlertRule', {
  description: 'A threshold on one key’s usage. It fires at most once per window.',
  fields: (t) => ({
    id: t.exposeID('id'),
    apiKeyId: t.exposeID('apiKeyId'),
    metric: t.expose('metric', { type: AlertMetricEnum }),
    threshold: t.exposeFloat('threshold'),
    windowMinutes: t.int({
      description: 'How long the windows it watches are, in minutes: the one chosen for ERROR_RATE, 1 for RATE_LIMIT_SHARE (the minute), 1440 for DAILY_REQUESTS (the UTC day).',
      select: { metric: true, windowMinutes: true },
      resolve: (rule) => windowMinutesOf(rule),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const UsageAlertRef = builder.prismaObject('UsageAlert', {
  description: 'A rule that fired: its measure reached the threshold in one window.',
  fields: (t) => ({
    id: t.exposeID('id'),
    ruleId: t.exposeID('ruleId'),
    apiKeyId: t.exposeID('apiKeyId'),
    metric: t.expose('metric', { type: AlertMetricEnum }),
    threshold: t.exposeFloat('threshold'),
    value: t.exposeFloat('value'),
    windowStart: t.expose('windowStart', { type: 'DateTime' }),
    windowEnd: t.expose('windowEnd', { type: 'DateTime' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const analyticsScope = { scope: 'analytics:read' } as const;

/** The calling API key's id; usage and its rules exist for API keys only. */
function callingKeyId(context: Context): string {
  if (context.principal?.kind !== 'api_key') throw insufficientScope([]);
  return context.principal.keyId;
}

builder.objectFields(Viewer, (t) => ({
  alertRules: t.prismaField({
    type: [AlertRuleRef],
    authScopes: analyticsScope,
    description: 'The calling key’s alert rules, oldest first.',
    complexity: listOfAtMost<unknown>(maxAlertRulesPerKey),
    resolve: (query, _principal, _args, context) => context.prisma.alertRule.findMany({ ...query, where: { apiKeyId: callingKeyId(context) }, orderBy: { createdAt: 'asc' } }),
  }),
  usageAlerts: t.prismaField({
    type: [UsageAlertRef],
    authScopes: analyticsScope,
    description: 'Alerts fired for the calling key, newest first.',
    args: { first: t.arg.int({ defaultValue: 50, description: '1 to 100.' }) },
    complexity: listOfAtMost<{ first?: number | null }>(100, (args) => args.first ?? 50),
    resolve: (query, _principal, args, context) => {
      const first = args.first ?? 50;
      if (first < 1 || first > 100)
        throw new AppError('invalid_parameter', 'first must be between 1 and 100.', { fieldErrors: [{ field: 'first', code: 'out_of_range', message: 'Between 1 and 100.' }] });
      return context.prisma.usageAlert.findMany({ ...query, where: { apiKeyId: callingKeyId(context) }, orderBy: { createdAt: 'desc' }, take: first });
    },
  }),
}));

const AlertRuleInput = builder.inputType('AlertRuleInput', {
  fields: (t) => ({
    metric: t.field({ type: AlertMetricEnum, required: true }),
    threshold: t.float({ required: true, description: 'A share between 0 and 1, or a whole number of requests for daily_requests.' }),
    windowMinutes: t.int({ description: 'error_rate only: 1 to 1440; 60 when not given.' }),
  }),
});

builder.mutationFields((t) => ({
  createAlertRule: t.prismaField({
    type: AlertRuleRef,
    authScopes: analyticsScope,
    description: `Adds an alert rule to the calling key. A key has at most ${maxAlertRulesPerKey} rules; the next is refused with too_many_alert_rules.`,
    args: { input: t.arg({ type: AlertRuleInput, required: true }) },
    resolve: (query, _root, args, context) => {
      const input = parseAlertRuleInput({ ...args.input, windowMinutes: args.input.windowMinutes ?? undefined });
      return createAlertRule(context.prisma, callingKeyId(context), input, query);
    },
  }),
  deleteAlertRule: t.prismaField({
    type: AlertRuleRef,
    authScopes: analyticsScope,
    description: 'Removes one of the calling key’s alert rules; its fired alerts go with it.',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, context) => {
      const rule = await context.prisma.alertRule.findFirst({ ...query, where: { id: String(args.id), apiKeyId: callingKeyId(context) } });
      if (!rule) throw notFound('alert rule', String(args.id));
      await context.prisma.alertRule.delete({ where: { id: rule.id } });
      return rule;
    },
  }),
}));

/**
 * Alerts fired for the calling key, as they are stored (by whichever instance): as viewer.usageAlerts
 * lists them, since a key's usage is its own business even within its account.
 */
async function* callingKeyAlerts(context: Context): AsyncGenerator<UsageAlert> {
  const bus = context.services.usageAlerts;
  if (!bus || !context.principal) return;
  const keyId = callingKeyId(context);
  // Announced per account: the other keys' alerts are passed over.
  for await (const alertId of bus.subscribe(context.principal.accountId)) {
    const alert = await context.prisma.usageAlert.findUnique({ where: { id: alertId } });
    if (alert?.apiKeyId === keyId) yield alert;
  }
}

builder.subscriptionField('usageAlerts', (t) =>
  t.field({
    type: UsageAlertRef,
    authScopes: analyticsScope,
    description: 'Alerts fired for the calling key, as they fire (event `api_key.usage_alert`).',
    subscribe: (_root, _args, context) => callingKeyAlerts(context),
    resolve: (alert) => alert,
  }),
);
