import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.js';
import type { DirectReads } from '../../src/db/root-reads.js';
import { createSqlReads } from '../../src/db/sql-reads/reads.js';
import { fastPathUses } from '../../src/fast-paths.js';
import { Prisma } from '../../src/generated/prisma/client.js';
import { modelMap } from '../../src/generated/sql-reads/model-map.js';
import { newId } from '../../src/shared/ids.js';
import { openTestDatabase } from '../support/database.js';

/**
 * The direct reads answer exactly what Prisma answers, for every argument shape the root fields send
 * and the edges around them (cursors at and past either end, backward pages, nullable sort keys,
 * LIKE's own characters, Decimal, BigInt, Json, enums, lists, dates), on PGlite and, under
 * TEST_DATABASE_URL, PostgreSQL. Shapes they do not translate go to Prisma: same answer, Prisma's SQL.
 */
let database: Database;
/** The direct reads themselves, whichever reads HALLOWGATE_FAST_PATHS gives the server (database.directReads). */
let directReads: DirectReads;
const statements: string[] = [];
let accountId: string;
let cityKey: string;
let eventIds: string[];
let cancelledBookingIds: string[];

beforeAll(async () => {
  database = await openTestDatabase({ seeded: true, onQuery: (sql) => statements.push(sql) });
  directReads = createSqlReads(database.prisma, database.readRows);
  const { prisma } = database;
  const events = await prisma.event.findMany({ orderBy: [{ startsAt: 'asc' }, { id: 'asc' }] });
  cityKey = events[0]!.cityKey;
  eventIds = events.filter((event) => event.cityKey === cityKey).map((event) => event.id);
  accountId = (await prisma.account.create({ data: { id: newId('account'), name: 'Direct reads' } })).id;
  const service = await prisma.service.findFirstOrThrow({ orderBy: { id: 'asc' } });
  for (let hour = 0; hour < 12; hour++) {
    const booking = await prisma.booking.create({
      data: {
        id: newId('booking'),
        accountId,
        serviceId: service.id,
        // Two bookings share each start time, so the id decides their order.
        startTime: new Date(Date.UTC(2027, 9, 10, Math.floor(hour / 2), 0, 0, hour * 7)),
        endTime: new Date(Date.UTC(2027, 9, 10, Math.floor(hour / 2), 30)),
        customerName: `Guest ${hour}`,
        customerEmail: `guest${hour}@example.com`,
        ...(hour % 3 === 0 ? { status: 'cancelled' as const, cancelledAt: new Date(Date.UTC(2027, 8, 1, hour, 0, 0, 123)) } : {}),
      },
    });
    await prisma.bookingEvent.create({
      data: { id: newId('bookingEvent'), accountId, bookingId: booking.id, type: 'booking.created', payload: { nested: { hour, list: [1, 'two', null] } } },
    });
  }
  cancelledBookingIds = (await prisma.booking.findMany({ where: { accountId, status: 'cancelled' }, orderBy: [{ startTime: 'asc' }, { id: 'asc' }] })).map((booking) => booking.id);
  const key = await prisma.apiKey.create({
    data: { id: newId('apiKey'), accountId, secretHash: 'x', plan: 'pro', scopes: ['bookings:read', 'directory:read'], allowedOrigins: [], ipAllowlist: ['10.0.0.0/8'] },
  });
  await prisma.usageBucket.create({
    data: { apiKeyId: key.id, minute: new Date(Date.UTC(2027, 0, 1)), route: 'GET /v1/bookings', statusClass: '2xx', requests: 3, bytes: 9_007_199_254_740_993n },
  });
  // LIKE's own characters in the text searched for.
  await prisma.event.update({ where: { id: eventIds[1]! }, data: { title: 'Half_price 50% \\ night', priceMin: new Prisma.Decimal('12.50') } });
});

afterAll(async () => {
  await database?.close();
});

type Delegate = { findMany(args: unknown): PromiseLike<unknown>; findUnique(args: unknown): PromiseLike<unknown> };

function delegateOf(model: Prisma.ModelName): Delegate {
  const name = `${model[0]!.toLowerCase()}${model.slice(1)}`;
  return (database.prisma as unknown as Record<string, Delegate>)[name]!;
}

