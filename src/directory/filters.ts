import type { Prisma } from '../generated/prisma/client.js';
import { parseIsoDate, parseUtcTimestamp } from '../graphql/scalars.js';
import { AppError } from '../shared/errors.js';

export interface DirectoryFilters {
  city?: string | null;
  category?: string | null;
  startsAfter?: string | null;
  startsBefore?: string | null;
  q?: string | null;
}

/** A date (start of that UTC day) or a UTC timestamp, as starts_after/starts_before take. */
function parseBound(value: string, argument: string): Date {
  const date = parseIsoDate(value) ?? parseUtcTimestamp(value);
  if (!date) {
    throw new AppError('invalid_parameter', `${argument} must be a date (YYYY-MM-DD) or an ISO 8601 UTC timestamp.`, {
      fieldErrors: [{ field: argument, code: 'invalid', message: 'Use YYYY-MM-DD or 2026-10-31T19:00:00Z.' }],
    });
  }
  return date;
}

/** `q` as a `contains` operand: Prisma passes it to (I)LIKE unescaped, so %, _ and \ are escaped to match literally. */
function textFilter(q: string | null | undefined) {
  const text = q?.trim();
  if (!text) return undefined;
  if (text.length > 200) {
    throw new AppError('invalid_parameter', 'q is longer than 200 characters.', {
      fieldErrors: [{ field: 'q', code: 'too_long', message: 'Use at most 200 characters.' }],
    });
  }
  return text.replace(/[\\%_]/g, '\\$&');
}

/** The one place directory filters become database conditions, shared by events and attractions. */
export function eventWhere(filters: DirectoryFilters): Prisma.EventWhereInput {
  const text = textFilter(filters.q);
  const startsAt = {
    ...(filters.startsAfter ? { gte: parseBound(filters.startsAfter, 'startsAfter') } : {}),
    ...(filters.startsBefore ? { lt: parseBound(filters.startsBefore, 'startsBefore') } : {}),
  };
  return {
    ...(filters.city ? { cityKey: filters.city.trim().toLowerCase() } : {}),
    ...(filters.category ? { categories: { some: { slug: filters.category } } } : {}),
    ...(Object.keys(startsAt).length ? { startsAt } : {}),
    ...(text
      ? { OR: [{ title: { contains: text, mode: 'insensitive' } }, { description: { contains: text, mode: 'insensitive' } }, { venue: { contains: text, mode: 'insensitive' } }] }
      : {}),
  };
}

export function attractionWhere(filters: DirectoryFilters): Prisma.AttractionWhereInput {
  const text = textFilter(filters.q);
  const eventFilters = { startsAfter: filters.startsAfter, startsBefore: filters.startsBefore };
  const hasEventFilters = Boolean(filters.startsAfter || filters.startsBefore);
  return {
    ...(filters.city ? { cityKey: filters.city.trim().toLowerCase() } : {}),
    ...(filters.category ? { categories: { some: { slug: filters.category } } } : {}),
    ...(hasEventFilters ? { events: { some: eventWhere(eventFilters) } } : {}),
    ...(text ? { OR: [{ name: { contains: text, mode: 'insensitive' } }, { description: { contains: text, mode: 'insensitive' } }] } : {}),
  };
}
