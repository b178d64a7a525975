import type { PrismaClient } from '../../src/generated/prisma/client.js';
import { newId } from '../../src/shared/ids.js';

const dayMs = 86_400_000;
const date = (time: number) => new Date(Math.floor(time / dayMs) * dayMs);

/**
 * A schedule on which every 5-minute mark in UTC is a slot, from yesterday to 800 days ahead (past
 * the 731-day booking horizon): 00:00–12:00 and 12:00–00:00 (after midnight) every day, 5-minute
 * visits. So any `futureSlot(days, hour)` can be booked, as can `…T12:15:00Z` or `…T23:55:00Z`.
 */
export function everyFiveMinutes(now = Date.now()) {
  return {
    timezone: 'UTC',
    slotMinutes: 5,
    durationMinutes: 5,
    seasonStart: date(now - dayMs),
    seasonEnd: date(now + 800 * dayMs),
    openingHours: [1, 2, 3, 4, 5, 6, 7].flatMap((weekday) => [
      { weekday, opens: '00:00', closes: '12:00' },
      { weekday, opens: '12:00', closes: '00:00' },
    ]),
  };
}

/** Slots of a day of a service on which every 5-minute mark is one (everyFiveMinutes). */
export const slotsPerDay = 288;

/** A service of its own on the first attraction, bookable at every 5-minute mark (everyFiveMinutes) unless `schedule` changes it. */
export async function openService(
  prisma: PrismaClient,
  options: { capacity?: number; name?: string; schedule?: Partial<ReturnType<typeof everyFiveMinutes>> } = {},
): Promise<string> {
  const attraction = await prisma.attraction.findFirstOrThrow({ orderBy: { id: 'asc' } });
  const capacity = options.capacity ?? 1_000;
  const service = await prisma.service.create({
    data: { id: newId('service'), name: options.name ?? `Capacity ${capacity}`, attractionId: attraction.id, capacity, ...everyFiveMinutes(), ...options.schedule },
  });
  return service.id;
}
