import { createContextCache } from '@pothos/core';
import DataLoader from 'dataloader';
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
 * The timelines of some attractions, in one grouped statement sent past Prisma, whose per-row work
 * this read, sent by every page of attractions, does not need (BENCHMARKS.md, national scale): times
 * as epoch milliseconds, since the columns hold UTC without a zone.
 */
const timelinesRead = {
  name: 'hallowgate_attraction_timelines',
  text: `SELECT attraction_id,
                (extract(epoch FROM min(starts_at) FILTER (WHERE starts_at > $2::timestamp)) * 1000)::float8 AS next_starts_at,
                (extract(epoch FROM max(starts_at) FILTER (WHERE starts_at <= $2::timestamp)) * 1000)::float8 AS previous_starts_at,
                (extract(epoch FROM max(updated_at)) * 1000)::float8 AS events_updated_at
         FROM events WHERE attraction_id = ANY($1::text[]) GROUP BY attraction_id`,
};

interface TimelineRow {
  attraction_id: string;
  next_starts_at: number | null;
  previous_starts_at: number | null;
  events_updated_at: number | null;
}

const dateOf = (epochMs: number | null) => (epochMs === null ? null : new Date(epochMs));

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
        // Unmemoized, the loader hands over an id once per field that asked: each is sent once.
        const rows = await context.services.readRows<TimelineRow>({ ...timelinesRead, values: [[...new Set(ids)], now.toISOString()] });
        const byId = new Map(
          rows.map((row) => [
            row.attraction_id,
            { nextStartsAt: dateOf(row.next_starts_at), previousStartsAt: dateOf(row.previous_starts_at), eventsUpdatedAt: dateOf(row.events_updated_at) },
          ]),
        );
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
