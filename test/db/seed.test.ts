import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.js';
import { categorySlugs } from '../../src/db/seed-data/categories.js';
import { cities } from '../../src/db/seed-data/cities.js';
import { generateDirectory, seededAt } from '../../src/db/seed-data/directory.js';
import { isDatabaseEmpty, refreshAttractionAggregates, seedDatabase, type SeedSummary } from '../../src/db/seed.js';
import { openingMinutes, slotsBetween, type OpeningHours } from '../../src/bookings/schedule.js';
import { deadlineDefaults } from '../../src/config.js';
import { openTestDatabase } from '../support/database.js';
import { requireService } from '../support/services.js';

const postgresUrl = await requireService('postgres');

/** Seeded here, from a migrated but empty database (in-memory PGlite, or PostgreSQL under TEST_DATABASE_URL). */
let fresh: Database;
/** Seeded by the suite's global setup, in another process. */
let snapshot: Database;
let summary: SeedSummary;
let emptyBeforeSeeding: boolean;
const logLines: string[] = [];

beforeAll(async () => {
  [fresh, snapshot] = await Promise.all([openTestDatabase({ seeded: false }), openTestDatabase({ seeded: true })]);
  emptyBeforeSeeding = await isDatabaseEmpty(fresh.prisma);
  summary = await seedDatabase(fresh.prisma, { log: (line) => logLines.push(line) });
});
afterAll(async () => {
  await Promise.all([fresh?.close(), snapshot?.close()]);
});

const day = (date: Date) => date.toISOString().slice(0, 10);

const directoryTables = ['categories', 'attractions', 'events', 'images', 'services', '_CategoryToEvent', '_AttractionToCategory'];

/** A digest of every row of a table, so two databases can be compared without fetching them. */
async function tableDigest(database: Database, table: string): Promise<string> {
  const [row] = await database.prisma.$queryRawUnsafe<{ digest: string }[]>(`SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) AS digest FROM "${table}" t`);
  return row!.digest;
}

