import type { PrismaClient } from '../generated/prisma/client.js';
import { AppError } from '../shared/errors.js';

export const granularities = ['MINUTE', 'HOUR', 'DAY'] as const;
export type Granularity = (typeof granularities)[number];

const stepMs: Record<Granularity, number> = { MINUTE: 60_000, HOUR: 3_600_000, DAY: 86_400_000 };

/** More points than a chart can show is a mistake in the range or the granularity. */
export const maxPoints = 1500;

/**
 * Routes a report lists, busiest first; the rest are summed into one `other` entry. Operation names
 * are the client's choice, so a long range could otherwise list one entry for every name ever sent.
 */
export const maxReportedRoutes = 200;

/** The entry that sums the routes past maxReportedRoutes. */
export const otherRoutes = 'other';

export interface UsageTotals {
  requests: number;
  errors: number;
  totalLatencyMs: number;
  bytes: number;
}

export interface UsagePoint extends UsageTotals {
  start: Date;
}

export interface RouteUsage extends UsageTotals {
  route: string;
}

export interface UsageReport {
  apiKeyId: string;
  from: Date;
  to: Date;
  granularity: Granularity;
  buckets: UsagePoint[];
  routes: RouteUsage[];
}

const emptyTotals = (): UsageTotals => ({ requests: 0, errors: 0, totalLatencyMs: 0, bytes: 0 });

const isError = (statusClass: string) => statusClass === '4xx' || statusClass === '5xx';

interface GroupedRow {
  statusClass: string;
  _sum: { requests: number | null; totalLatencyMs: number | null; bytes: bigint | null };
}

function addRow(totals: UsageTotals, row: GroupedRow) {
  const requests = row._sum.requests ?? 0;
  totals.requests += requests;
  if (isError(row.statusClass)) totals.errors += requests;
  totals.totalLatencyMs += row._sum.totalLatencyMs ?? 0;
  totals.bytes += Number(row._sum.bytes ?? 0n);
}

function addTotals<T extends UsageTotals>(sum: T, totals: UsageTotals): T {
  sum.requests += totals.requests;
  sum.errors += totals.errors;
  sum.totalLatencyMs += totals.totalLatencyMs;
  sum.bytes += totals.bytes;
  return sum;
}

function invalidRange(field: 'from' | 'to' | 'granularity', message: string): AppError {
  return new AppError('invalid_parameter', message, { fieldErrors: [{ field, code: 'invalid', message }] });
}

/** Start of the UTC minute, hour or day holding `date`. */
function periodStart(date: Date, granularity: Granularity): Date {
  const step = stepMs[granularity];
  // Rounded down before 1970 too, where the remainder of a negative time is negative.
  return new Date(Math.floor(date.getTime() / step) * step);
}

/**
 * A key's usage between `from` (inclusive) and `to` (exclusive): one point per minute, hour or UTC
 * day (empty periods included, as zeros), and the totals per route, busiest first.
 */
export async function usageReport(prisma: PrismaClient, apiKeyId: string, range: { from: Date; to: Date; granularity: Granularity }): Promise<UsageReport> {
  const { from, to, granularity } = range;
  if (from.getTime() >= to.getTime()) throw invalidRange('to', '`to` must be after `from`.');
  const first = periodStart(from, granularity);
  const points = Math.ceil((to.getTime() - first.getTime()) / stepMs[granularity]);
  if (points > maxPoints) {
    throw invalidRange('granularity', `That range holds ${points} periods of this granularity; at most ${maxPoints} fit in one answer.`);
  }
  const where = { apiKeyId, minute: { gte: from, lt: to } };
  const sums = { requests: true, totalLatencyMs: true, bytes: true } as const;
  const [byMinute, byRoute] = await Promise.all([
    prisma.usageBucket.groupBy({ by: ['minute', 'statusClass'], where, _sum: sums }),
    prisma.usageBucket.groupBy({ by: ['route', 'statusClass'], where, _sum: sums }),
  ]);

  const buckets = Array.from({ length: points }, (_, index) => ({
    start: new Date(first.getTime() + index * stepMs[granularity]),
    ...emptyTotals(),
  }));
  for (const row of byMinute) {
    const index = Math.floor((row.minute.getTime() - first.getTime()) / stepMs[granularity]);
    addRow(buckets[index]!, row);
  }

  const routes = new Map<string, RouteUsage>();
  for (const row of byRoute) {
    let totals = routes.get(row.route);
    if (!totals) routes.set(row.route, (totals = { route: row.route, ...emptyTotals() }));
    addRow(totals, row);
  }
  const busiestFirst = [...routes.values()].sort((a, b) => b.requests - a.requests || a.route.localeCompare(b.route));
  const rest = busiestFirst.splice(maxReportedRoutes - 1);
  if (rest.length === 1) busiestFirst.push(rest[0]!);
  else if (rest.length > 1) busiestFirst.push(rest.reduce((sum, route) => addTotals(sum, route), { route: otherRoutes, ...emptyTotals() }));
  return { apiKeyId, from, to, granularity, buckets, routes: busiestFirst };
}
