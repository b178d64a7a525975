import { bookableWindowOf, roomForParty, type BookableArgs, type BookableSlot, type BookableWindow } from '../bookings/bookable.js';
import type { Context } from '../graphql/context.js';
import { AppError, invalidParameter } from '../shared/errors.js';
import { boundingBox, distanceKm, nearOf, roundedKm, type Near, type NearArgs } from './near.js';

/**
 * A directory search: a plain list (filters, sort, page) narrowed by what the database cannot weigh
 * on its own: a point with a radius (near.ts), and room for a party in a window (bookings/bookable.ts).
 * Candidates come in the list's order, or by distance, as their keys only; each batch is weighed
 * until a page is full; then the page's records are read with what the query selects.
 */

export interface SearchArgs extends NearArgs, BookableArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

/** A search's order by distance from its point: nearest or farthest first. */
export type DistanceOrder = 'nearest' | 'farthest';

export interface Search {
  near: Near | undefined;
  bookable: BookableWindow | undefined;
  byDistance: DistanceOrder | undefined;
}

/** What a search found for a record besides its fields, for the `distanceKm` and `nextSlots` fields. */
const distances = new WeakMap<object, number>();
const nextSlots = new WeakMap<object, BookableSlot[]>();

/** The record's distance from the point searched from, in kilometres; null outside a near search. */
export const distanceKmOf = (record: object): number | null => distances.get(record) ?? null;
/** The record's soonest slots with room for the party searched for; null outside an availableFor search. */
export const nextSlotsOf = (record: object): BookableSlot[] | null => nextSlots.get(record) ?? null;

/** The search the arguments ask for, or undefined for a plain list; 400 naming the argument when it is malformed. */
export function searchOf(args: SearchArgs, sortsByDistance: DistanceOrder | undefined, now: Date): Search | undefined {
  const near = nearOf(args);
  const bookable = bookableWindowOf(args, now);
  if (sortsByDistance && !near) {
    throw new AppError('invalid_parameter', 'Sorting by distance needs lat, lng and radius: the point to measure from, and how far to search.', {
      fieldErrors: [{ field: 'orderBy', code: 'needs_point', message: 'Give lat, lng and radius, or sort by another field.' }],
    });
  }
  if (!near && !bookable) return undefined;
  if (args.last != null || args.before != null) {
    throw new AppError('invalid_parameter', 'A search near a point or for a party pages forward only: use first and after.', {
      fieldErrors: [{ field: args.last != null ? 'last' : 'before', code: 'unsupported', message: 'Use first and after.' }],
    });
  }
  return { near, bookable, byDistance: sortsByDistance };
}

/** The keys a search weighs a record by. */
interface Candidate {
  id: string;
  latitude: number | null;
  longitude: number | null;
  /** The attraction whose services book it: its own id for an attraction. */
  attractionId: string;
  distanceKm?: number;
}

/** The part of Pothos' connection query a search pages with. */
interface PageQuery {
  take?: number;
  skip?: number;
  cursor?: { id?: string | undefined };
  [selection: string]: unknown;
}

export interface SearchRead<Record> {
  /** Reads records as Prisma's findMany takes arguments (the list's own read). */
  findMany(args: object): Promise<Record[]>;
  /** The `select` that reads a candidate's keys. */
  keys: object;
  attractionIdOf(row: object): string;
  where: object;
  orderBy: object[];
  /** What else a record must be to be bookable in a window (an event: taking place in it); none for attractions. */
  whereTakingPlaceIn?: (window: BookableWindow) => object;
}

/**
 * The most candidates one page of an availableFor search weighs (its cost): past it, the search is
 * too broad to answer in a request, and the caller is asked to narrow it.
 */
export const maxWeighedCandidates = 2_000;

/**
 * Candidates in the first batch: a page and a margin for the ones the radius leaves out (a box's
 * corners) or a party does. Reading keys is cheap, so a plain search reads generously; weighing room
 * for a party reads every candidate's services and places, the dearest statement of a search, so
 * its first batch stays near the page.
 */
const firstBatchSize = (take: number, search: Search) => Math.min(search.bookable ? Math.max(Math.ceil(take * 1.5), 10) : Math.max(take * 2, 50), maxBatchSize);
/** The most candidates one batch weighs. */
const maxBatchSize = 400;
/**
 * The batch after the ones weighed so far: what the page still needs at the share of candidates
 * kept so far (a busy night keeps few, and the next batch grows to match), with a margin.
 */
function nextBatchSize(first: number, needed: number, seen: number, kept: number): number {
  const keptShare = Math.max(kept, 1) / seen;
  return Math.min(Math.max(Math.ceil((needed / keptShare) * 1.25), first), maxBatchSize);
}
/** The first ring of a search by distance: a city's reach; wider radii are read out to as far as the page needs. */
const firstRingKm = 25;

/**
 * The page of records of a search, in order, for a Pothos connection's `query` (take = page size + 1,
 * cursor and skip past the last record of the previous page).
 */
