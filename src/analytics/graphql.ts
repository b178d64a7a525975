// GraphQL of the analytics domain: a key's usage on Viewer, and any key's usage for operators.
import type { ArgBuilder } from '@pothos/core';
import { builder, listOfAtMost, type BuilderTypes } from '../graphql/builder.js';
import { insufficientScope } from '../access/principal.js';
import { notFound } from '../shared/errors.js';
import './graphql-alerts.js';
import { granularities, maxPoints, maxReportedRoutes, otherRoutes, usageReport, type Granularity, type RouteUsage, type UsageReport, type UsageTotals } from './usage.js';
import { Viewer } from '../access/graphql-types.js';

const GranularityEnum = builder.enumType('UsageGranularity', {
  description: 'Length of each usage bucket; hours and days are UTC.',
  values: granularities,
});

function totalsFields<Shape extends UsageTotals>(t: PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, Shape>) {
  return {
    requests: t.int({ resolve: (totals) => totals.requests }),
    errors: t.int({ description: 'Requests answered with a 4xx or 5xx status.', resolve: (totals) => totals.errors }),
    averageLatencyMs: t.float({
      description: 'Mean time from request to last byte sent; 0 without requests.',
      resolve: (totals) => (totals.requests ? totals.totalLatencyMs / totals.requests : 0),
    }),
    bytes: t.float({ description: 'Response body bytes.', resolve: (totals) => totals.bytes }),
  };
}

const UsageBucketRef = builder.objectRef<UsageTotals & { start: Date }>('UsageBucket').implement({
  description: 'Usage of one minute, hour or day.',
  fields: (t) => ({ start: t.expose('start', { type: 'DateTime' }), ...totalsFields(t) }),
});

const RouteUsageRef = builder.objectRef<RouteUsage>('RouteUsage').implement({
  description: 'Usage of one REST route template (`GET /v1/bookings/:id`) or GraphQL operation (`graphql:<operationName>`).',
  fields: (t) => ({ route: t.exposeString('route'), ...totalsFields(t) }),
});

const UsageRef = builder.objectRef<UsageReport>('Usage').implement({
  description: 'An API key’s usage over [from, to).',
  fields: (t) => ({
    apiKeyId: t.exposeID('apiKeyId'),
    from: t.expose('from', { type: 'DateTime' }),
    to: t.expose('to', { type: 'DateTime' }),
    granularity: t.field({ type: GranularityEnum, resolve: (report) => report.granularity }),
    buckets: t.field({
      type: [UsageBucketRef],
      description: 'Every period of the range, oldest first, empty ones included.',
      complexity: listOfAtMost(maxPoints),
      resolve: (report) => report.buckets,
    }),
    routes: t.field({
      type: [RouteUsageRef],
      description: `Totals per route, busiest first: at most ${maxReportedRoutes}, the quietest summed as "${otherRoutes}".`,
      complexity: listOfAtMost(maxReportedRoutes),
      resolve: (report) => report.routes,
    }),
  }),
});

const rangeArguments = (arg: ArgBuilder<BuilderTypes>) => ({
  from: arg({ type: 'DateTime', required: true, description: 'Inclusive.' }),
  to: arg({ type: 'DateTime', required: true, description: 'Exclusive.' }),
  granularity: arg({ type: GranularityEnum, defaultValue: 'HOUR' as Granularity }),
});

builder.objectField(Viewer, 'usage', (t) =>
  t.field({
    type: UsageRef,
    description: 'The calling key’s usage. Recorded usage reaches this within one flush interval.',
    authScopes: { scope: 'analytics:read' },
    args: rangeArguments(t.arg),
    resolve: (principal, args, context) => {
      if (principal.kind !== 'api_key') throw insufficientScope([]);
      return usageReport(context.prisma, principal.keyId, { from: args.from, to: args.to, granularity: args.granularity ?? 'HOUR' });
    },
  }),
);

builder.queryField('apiKeyUsage', (t) =>
  t.field({
    type: UsageRef,
    description: 'Any key’s usage (operators).',
    authScopes: { scope: 'admin' },
    args: { keyId: t.arg.id({ required: true }), ...rangeArguments(t.arg) },
    resolve: async (_root, args, context) => {
      const key = await context.prisma.apiKey.findUnique({ where: { id: String(args.keyId) }, select: { id: true } });
      if (!key) throw notFound('API key', String(args.keyId));
      return usageReport(context.prisma, key.id, { from: args.from, to: args.to, granularity: args.granularity ?? 'HOUR' });
    },
  }),
);
