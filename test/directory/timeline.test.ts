import { describe, expect, it } from 'vitest';
import type { PreparedRead } from '../../src/db/connection.js';
import { attractionTimelines } from '../../src/directory/timeline.js';
import type { Context } from '../../src/graphql/context.js';

describe('attraction timelines', () => {
  it('sends each attraction once per statement, however many fields of it ask', async () => {
    const sent: unknown[][] = [];
    const now = new Date('2027-10-30T12:00:00Z');
    const readRows = async <Row>(read: PreparedRead): Promise<Row[]> => {
      sent.push(read.values as unknown[]);
      return [{ attraction_id: 'at_a', next_starts_at: Date.parse('2027-10-31T18:00:00Z'), previous_starts_at: null, events_updated_at: now.getTime() }] as Row[];
    };
    // The part of a request's context the loader reads.
    const context = { services: { clock: () => now, readRows } } as unknown as Context;
    const loader = attractionTimelines(context);
    // As nextStartsAt and updatedAt of two attractions load within one tick.
    const [first, second, other] = await Promise.all([loader.load('at_a'), loader.load('at_a'), loader.load('at_b')]);
    expect(sent).toEqual([[['at_a', 'at_b'], now.toISOString()]]);
    expect(first).toEqual(second);
    expect(first.nextStartsAt).toEqual(new Date('2027-10-31T18:00:00Z'));
    expect(other).toEqual({ nextStartsAt: null, previousStartsAt: null, eventsUpdatedAt: null });
  });
});
