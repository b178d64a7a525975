import type { Prisma, PrismaClient } from '../generated/prisma/client.js';
import { parseIsoDate, parseUtcTimestamp } from '../graphql/scalars.js';
import { closestName } from '../shared/closest-name.js';
import { AppError, echoed } from '../shared/errors.js';

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

/**
 * An unknown category slug is most likely a typo: 400 naming `category`, with the slug likely meant,
 * rather than an empty list. Looked up only when the list came back empty, so answers cost nothing
 * more. Cities are open-ended: an unknown city is simply an empty list.
 */
export async function refuseUnknownCategory<Row>(prisma: PrismaClient, category: string | null | undefined, rows: Row[]): Promise<Row[]> {
  if (rows.length > 0 || !category) return rows;
  const slugs = (await prisma.category.findMany({ select: { slug: true }, orderBy: { slug: 'asc' } })).map((known) => known.slug);
  if (slugs.includes(category)) return rows;
  const near = closestName(category, slugs);
  const message = `No category has the slug "${echoed(category)}"${near ? `; did you mean ${near}?` : `. The categories are ${slugs.join(', ')}.`}`;
  throw new AppError('invalid_parameter', message, { fieldErrors: [{ field: 'category', code: 'unknown', message }] });
}
