import { z } from 'zod';
import type { Attraction, PrismaClient } from '../generated/prisma/client.js';
import { notFound } from '../shared/errors.js';
import { parseInput } from '../shared/validation.js';

/** What operators change in the directory: where an attraction is, for near searches. */

const attractionLocation = z
  .object({
    latitude: z.number().min(-90, 'latitude is in degrees, from -90 to 90.').max(90, 'latitude is in degrees, from -90 to 90.'),
    longitude: z.number().min(-180, 'longitude is in degrees, from -180 to 180.').max(180, 'longitude is in degrees, from -180 to 180.'),
  })
  .strict();

/** Places an attraction at a point (WGS 84 degrees); 422 naming a coordinate out of range, 404 for an unknown attraction. */
export async function placeAttraction(prisma: PrismaClient, id: string, input: unknown): Promise<Attraction> {
  const location = parseInput(attractionLocation, input);
  const { count } = await prisma.attraction.updateMany({ where: { id }, data: location });
  if (count === 0) throw notFound('attraction', id);
  return prisma.attraction.findUniqueOrThrow({ where: { id } });
}