/** Runs the read both ways; says whether the direct path ran (its SQL names tables without Prisma's schema prefix). */
async function bothWays(method: 'findMany' | 'findUnique', model: Prisma.ModelName, args: Record<string, unknown>) {
  const delegate = delegateOf(model);
  statements.length = 0;
  const direct = await directReads[method](delegate, model, args);
  const ranDirect = statements.length === 1 && !statements[0]!.includes('"public".');
  const prisma = await delegate[method](args);
  return { direct, prisma, ranDirect };
}

const eventInclude = { categories: { orderBy: { slug: 'asc' } }, images: { orderBy: { position: 'asc' } } };
const eventOrder = [{ startsAt: 'asc' }, { id: 'asc' }];

describe('direct reads', () => {
  const translated: [string, Prisma.ModelName, () => Record<string, unknown>][] = [
    ['a first page of a city with categories and images', 'Event', () => ({ include: eventInclude, where: { cityKey }, orderBy: eventOrder, take: 21, skip: 0 })],
    ['the page after a cursor', 'Event', () => ({ include: eventInclude, where: { cityKey }, orderBy: eventOrder, take: 4, skip: 1, cursor: { id: eventIds[3] } })],
    ['the page before a cursor', 'Event', () => ({ include: eventInclude, where: { cityKey }, orderBy: eventOrder, take: -4, skip: 1, cursor: { id: eventIds[6] } })],
    ['the page before the first', 'Event', () => ({ where: { cityKey }, orderBy: eventOrder, take: -4, skip: 1, cursor: { id: eventIds[0] } })],
    ['the page after the last', 'Event', () => ({ where: { cityKey }, orderBy: eventOrder, take: 4, skip: 1, cursor: { id: eventIds.at(-1) } })],
    ['a cursor that names no row', 'Event', () => ({ orderBy: eventOrder, take: 4, skip: 1, cursor: { id: 'ev_missing' } })],
    ['the last items without a cursor', 'Event', () => ({ where: { cityKey }, orderBy: eventOrder, take: -5 })],
    [
      'mixed directions with a cursor',
      'Event',
      () => ({ orderBy: [{ priceMin: 'desc' }, { title: 'asc' }, { id: 'asc' }], take: 7, skip: 1, cursor: { id: eventIds[2] }, include: eventInclude }),
    ],
    [
      'a category, a time range and text',
      'Event',
      () => ({
        where: {
          categories: { some: { slug: 'haunted-house' } },
          startsAt: { gte: new Date(Date.UTC(2026, 9, 1)), lt: new Date(Date.UTC(2026, 10, 1)) },
          OR: [{ title: { contains: 'HAUNT', mode: 'insensitive' } }, { venue: { contains: 'farm', mode: 'insensitive' } }],
        },
        orderBy: eventOrder,
        take: 30,
      }),
    ],
    [
      'text holding LIKE characters, escaped as the filters escape them',
      'Event',
      () => ({ where: { title: { contains: '50\\% \\\\', mode: 'insensitive' } }, orderBy: eventOrder }),
    ],
    ['an underscore matching only itself', 'Event', () => ({ where: { title: { contains: 'half\\_price', mode: 'insensitive' } }, orderBy: eventOrder })],
    ['an empty OR', 'Event', () => ({ where: { OR: [] }, take: 3, orderBy: eventOrder })],
    [
      'events by a list of ids (a page of a search), one unknown',
      'Event',
      () => ({ where: { id: { in: [eventIds[3], eventIds[0], 'ev_unknown', eventIds[2]] } }, include: eventInclude }),
    ],
    ['an empty list of ids', 'Event', () => ({ where: { id: { in: [] } }, include: eventInclude })],
    [
      'a list of ids within a box of latitudes and longitudes',
      'Event',
      () => ({ where: { AND: [{ id: { in: eventIds.slice(0, 5) } }, { latitude: { gte: -90, lte: 90 }, longitude: { gte: -180.0, lte: 179.5 } }] }, orderBy: eventOrder }),
    ],
    ['an empty AND', 'Event', () => ({ where: { AND: [] }, take: 3, orderBy: eventOrder })],
    [
      'an event by id with its attraction and their categories',
      'Event',
      () => ({ where: { id: eventIds[1] }, include: { attraction: { include: { categories: true } }, images: true } }),
    ],
    [
      'a selection of fields and one relation',
      'Event',
      () => ({ select: { id: true, title: true, priceMax: true, images: { orderBy: { position: 'desc' } } }, take: 5, orderBy: eventOrder }),
    ],
    [
      'attractions by a nullable key',
      'Attraction',
      () => ({ orderBy: [{ firstStartsAt: 'desc' }, { id: 'asc' }], take: 10, include: { categories: { orderBy: { slug: 'asc' } } } }),
    ],
    [
      'attractions with events in a range',
      'Attraction',
      () => ({ where: { cityKey, events: { some: { startsAt: { gte: new Date(Date.UTC(2026, 9, 15)) } } } }, orderBy: [{ name: 'asc' }, { id: 'asc' }] }),
    ],
    [
      'categories with their events and attractions (both sides of many-to-many)',
      'Category',
      () => ({ include: { events: true, attractions: true }, orderBy: [{ slug: 'asc' }, { id: 'asc' }], take: 3 }),
    ],
    [
      'bookings of a day, enum and nullable dates',
      'Booking',
      () => ({
        where: { accountId, startTime: { gte: new Date(Date.UTC(2027, 9, 10)), lt: new Date(Date.UTC(2027, 9, 11)) } },
        orderBy: [{ startTime: 'asc' }, { id: 'asc' }],
        take: 6,
      }),
    ],
    [
      'cancelled bookings after a cursor',
      'Booking',
      () => ({ where: { accountId, status: 'cancelled' }, orderBy: [{ startTime: 'asc' }, { id: 'asc' }], take: 2, skip: 1, cursor: { id: cancelledBookingIds[1] } }),
    ],
    [
      'confirmed bookings, the enum as an equals filter',
      'Booking',
      () => ({ where: { accountId, status: { equals: 'confirmed' } }, orderBy: [{ startTime: 'desc' }, { id: 'desc' }] }),
    ],
    [
      'times past the year 9999 (the end of a range ending 9999-12-31)',
      'Booking',
      () => ({
        where: {
          accountId,
          OR: [{ startTime: { lt: new Date(Date.UTC(10_000, 0, 1)), gte: new Date(Date.UTC(2027, 9, 10, 3)) } }, { startTime: { gte: new Date(Date.UTC(275_760, 0, 1)) } }],
        },
      }),
    ],
    ['services with JSON hours and date seasons', 'Service', () => ({ orderBy: { id: 'asc' }, take: 5, include: { attraction: true } })],
    ['booking events with BigInt and JSON', 'BookingEvent', () => ({ where: { accountId }, orderBy: { seq: 'desc' }, include: { booking: true } })],
    ['API keys with lists and enums, and their usage with a BigInt beyond 2^53', 'ApiKey', () => ({ where: { accountId }, include: { usage: true } })],
  ];

  it.each(translated)('answer as Prisma does: %s', async (_name, model, args) => {
    const { direct, prisma, ranDirect } = await bothWays('findMany', model, args());
    expect(ranDirect).toBe(true);
    expect(direct).toEqual(prisma);
  });

  it('have cases that find something, so the comparisons above are not between empty lists', async () => {
    for (const [, model, args] of translated.slice(0, 3)) expect(((await bothWays('findMany', model, args())).direct as unknown[]).length).toBeGreaterThan(2);
    const { direct } = await bothWays('findMany', 'ApiKey', { where: { accountId }, include: { usage: true } });
    expect((direct as { usage: { bytes: bigint }[] }[])[0]!.usage[0]!.bytes).toBe(9_007_199_254_740_993n);
  });

  it('find one record, or none, as findUnique does', async () => {
    for (const id of [eventIds[1], 'ev_missing']) {
      const { direct, prisma, ranDirect } = await bothWays('findUnique', 'Event', { where: { id }, include: eventInclude });
      expect(ranDirect).toBe(true);
      expect(direct).toEqual(prisma);
    }
  });

  it.each([
    ['a filter they do not translate', 'Event', { where: { title: { startsWith: 'A' } }, orderBy: eventOrder, take: 3 }],
    ['a cursor over a nullable sort key', 'Attraction', { orderBy: [{ firstStartsAt: 'asc' }, { id: 'asc' }], take: 3, cursor: { id: 'at_missing' } }],
    ['a page of a relation', 'Attraction', { include: { events: { take: 2, orderBy: { id: 'asc' } } }, take: 2, orderBy: { id: 'asc' } }],
    ['distinct', 'Event', { distinct: ['cityKey'], orderBy: [{ cityKey: 'asc' }], take: 5 }],
  ] as const)('leave %s to Prisma, with its answer', async (_name, model, args) => {
    const { direct, prisma, ranDirect } = await bothWays('findMany', model, args);
    expect(ranDirect).toBe(false);
    expect(direct).toEqual(prisma);
  });

  it('read times of any year exactly, to the millisecond', async () => {
    const { prisma } = database;
    const owner = (await prisma.account.create({ data: { id: newId('account'), name: 'Times' } })).id;
    const service = await prisma.service.findFirstOrThrow({ orderBy: { id: 'asc' } });
    const times = [
      new Date('0001-01-01T00:00:00.001Z'),
      new Date(Date.UTC(2027, 9, 10, 1, 2, 3, 456)),
      new Date(Date.UTC(99_999, 11, 31, 23, 59, 59, 999)),
      new Date(Date.UTC(100_000, 0, 1, 0, 0, 0, 1)),
      ...[150_000, 200_000, 250_000, 275_000].flatMap((year) => [1, 333, 667, 999].map((milliseconds) => new Date(Date.UTC(year, 6, 15, 12, 0, 0, milliseconds)))),
      new Date(8.64e15 - 1),
    ];
    await prisma.booking.createMany({
      data: times.map((time, index) => ({
        id: newId('booking'),
        accountId: owner,
        serviceId: service.id,
        startTime: time,
        endTime: time,
        customerName: `Time ${index}`,
        customerEmail: 'time@example.com',
      })),
    });
    // Prisma itself reads times past the year 9999 as invalid dates: these are compared with what was written.
    const { direct, ranDirect } = await bothWays('findMany', 'Booking', { where: { accountId: owner }, orderBy: [{ startTime: 'asc' }] });
    expect(ranDirect).toBe(true);
    expect((direct as { startTime: Date }[]).map((booking) => booking.startTime.getTime())).toEqual(times.map((time) => time.getTime()));
  });

  it('read a piggy-backed read in the same statement, once, and leave the rows as Prisma gives them', async () => {
    const received: unknown[] = [];
    const piggyback = (value: string) => ({
      column: (parameter: (value: unknown) => string) => `(SELECT ${parameter(value)}::text || '!')`,
      receive: (got: unknown) => received.push(got),
      fail: (error: unknown) => received.push(error),
    });
    const args = { where: { accountId }, orderBy: [{ startTime: 'asc' }, { id: 'asc' }], take: 4 };
    statements.length = 0;
    const direct = await directReads.findMany(delegateOf('Booking'), 'Booking', args, piggyback('along'));
    expect(statements).toHaveLength(1);
    expect(direct).toEqual(await delegateOf('Booking').findMany(args));
    expect(Object.keys((direct as object[])[0]!)).toEqual(Object.keys(((await delegateOf('Booking').findMany(args)) as object[])[0]!));
    // Nothing comes with no rows, nor when the read goes to Prisma.
    await directReads.findMany(delegateOf('Booking'), 'Booking', { ...args, where: { accountId: 'acct_nobody' } }, piggyback('none'));
    await directReads.findMany(delegateOf('Booking'), 'Booking', { ...args, where: { customerName: { startsWith: 'G' } } }, piggyback('prisma'));
    expect(received).toEqual(['along!', undefined, undefined]);
    // A list whose statement fails fails the read along with it, rather than have it sent on its own.
    await expect(directReads.findMany(delegateOf('Booking'), 'Booking', { ...args, where: { accountId: 'nul\u0000' } }, piggyback('failed'))).rejects.toThrow();
    expect(received).toHaveLength(4);
    expect(received[3]).toBeInstanceOf(Error);
  });

  it("build each record from the driver's array rows in one go: the same records, in the same shape, as Prisma gives", async () => {
    const rowModes: (string | undefined)[] = [];
    const reads = createSqlReads(database.prisma, (read) => {
      rowModes.push(read.rowMode);
      return database.readRows(read);
    });
    const bookings = { where: { accountId }, orderBy: [{ startTime: 'asc' }, { id: 'asc' }] };
    const events = { where: { cityKey }, include: { categories: true, images: { orderBy: { position: 'asc' } } }, orderBy: [{ startsAt: 'asc' }, { id: 'asc' }], take: 5 };
    for (const [model, args] of [
      ['Booking', bookings],
      ['Event', events],
    ] as const) {
      const direct = (await reads.findMany(delegateOf(model), model, args)) as object[];
      const viaPrisma = (await delegateOf(model).findMany(args)) as object[];
      expect(direct.length).toBeGreaterThan(1);
      expect(direct).toEqual(viaPrisma);
      for (const record of direct) expect(Object.keys(record)).toEqual(Object.keys(viaPrisma[0]!));
    }
    // The driver builds no object per row: rows come as arrays.
    expect(rowModes).toEqual(['array', 'array']);
  });

  it('send reads of one shape as one prepared statement, whatever their values', async () => {
    const sent: { name: string | undefined; text: string; values: unknown[] }[] = [];
    const reads = createSqlReads(database.prisma, (read) => {
      sent.push(read);
      return database.readRows(read);
    });
    for (const id of [eventIds[0], eventIds[1]]) await reads.findMany(delegateOf('Event'), 'Event', { where: { id }, include: eventInclude, take: 1 });
    await reads.findMany(delegateOf('Event'), 'Event', { where: { id: null }, include: eventInclude, take: 1 });
    expect(sent.map((read) => read.values)).toEqual([[eventIds[0], 1], [eventIds[1], 1], [1]]);
    expect(sent[1]!.text).toBe(sent[0]!.text);
    expect(sent[1]!.name).toBe(sent[0]!.name);
    expect(sent[0]!.name).toMatch(/^direct_/);
    expect(sent[2]!.text).not.toBe(sent[0]!.text);
  });

  it('send a list of ids as one value, so lists of any length share one prepared statement', async () => {
    const sent: { name: string | undefined; text: string; values: unknown[] }[] = [];
    const reads = createSqlReads(database.prisma, (read) => {
      sent.push(read);
      return database.readRows(read);
    });
    for (const ids of [eventIds.slice(0, 2), eventIds.slice(0, 7)]) await reads.findMany(delegateOf('Event'), 'Event', { where: { id: { in: ids } }, include: eventInclude });
    expect(sent.map((read) => read.values)).toEqual([[eventIds.slice(0, 2)], [eventIds.slice(0, 7)]]);
    expect(sent[1]!.name).toBe(sent[0]!.name);
  });

  it("never read past a Prisma client extension: an extended client's delegate answers itself", async () => {
    // An extension in the manner of a soft delete or a row rule: its reads see one city only.
    const extended = database.prisma.$extends({
      query: { event: { findMany: ({ args, query }) => query({ ...args, where: { AND: [args.where ?? {}, { cityKey }] } }) } },
    });
    const args = { orderBy: [{ startsAt: 'asc' as const }, { id: 'asc' as const }], take: 200 };
    const before = fastPathUses['direct-reads'];
    const read = (await directReads.findMany(extended.event, 'Event', args)) as { cityKey: string }[];
    expect(read).toEqual(await extended.event.findMany(args));
    expect(read.length).toBeGreaterThan(0);
    expect(new Set(read.map((event) => event.cityKey))).toEqual(new Set([cityKey]));
    // The same read on the client the reads were made with is read past Prisma, and finds other cities.
    const plain = (await directReads.findMany(delegateOf('Event'), 'Event', args)) as { cityKey: string }[];
    expect(new Set(plain.map((event) => event.cityKey)).size).toBeGreaterThan(1);
    expect(fastPathUses['direct-reads']).toBe(before + 1);
  });

  it("read inside a transaction through the transaction's delegate, so it sees what the transaction wrote", async () => {
    const name = `Inside ${newId('booking')}`;
    const seen = await database.prisma.$transaction(async (tx) => {
      const service = await tx.service.findFirstOrThrow({ orderBy: { id: 'asc' } });
      const at = new Date(Date.UTC(2028, 0, 1));
      await tx.booking.create({
        data: { id: newId('booking'), accountId, serviceId: service.id, startTime: at, endTime: at, customerName: name, customerEmail: 'tx@example.com' },
      });
      return directReads.findMany(tx.booking, 'Booking', { where: { accountId, customerName: { contains: name } } });
    });
    expect(seen).toHaveLength(1);
  });

  it('read tables and columns that the migrations made, the implicit many-to-many tables included', async () => {
    const columns = await database.readRows<{ table_name: string; column_name: string }>({
      name: undefined,
      text: "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public'",
      values: [],
    });
    const present = new Set(columns.map((column) => `${column.table_name}.${column.column_name}`));
    const expected = Object.values(modelMap.models).flatMap((model) =>
      model.fields.flatMap((field) => {
        if (field.kind !== 'relation') return [`${model.table}.${field.column}`];
        return field.join.via === 'join table' ? [`${field.join.table}.${field.join.column}`, `${field.join.table}.${field.join.otherColumn}`] : [];
      }),
    );
    expect(expected.filter((column) => !present.has(column))).toEqual([]);
    expect(expected).toContain('_CategoryToEvent.A');
  });
});