export async function searchPage<Record extends object>(context: Context, search: Search, query: PageQuery, read: SearchRead<Record>): Promise<Record[]> {
  const { take = 21, skip = 0, cursor, ...selection } = query;
  const now = context.services.clock();
  const where = search.near ? { AND: [read.where, boundingBox(search.near)] } : read.where;
  const toCandidate = (row: object): Candidate => {
    const { id, latitude, longitude } = row as { id: string; latitude: number | null; longitude: number | null };
    const candidate: Candidate = { id, latitude, longitude, attractionId: read.attractionIdOf(row) };
    if (search.near && latitude !== null && longitude !== null) candidate.distanceKm = distanceKm(search.near.latitude, search.near.longitude, latitude, longitude);
    return candidate;
  };
  const withinRadius = (candidate: Candidate) => !search.near || (candidate.distanceKm !== undefined && candidate.distanceKm <= search.near.radiusKm);

  const page: { candidate: Candidate; slots?: BookableSlot[] }[] = [];
  // Candidates seen and room weighed for, across batches and rings; `seen` sizes the next batch.
  let weighed = 0;
  let seen = 0;
  const first = firstBatchSize(take, search);
  const nextSize = () => nextBatchSize(first, take - page.length, seen, page.length);
  const weigh = async (batch: Candidate[]) => {
    seen += batch.length;
    let kept = batch.filter(withinRadius);
    // Past the budget only the candidates within it are weighed, so that whether a search is
    // answered depends on its first maxWeighedCandidates, not on where its batches end.
    const overBudget = search.bookable !== undefined && weighed + kept.length > maxWeighedCandidates;
    if (overBudget) kept = kept.slice(0, maxWeighedCandidates - weighed);
    weighed += kept.length;
    const room = search.bookable ? await roomForParty(context, [...new Set(kept.map((candidate) => candidate.attractionId))], search.bookable, now) : undefined;
    for (const candidate of kept) {
      if (page.length === take) return;
      const slots = room?.get(candidate.attractionId);
      if (room && !slots) continue;
      page.push({ candidate, ...(slots ? { slots } : {}) });
    }
    if (overBudget && page.length < take) {
      const message = `A search for room for a party weighs at most ${maxWeighedCandidates} records per page, and these filters leave more without filling it; narrow it with lat, lng and radius, city or category.`;
      throw invalidParameter('availableFor', message, 'too_broad');
    }
  };

  if (search.byDistance) {
    const near = search.near!;
    // (distance, id) ascending, or descending for the farthest first.
    const sign = search.byDistance === 'nearest' ? 1 : -1;
    const compare = (a: Candidate, b: Candidate) => sign * (a.distanceKm! - b.distanceKm! || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    // Pages after the first start past the cursor's record (Pothos pages with skip 1), in that order.
    let past: Candidate | undefined;
    if (cursor?.id !== undefined) {
      const [row] = await read.findMany({ where: { id: cursor.id }, select: read.keys });
      past = row && toCandidate(row);
      // As Prisma answers a cursor that names no record (or one no longer placed): an empty page.
      if (!past || past.distanceKm === undefined) return [];
    }
    const isPast = (candidate: Candidate) => !past || compare(candidate, past) > 0;
    // Nearest first: rings out from the point, each read as its bounding box, so the nearest records
    // are found without reading all of a wide radius; a ring keeps what lies beyond the ones before
    // it. Farthest first, the one ring is the whole radius.
    let weighedKm = -1;
    const firstRing = search.byDistance === 'nearest' ? Math.max(firstRingKm, (past?.distanceKm ?? 0) * 2) : near.radiusKm;
    for (let ringKm = Math.min(near.radiusKm, firstRing); ; ringKm = Math.min(ringKm * 2, near.radiusKm)) {
      const ring = (await read.findMany({ where: { AND: [read.where, boundingBox({ ...near, radiusKm: ringKm })] }, select: read.keys }))
        .map(toCandidate)
        .filter((candidate) => candidate.distanceKm !== undefined && candidate.distanceKm > weighedKm && candidate.distanceKm <= ringKm && isPast(candidate))
        .sort(compare);
      for (let from = 0, size = seen === 0 ? first : nextSize(); from < ring.length && page.length < take; from += size, size = nextSize()) {
        await weigh(ring.slice(from, from + size));
      }
      if (page.length === take || ringKm >= near.radiusKm) break;
      weighedKm = ringKm;
    }
  } else {
    let after: object = cursor ? { cursor, skip } : {};
    for (let size = first; ; size = nextSize()) {
      const batch = (await read.findMany({ where, orderBy: read.orderBy, select: read.keys, take: size, ...after })).map(toCandidate);
      await weigh(batch);
      if (page.length === take || batch.length < size) break;
      after = { cursor: { id: batch.at(-1)!.id }, skip: 1 };
    }
  }
  if (page.length === 0) return [];

  const records = await read.findMany({ ...selection, where: { id: { in: page.map((entry) => entry.candidate.id) } } });
  const byId = new Map(records.map((record) => [(record as { id: string }).id, record]));
  return page.flatMap(({ candidate, slots }) => {
    const record = byId.get(candidate.id);
    // Deleted between the two reads: left out, as a later read would.
    if (!record) return [];
    if (search.near && candidate.distanceKm !== undefined) distances.set(record, roundedKm(candidate.distanceKm));
    if (slots) nextSlots.set(record, slots);
    return [record];
  });
}
