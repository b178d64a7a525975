import { Prisma, type PrismaClient } from '../generated/prisma/client.js';

// Seeds the demo directory (categories, attractions, events, images) and the bookable services.
// The rows are deterministic (src/db/seed-data/directory.ts). Accounts and keys are seeded elsewhere.

/** Rows written per table, and how long seeding took. */
export interface SeedSummary {
  categories: number;
  attractions: number;
  events: number;
  images: number;
  services: number;
  milliseconds: number;
}

export interface SeedOptions {
  log: (line: string) => void;
  /** Multiplies the row counts (benchmarks seed 2× and more); 1 by default. */
  scale?: number;
}

/** Rows per INSERT: large enough to be fast, small enough to stay far below PostgreSQL's 65,535 parameters. */
const batchSize = 500;
/** One transaction holds the whole seed, which takes seconds at scale 1 and more with scale or a busy machine: far past Prisma's default 5 s. */
const transactionLimits = { timeout: 30 * 60_000, maxWait: 60_000 };

/** The tables a seed fills. */
const seededTables = ['categories', 'attractions', '"_AttractionToCategory"', 'events', '"_CategoryToEvent"', 'images', 'services'];

/** Either the client or the client of an open transaction. */
type Db = Prisma.TransactionClient;

export async function isDatabaseEmpty(prisma: Db): Promise<boolean> {
  const category = await prisma.category.findFirst({ select: { id: true } });
  const event = await prisma.event.findFirst({ select: { id: true } });
  return category === null && event === null;
}

/**
 * Recomputes event_count, first_starts_at, last_ends_at, price_min and price_max of the given
 * attractions (all when omitted) from their events, in one statement. An attraction left without
 * events gets 0 and nulls. updated_at is left to whoever changed the events.
 */
export async function refreshAttractionAggregates(prisma: Db, attractionIds?: string[]): Promise<number> {
  const eventFilter = attractionIds ? Prisma.sql`WHERE attraction_id = ANY(${attractionIds}::text[])` : Prisma.empty;
  const attractionFilter = attractionIds ? Prisma.sql`AND a.id = ANY(${attractionIds}::text[])` : Prisma.empty;
  // The self-join keeps attractions without events in the LEFT JOIN, so they are reset too.
  return prisma.$executeRaw`
    UPDATE attractions AS a SET
      event_count = coalesce(totals.event_count, 0),
      first_starts_at = totals.first_starts_at,
      last_ends_at = totals.last_ends_at,
      price_min = totals.price_min,
      price_max = totals.price_max
    FROM attractions AS target
    LEFT JOIN (
      SELECT attraction_id, count(*)::int AS event_count, min(starts_at) AS first_starts_at,
             max(ends_at) AS last_ends_at, min(price_min) AS price_min, max(price_max) AS price_max
      FROM events ${eventFilter}
      GROUP BY attraction_id
    ) AS totals ON totals.attraction_id = target.id
    WHERE a.id = target.id ${attractionFilter}`;
}

/**
 * Writes the directory in one transaction, so a failed or interrupted seed leaves the database
 * empty (and seeded again on the next start) rather than half-filled.
 */
export async function seedDatabase(prisma: PrismaClient, options: SeedOptions): Promise<SeedSummary> {
  const started = performance.now();
  const { log } = options;
  // Faker and the word lists load only when a seed runs, not with every server start.
  const { generateDirectory } = await import('./seed-data/directory.js');
  const rows = generateDirectory(options.scale ?? 1);

  // On PGlite everything inside must go through `tx`: a query on `prisma` would wait for this transaction.
  await prisma.$transaction(async (tx) => {
    // Between two batches the client builds the next one, which on a busy machine can outlast the
    // connection's idle-in-transaction deadline, meant for requests' short transactions.
    await tx.$executeRawUnsafe('SET LOCAL idle_in_transaction_session_timeout = 0');
    await tx.category.createMany({ data: rows.categories });
    log(`seed: categories ${rows.categories.length}`);
    await inBatches(rows.attractions, (batch) => tx.attraction.createMany({ data: batch }));
    log(`seed: attractions ${rows.attractions.length}`);
    await linkCategories(
      tx,
      '_AttractionToCategory',
      rows.attractionCategories.map((link) => [link.attractionId, link.categoryId]),
    );
    await inBatches(
      rows.events,
      (batch) => tx.event.createMany({ data: batch }),
      (done) => log(`seed: events ${done}/${rows.events.length}`),
    );
    await linkCategories(
      tx,
      '_CategoryToEvent',
      rows.eventCategories.map((link) => [link.categoryId, link.eventId]),
    );
    await inBatches(rows.images, (batch) => tx.image.createMany({ data: batch }));
    log(`seed: images ${rows.images.length}`);
    await inBatches(rows.services, (batch) => tx.service.createMany({ data: batch }));
    log(`seed: services ${rows.services.length}`);
    await refreshAttractionAggregates(tx);
  }, transactionLimits);
  // The planner has no statistics on freshly loaded tables until autovacuum comes round (never, where
  // it is off): it then guesses so many rows per event that a city's page at a large scale costs
  // enough to be JIT-compiled on every request.
  await prisma.$executeRawUnsafe(`ANALYZE ${seededTables.join(', ')}`);

  const milliseconds = Math.round(performance.now() - started);
  log(`seed: done in ${(milliseconds / 1000).toFixed(1)} s`);
  return {
    categories: rows.categories.length,
    attractions: rows.attractions.length,
    events: rows.events.length,
    images: rows.images.length,
    services: rows.services.length,
    milliseconds,
  };
}

async function inBatches<T>(rows: T[], write: (batch: T[]) => Promise<unknown>, progress?: (done: number) => void): Promise<void> {
  for (let start = 0; start < rows.length; start += batchSize) {
    const batch = rows.slice(start, start + batchSize);
    await write(batch);
    progress?.(start + batch.length);
  }
}

/**
 * Prisma has no createMany for implicit many-to-many tables. Their columns are A and B, A being the
 * model whose name sorts first: _AttractionToCategory (attraction, category), _CategoryToEvent (category, event).
 */
async function linkCategories(tx: Db, table: '_AttractionToCategory' | '_CategoryToEvent', pairs: [a: string, b: string][]): Promise<void> {
  // Two array parameters per statement, however many pairs.
  await tx.$executeRaw`
    INSERT INTO ${Prisma.raw(`"${table}"`)} ("A", "B")
    SELECT * FROM unnest(${pairs.map(([a]) => a)}::text[], ${pairs.map(([, b]) => b)}::text[])`;
}
