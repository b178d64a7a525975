import { createContextCache } from '@pothos/core';
import DataLoader from 'dataloader';
import { Prisma } from '../generated/prisma/client.js';
import type { Context } from '../graphql/context.js';

/** What an attraction's events say about it relative to now. */
export interface AttractionTimeline {
  /** Start of the next event after now. */
  nextStartsAt: Date | null;
  /** Start of the latest event that has begun: next_starts_at last moved then. */
  previousStartsAt: Date | null;
  /** Newest update time among its events. */
  eventsUpdatedAt: Date | null;
}

const noEvents: AttractionTimeline = { nextStartsAt: null, previousStartsAt: null, eventsUpdatedAt: null };

/**
 * One grouped statement per page of attractions, shared by every field that needs the timeline.
 * Batched but not memoized: a timeline depends on "now", and a subscription's context lives long.
 * A plain DataLoader rather than Pothos loadable fields: those hold one loader per field, so
 * nextStartsAt and updatedAt would each send this statement, and updatedAt also needs its parent.
 */
export const attractionTimelines = createContextCache(
  (context: Context) =>
    new DataLoader<string, AttractionTimeline>(
      async (ids) => {
        const now = context.services.clock();
        const rows = await context.prisma.$queryRaw<(AttractionTimeline & { attractionId: string })[]>`
          SELECT attraction_id AS "attractionId",
                 min(starts_at) FILTER (WHERE starts_at > ${now}) AS "nextStartsAt",
                 max(starts_at) FILTER (WHERE starts_at <= ${now}) AS "previousStartsAt",
                 max(updated_at) AS "eventsUpdatedAt"
          FROM events WHERE attraction_id IN (${Prisma.join(ids)}) GROUP BY attraction_id`;
        const byId = new Map(rows.map(({ attractionId, ...timeline }) => [attractionId, timeline]));
        return ids.map((id) => byId.get(id) ?? noEvents);
      },
      { cache: false },
    ),
);

/**
 * When the aggregated view last changed: the attraction's own update, any of its events' updates,
 * or the moment its next_starts_at moved because an event began.
 */
export function viewUpdatedAt(ownUpdatedAt: Date, timeline: AttractionTimeline): Date {
  const times = [ownUpdatedAt, timeline.eventsUpdatedAt, timeline.previousStartsAt].filter((time): time is Date => time !== null);
  return new Date(Math.max(...times.map((time) => time.getTime())));
}