describe('seedDatabase', () => {
  it('fills an empty database and reports what it wrote, with progress lines', async () => {
    expect(emptyBeforeSeeding).toBe(true);
    expect(await isDatabaseEmpty(fresh.prisma)).toBe(false);
    const { prisma } = fresh;
    expect(summary).toMatchObject({
      categories: await prisma.category.count(),
      attractions: await prisma.attraction.count(),
      events: await prisma.event.count(),
      images: await prisma.image.count(),
      services: await prisma.service.count(),
    });
    expect(summary.categories).toBe(8);
    expect(summary.attractions).toBeGreaterThanOrEqual(300);
    expect(summary.events).toBeGreaterThanOrEqual(1500);
    expect(summary.images).toBeGreaterThanOrEqual(3000);
    expect(summary.services).toBeGreaterThanOrEqual(summary.attractions);
    expect(logLines).toEqual(
      expect.arrayContaining([
        'seed: categories 8',
        `seed: attractions ${summary.attractions}`,
        `seed: events ${summary.events}/${summary.events}`,
        `seed: images ${summary.images}`,
        `seed: services ${summary.services}`,
      ]),
    );
    expect(logLines.at(-1)).toMatch(/^seed: done in \d+\.\d s$/);
  });

  it('writes byte-identical rows, ids and timestamps included, on every run', async () => {
    const firstEvents = (database: Database) =>
      database.prisma.event.findMany({
        orderBy: { id: 'asc' },
        take: 50,
        include: { categories: { orderBy: { id: 'asc' } }, images: { orderBy: { position: 'asc' } } },
      });
    const [ours, theirs] = await Promise.all([firstEvents(fresh), firstEvents(snapshot)]);
    expect(ours).toHaveLength(50);
    expect(ours).toEqual(theirs);
    for (const table of directoryTables) {
      expect(await tableDigest(fresh, table), table).toBe(await tableDigest(snapshot, table));
    }
  });

  it('leaves planner statistics on every table it filled, so the first reads are planned on the real row counts', async () => {
    const tables = await fresh.prisma.$queryRaw<{ relname: string; reltuples: number }[]>`
      SELECT relname, reltuples::float8 AS reltuples FROM pg_class WHERE relkind = 'r' AND relname = ANY(${directoryTables}::text[])`;
    expect(tables.map((table) => table.relname).sort()).toEqual([...directoryTables].sort());
    for (const table of tables) expect(table.reltuples, table.relname).toBeGreaterThan(0);
  });

  it('creates exactly the eight categories', async () => {
    const categories = await fresh.prisma.category.findMany({ orderBy: { slug: 'asc' } });
    expect(categories.map((category) => category.slug)).toEqual([...categorySlugs].sort());
    expect(categories.find((category) => category.slug === 'haunted-house')?.name).toBe('Haunted House');
    for (const category of categories) expect(category.id).toMatch(/^cat_[a-z_]+$/);
  });

  it('spreads the directory over at least 40 real US cities, each event near its city and in its time zone', async () => {
    const events = await fresh.prisma.event.findMany({ select: { city: true, region: true, timezone: true, latitude: true, longitude: true } });
    const byName = new Map(cities.map((city) => [`${city.name}, ${city.region}`, city]));
    const seen = new Set<string>();
    for (const event of events) {
      const city = byName.get(`${event.city}, ${event.region}`);
      expect(city, `${event.city}, ${event.region}`).toBeDefined();
      expect(event.timezone).toBe(city!.timezone);
      expect(Math.abs(event.latitude - city!.latitude)).toBeLessThan(0.1);
      expect(Math.abs(event.longitude - city!.longitude)).toBeLessThan(0.1);
      seen.add(event.city);
    }
    expect(seen.size).toBeGreaterThanOrEqual(40);
    for (const city of cities) {
      expect(city.region).toMatch(/^[A-Z]{2}$/);
      expect(() => new Intl.DateTimeFormat('en-US', { timeZone: city.timezone }), city.timezone).not.toThrow();
    }
  });

  it("keeps every event in its attraction's city, with 1–3 categories whose union is the attraction's", async () => {
    const attractions = await fresh.prisma.attraction.findMany({
      include: { categories: true, events: { include: { categories: true } } },
    });
    for (const attraction of attractions) {
      expect(attraction.events.length).toBeGreaterThan(0);
      const union = new Set<string>();
      for (const event of attraction.events) {
        expect([event.city, event.cityKey, event.region]).toEqual([attraction.city, attraction.cityKey, attraction.region]);
        expect(event.cityKey).toBe(event.city.toLowerCase());
        expect(event.categories.length).toBeGreaterThanOrEqual(1);
        expect(event.categories.length).toBeLessThanOrEqual(3);
        for (const category of event.categories) union.add(category.slug);
      }
      expect(attraction.categories.map((category) => category.slug).sort()).toEqual([...union].sort());
    }
  });

  it('stores attraction aggregates that match a recomputation from the events', async () => {
    const [attractions, events] = await Promise.all([
      fresh.prisma.attraction.findMany(),
      fresh.prisma.event.findMany({ select: { attractionId: true, startsAt: true, endsAt: true, priceMin: true, priceMax: true } }),
    ]);
    for (const attraction of attractions) {
      const own = events.filter((event) => event.attractionId === attraction.id);
      expect(attraction.eventCount).toBe(own.length);
      expect(attraction.firstStartsAt?.getTime()).toBe(Math.min(...own.map((event) => event.startsAt.getTime())));
      expect(attraction.lastEndsAt?.getTime()).toBe(Math.max(...own.map((event) => event.endsAt.getTime())));
      expect(attraction.priceMin?.toNumber()).toBe(Math.min(...own.map((event) => event.priceMin.toNumber())));
      expect(attraction.priceMax?.toNumber()).toBe(Math.max(...own.map((event) => event.priceMax.toNumber())));
    }
  });

  it('gives events sane dates in both seasons, dollar prices (some free) and fixed timestamps', async () => {
    const events = await fresh.prisma.event.findMany();
    const seasonOf = (date: Date) => date.getUTCFullYear();
    const seasons = new Set(events.map((event) => seasonOf(event.startsAt)));
    expect([...seasons].sort()).toEqual([2026, 2027]);
    for (const event of events) {
      expect(event.id).toMatch(/^ev_[0-9A-Za-z]{22}$/);
      const year = seasonOf(event.startsAt);
      expect(event.startsAt.getTime()).toBeGreaterThanOrEqual(Date.UTC(year, 8, 15));
      expect(event.startsAt.getTime()).toBeLessThan(Date.UTC(year, 10, 16, 12));
      expect(event.endsAt.getTime()).toBeGreaterThan(event.startsAt.getTime());
      expect(event.priceMin.lessThanOrEqualTo(event.priceMax)).toBe(true);
      expect(event.priceMin.decimalPlaces()).toBeLessThanOrEqual(2);
      expect(event.currency).toBe('USD');
      expect(event.url).toMatch(/^https:\/\//);
      expect([event.createdAt, event.updatedAt]).toEqual([seededAt, seededAt]);
    }
    expect(events.some((event) => event.priceMax.isZero())).toBe(true);
    expect(events.some((event) => event.title.includes('Manor'))).toBe(true);
  });

  it('gives each event 1–4 described images at positions 0..n-1', async () => {
    const events = await fresh.prisma.event.findMany({ select: { images: { orderBy: { position: 'asc' } } } });
    for (const { images } of events) {
      expect(images.length).toBeGreaterThanOrEqual(1);
      expect(images.length).toBeLessThanOrEqual(4);
      expect(images.map((image) => image.position)).toEqual(images.map((_, index) => index));
      for (const image of images) {
        expect(image.url).toMatch(/^https:\/\/images\.hallowgate\.example\/[a-z-]+\/\w+-\d+x\d+\.jpg$/);
        expect(image.url).toContain(`-${image.width}x${image.height}.jpg`);
        expect(image.alt.length).toBeGreaterThan(20);
      }
    }
  });

  it("gives every attraction bookable services with capacity, duration and a schedule in its city's zone across the 2027 season", async () => {
    const attractions = await fresh.prisma.attraction.findMany({ include: { services: true, categories: true } });
    const zoneOf = new Map(cities.map((city) => [`${city.name}, ${city.region}`, city.timezone]));
    for (const attraction of attractions) {
      expect(attraction.services.length).toBeGreaterThanOrEqual(1);
      for (const service of attraction.services) {
        expect(service.id).toMatch(/^svc_[0-9A-Za-z]{22}$/);
        expect(service.name).toMatch(/^[A-Z][\w -]+ – /);
        expect(service.name.endsWith(` – ${attraction.name}`)).toBe(true);
        expect(service.capacity).toBeGreaterThanOrEqual(10);
        expect(service.capacity).toBeLessThanOrEqual(60);
        expect(service.durationMinutes).toBeGreaterThanOrEqual(30);
        expect(service.durationMinutes).toBeLessThanOrEqual(120);
        expect(service.timezone).toBe(zoneOf.get(`${attraction.city}, ${attraction.region}`));
        expect(service.seasonStart.getTime()).toBeGreaterThanOrEqual(Date.UTC(2027, 8, 1));
        expect(service.seasonEnd.getTime()).toBeLessThanOrEqual(Date.UTC(2027, 10, 30));
        const openings = service.openingHours as unknown as OpeningHours[];
        expect(openings.length).toBeGreaterThan(0);
        for (const opening of openings) {
          expect(opening.weekday).toBeGreaterThanOrEqual(1);
          expect(opening.weekday).toBeLessThanOrEqual(7);
          expect(openingMinutes(opening)).toBeGreaterThanOrEqual(service.durationMinutes);
        }
        const schedule = { ...service, openingHours: openings, seasonStart: day(service.seasonStart), seasonEnd: day(service.seasonEnd) };
        expect(slotsBetween(schedule, schedule.seasonStart, schedule.seasonEnd).length, service.name).toBeGreaterThan(10);
      }
    }
  });

  it('opens haunted houses in the evening into the night and pumpkin patches by day', async () => {
    const services = await fresh.prisma.service.findMany({ include: { attraction: { include: { categories: true } } } });
    const openingsOf = (slug: string) =>
      services
        .filter((service) => service.attraction.categories.some((category) => category.slug === slug) && /^(Timed entry|Pick-your-own slot) – /.test(service.name))
        .flatMap((service) => service.openingHours as unknown as OpeningHours[]);
    const haunted = openingsOf('haunted-house');
    expect(haunted.length).toBeGreaterThan(0);
    for (const opening of haunted) expect(opening.opens >= '19:00').toBe(true);
    // Friday and Saturday nights run past midnight.
    expect(haunted.filter((opening) => opening.closes < opening.opens).map((opening) => opening.weekday)).toEqual(expect.arrayContaining([5, 6]));
    const patches = openingsOf('pumpkin-patch');
    expect(patches.length).toBeGreaterThan(0);
    for (const opening of patches) expect(opening.opens >= '08:00' && opening.closes <= '19:00' && opening.closes > opening.opens).toBe(true);
  });
});

describe('refreshAttractionAggregates', () => {
  it('recomputes only the attractions it is given, and resets one left without events', async () => {
    const { prisma } = fresh;
    const [changed, untouched] = await prisma.attraction.findMany({ where: { eventCount: { gte: 2 } }, orderBy: { id: 'asc' }, take: 2 });
    const event = await prisma.event.findFirstOrThrow({ where: { attractionId: changed!.id }, orderBy: { id: 'asc' } });
    const earlier = new Date(changed!.firstStartsAt!.getTime() - 86_400_000);
    await prisma.event.update({ where: { id: event.id }, data: { startsAt: earlier, priceMax: '999.99' } });
    await prisma.attraction.update({ where: { id: untouched!.id }, data: { eventCount: 0 } });

    expect(await refreshAttractionAggregates(prisma, [changed!.id])).toBe(1);
    const refreshed = await prisma.attraction.findUniqueOrThrow({ where: { id: changed!.id } });
    expect(refreshed.firstStartsAt).toEqual(earlier);
    expect(refreshed.priceMax?.toFixed(2)).toBe('999.99');
    expect(refreshed.eventCount).toBe(changed!.eventCount);
    expect((await prisma.attraction.findUniqueOrThrow({ where: { id: untouched!.id } })).eventCount).toBe(0);

    await prisma.event.deleteMany({ where: { attractionId: changed!.id } });
    expect(await refreshAttractionAggregates(prisma, [changed!.id])).toBe(1);
    expect(await prisma.attraction.findUniqueOrThrow({ where: { id: changed!.id } })).toMatchObject({
      eventCount: 0,
      firstStartsAt: null,
      lastEndsAt: null,
      priceMin: null,
      priceMax: null,
    });

    expect(await refreshAttractionAggregates(prisma, [])).toBe(0);
    expect(await refreshAttractionAggregates(prisma)).toBe(summary.attractions);
    expect((await prisma.attraction.findUniqueOrThrow({ where: { id: untouched!.id } })).eventCount).toBe(untouched!.eventCount);
  });
});

/** Great-circle kilometres between two points in degrees. */
function kilometresBetween(a: { latitude: number; longitude: number }, b: { latitude: number; longitude: number }): number {
  const radians = (degrees: number) => (degrees * Math.PI) / 180;
  const haversine =
    Math.sin(radians(b.latitude - a.latitude) / 2) ** 2 + Math.cos(radians(a.latitude)) * Math.cos(radians(b.latitude)) * Math.sin(radians(b.longitude - a.longitude) / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(haversine));
}

describe('generateDirectory at a larger scale', () => {
  it("keeps each city's first seven attractions in town and spreads the others over its metro area", () => {
    const { attractions } = generateDirectory(4);
    const distances: number[] = [];
    for (const city of cities) {
      const own = attractions.filter((attraction) => attraction.city === city.name && attraction.region === city.region);
      expect(own).toHaveLength(28);
      for (const attraction of own.slice(0, 7))
        expect(Math.max(Math.abs(attraction.latitude! - city.latitude), Math.abs(attraction.longitude! - city.longitude))).toBeLessThan(0.1);
      for (const attraction of own.slice(7)) distances.push(kilometresBetween(city, { latitude: attraction.latitude!, longitude: attraction.longitude! }));
    }
    // 150 km, and a little more: degrees are converted as if the area were flat.
    expect(Math.max(...distances)).toBeLessThan(152);
    // Spread over the whole area, not gathered in town, yet denser near the center.
    expect(distances.filter((distance) => distance > 100).length / distances.length).toBeGreaterThan(0.25);
    expect(distances.filter((distance) => distance < 25).length / distances.length).toBeGreaterThan(0.1);
  });
});

describe('seedDatabase at other scales', () => {
  let small: Database;
  beforeAll(async () => {
    small = await openTestDatabase({ seeded: false });
  });
  afterAll(() => small?.close());

  it('refuses a scale that is not a positive number', async () => {
    for (const scale of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(seedDatabase(small.prisma, { log: () => undefined, scale })).rejects.toThrow(RangeError);
    }
    expect(await isDatabaseEmpty(small.prisma)).toBe(true);
  });

  it('leaves nothing behind when a write fails part-way', async () => {
    const scale = 0.25;
    // An attraction already there makes the second step fail, after the categories were written.
    const [clash] = generateDirectory(scale).attractions;
    await small.prisma.attraction.create({ data: clash! });
    await expect(seedDatabase(small.prisma, { log: () => undefined, scale })).rejects.toThrow();
    expect(await small.prisma.category.count()).toBe(0);
    await small.prisma.attraction.delete({ where: { id: clash!.id } });

    const smaller = await seedDatabase(small.prisma, { log: () => undefined, scale });
    expect(smaller.attractions).toBe(Math.round(summary.attractions * scale));
    expect(smaller.categories).toBe(8);
    const cityCount = (await small.prisma.attraction.groupBy({ by: ['city'] })).length;
    expect(cityCount).toBeGreaterThanOrEqual(40);
  });
});

describe.skipIf(!postgresUrl)('seedDatabase on PostgreSQL', () => {
  it("keeps its one transaction open while the next batch is made, however long that takes: the connection's idle-in-transaction deadline is for requests", async () => {
    const database = await openTestDatabase({ seeded: false, postgresUrl: postgresUrl!, deadlines: { ...deadlineDefaults, DATABASE_TRANSACTION_TIMEOUT_MS: 200 } });
    try {
      // Each progress line holds the thread past that deadline, between two of the transaction's statements.
      const holdThread = () => {
        const until = Date.now() + 400;
        while (Date.now() < until);
      };
      const seeded = await seedDatabase(database.prisma, { log: holdThread, scale: 0.05 });
      expect(seeded.categories).toBe(8);
      expect(await database.prisma.attraction.count()).toBe(seeded.attractions);
    } finally {
      await database.close();
    }
  });
});
