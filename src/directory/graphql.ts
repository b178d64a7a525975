import type { Prisma } from '../generated/prisma/client.js';
import { servicesDataVersion } from '../bookings/availability.js';
import { nextSlotsPerAttraction, partySizeRange } from '../bookings/bookable.js';
import { BookableSlotRef } from '../bookings/graphql.js';
import { builder, connectionWith, listOfAtMost, nodeScope } from '../graphql/builder.js';
import { rangeExtension } from '../graphql/argument-range.js';
import { refuseCursorNamingNothing } from '../graphql/keyset-pages.js';
import { cachedUnderDataVersion } from '../response-cache/graphql-data-versions.js';
import { AppError, echoed, notFound } from '../shared/errors.js';
import { attractionWhere, eventWhere, refuseUnknownCategory } from './filters.js';
import { latitudeRange, longitudeRange, maxRadiusKm, radiusRange } from './near.js';
import { placeAttraction } from './operators.js';
import { distanceKmOf, maxWeighedCandidates, nextSlotsOf, searchOf, searchPage, type DistanceOrder, type SearchArgs, type SearchRead } from './search.js';
import type { Context } from '../graphql/context.js';
import { attractionTimelines, viewUpdatedAt } from './timeline.js';
import { directoryDataVersion } from './version.js';

/**
 * Every directory type needs directory:read, checked where its objects are reached: the root fields
 * below and node/nodes (nodeScope). Only directory types lead to directory types.
 */
const directoryTypeScope = { extensions: nodeScope('directory:read') } as const;

/** Root fields over the directory: answers are kept until the directory version changes. */
const directoryRootField = {
  authScopes: { scope: 'directory:read' },
  extensions: cachedUnderDataVersion((context) => directoryDataVersion(context.services.readRows, context.services.clock())),
} as const;

const money = (value: Prisma.Decimal | null) => (value === null ? null : Number(value));

/** What a search adds to each record it finds (search.ts): its distance from the point, and its slots with room for the party. */
const distanceKmField = {
  nullable: true,
  description: 'Great-circle distance from the point searched near, in kilometres to 0.01 km (whatever the radius unit); null without a point.',
  resolve: (record: object) => distanceKmOf(record),
} as const;
const nextSlotsField = {
  type: [BookableSlotRef] as [typeof BookableSlotRef],
  nullable: true,
  description: `The soonest slots (at most ${nextSlotsPerAttraction}) in the availability window with room for the party searched for; null without a party size.`,
  complexity: listOfAtMost(nextSlotsPerAttraction),
  resolve: (record: object) => nextSlotsOf(record),
} as const;

builder.prismaNode('Category', {
  id: { field: 'id' },
  nullable: true,
  description: 'A kind of event, such as haunted-house.',
  ...directoryTypeScope,
  fields: (t) => ({
    slug: t.exposeString('slug'),
    name: t.exposeString('name'),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

builder.prismaNode('Image', {
  id: { field: 'id' },
  nullable: true,
  ...directoryTypeScope,
  fields: (t) => ({
    url: t.exposeString('url'),
    width: t.exposeInt('width'),
    height: t.exposeInt('height'),
    alt: t.exposeString('alt'),
  }),
});

builder.prismaNode('Event', {
  id: { field: 'id' },
  nullable: true,
  description: 'A dated Halloween event at a venue.',
  ...directoryTypeScope,
  fields: (t) => ({
    title: t.exposeString('title'),
    description: t.exposeString('description'),
    city: t.exposeString('city'),
    region: t.exposeString('region'),
    venue: t.exposeString('venue'),
    address: t.exposeString('address'),
    latitude: t.exposeFloat('latitude'),
    longitude: t.exposeFloat('longitude'),
    startsAt: t.expose('startsAt', { type: 'DateTime' }),
    endsAt: t.expose('endsAt', { type: 'DateTime' }),
    timezone: t.exposeString('timezone', { description: 'IANA time zone of the venue.' }),
    priceMin: t.float({ resolve: (event) => Number(event.priceMin) }),
    priceMax: t.float({ resolve: (event) => Number(event.priceMax) }),
    currency: t.exposeString('currency'),
    url: t.exposeString('url'),
    attractionId: t.exposeID('attractionId'),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    distanceKm: t.float(distanceKmField),
    nextSlots: t.field({ ...nextSlotsField, description: `${nextSlotsField.description} Slots of the services of its attraction.` }),
    attraction: t.relation('attraction'),
    categories: t.relation('categories', { query: { orderBy: { slug: 'asc' } } }),
    images: t.relation('images', { query: { orderBy: { position: 'asc' } } }),
  }),
});

builder.prismaNode('Attraction', {
  id: { field: 'id' },
  nullable: true,
  description: 'An aggregated view of a place that holds events.',
  ...directoryTypeScope,
  fields: (t) => ({
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    city: t.exposeString('city'),
    region: t.exposeString('region'),
    website: t.exposeString('website', { nullable: true }),
    latitude: t.exposeFloat('latitude', { nullable: true, description: 'WGS 84 degrees; null while an operator has not placed it (no near search finds it).' }),
    longitude: t.exposeFloat('longitude', { nullable: true, description: 'WGS 84 degrees; null while an operator has not placed it.' }),
    distanceKm: t.float(distanceKmField),
    nextSlots: t.field(nextSlotsField),
    eventCount: t.exposeInt('eventCount'),
    firstStartsAt: t.expose('firstStartsAt', { type: 'DateTime', nullable: true }),
    lastEndsAt: t.expose('lastEndsAt', { type: 'DateTime', nullable: true }),
    nextStartsAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'Start of the next event from now, if any.',
      resolve: async (attraction, _args, context) => (await attractionTimelines(context).load(attraction.id)).nextStartsAt,
    }),
    priceMin: t.float({ nullable: true, resolve: (attraction) => money(attraction.priceMin) }),
    priceMax: t.float({ nullable: true, resolve: (attraction) => money(attraction.priceMax) }),
    updatedAt: t.field({
      type: 'DateTime',
      description: "When the aggregated view last changed: the attraction's own update, an update of one of its events, or the start of an event (which moves nextStartsAt).",
      resolve: async (attraction, _args, context) => viewUpdatedAt(attraction.updatedAt, await attractionTimelines(context).load(attraction.id)),
    }),
    categories: t.relation('categories', { query: { orderBy: { slug: 'asc' } } }),
    events: t.relatedConnection('events', {
      cursor: 'id',
      query: { orderBy: [{ startsAt: 'asc' }, { id: 'asc' }] },
    }),
    // Public like Service itself: how a widget finds what to show the places left of.
    services: t.relatedConnection('services', {
      cursor: 'id',
      description: "The services that book the attraction's slots, by id: their public fields and availability, which widget tokens read too.",
      query: { orderBy: { id: 'asc' } },
      // A service changes with its operator's writes, not the directory's: answers through it are cached under its data version too.
      extensions: cachedUnderDataVersion(servicesDataVersion),
    }),
  }),
});

const SortDirection = builder.enumType('SortDirection', { values: ['ASC', 'DESC'] as const });

const eventSortFields = {
  STARTS_AT: 'startsAt',
  ENDS_AT: 'endsAt',
  PRICE_MIN: 'priceMin',
  PRICE_MAX: 'priceMax',
  TITLE: 'title',
  CITY: 'city',
  UPDATED_AT: 'updatedAt',
} as const;

const attractionSortFields = {
  NAME: 'name',
  CITY: 'city',
  EVENT_COUNT: 'eventCount',
  FIRST_STARTS_AT: 'firstStartsAt',
  LAST_ENDS_AT: 'lastEndsAt',
  PRICE_MIN: 'priceMin',
  PRICE_MAX: 'priceMax',
} as const;

/** Sorts by distance from the point searched from (lat, lng): ASC nearest first, the default of a search with a point; DESC farthest first. */
const byDistance = 'DISTANCE';

function orderInput<Fields extends Record<string, string>>(name: string, fields: Fields) {
  const FieldEnum = builder.enumType(`${name}Field`, { values: [...(Object.keys(fields) as (keyof Fields & string)[]), byDistance] });
  return builder.inputType(name, {
    fields: (t) => ({
      field: t.field({ type: FieldEnum, required: true }),
      direction: t.field({ type: SortDirection, required: true, defaultValue: 'ASC' }),
    }),
  });
}

const EventOrder = orderInput('EventOrder', eventSortFields);
const AttractionOrder = orderInput('AttractionOrder', attractionSortFields);

/**
 * Sort keys to a Prisma orderBy, with the id last so that cursors stay stable. Each field at most
 * once: a repeated one orders nothing further, and a cursor's condition grows with the square of the
 * keys (a few hundred of them held the database for minutes).
 */
function orderBy<Fields extends Record<string, string>>(fields: Fields, order: readonly { field: string; direction: string }[] | null | undefined, fallback: string) {
  const keys = order?.length && order[0]!.field !== byDistance ? order : [{ field: fallback, direction: 'ASC' }];
  if (new Set(keys.map((key) => key.field)).size < keys.length) {
    throw new AppError('invalid_parameter', 'orderBy names a field more than once.', {
      fieldErrors: [{ field: 'orderBy', code: 'repeated', message: 'Name each field at most once.' }],
    });
  }
  return [...keys.map((key) => ({ [fields[key.field as keyof Fields]!]: key.direction === 'DESC' ? ('desc' as const) : ('asc' as const) })), { id: 'asc' as const }];
}

/**
 * Whether a list sorts by distance, and which way: asked for (alone: it orders every record), or
 * nearest first by default when a point is given without a sort.
 */
function sortsByDistance(args: { orderBy?: SortKeys; lat?: number | null; lng?: number | null }): DistanceOrder | undefined {
  const order = args.orderBy ?? [];
  if (order.some((key) => key.field === byDistance) && order.length > 1) {
    throw new AppError('invalid_parameter', 'Sorting by distance orders every record: it cannot be combined with other sort fields.', {
      fieldErrors: [{ field: 'orderBy', code: 'distance_alone', message: 'Sort by distance alone, or by other fields.' }],
    });
  }
  if (!order.length) return args.lat != null || args.lng != null ? 'nearest' : undefined;
  return distanceOrderOf(order);
}

type SortKeys = readonly { field: string; direction?: string | null }[] | null | undefined;

/** Which way the sort orders by distance, when its first key is the distance. */
function distanceOrderOf(order: SortKeys): DistanceOrder | undefined {
  if (order?.[0]?.field !== byDistance) return undefined;
  return order[0].direction === 'DESC' ? 'farthest' : 'nearest';
}

/** A list of events or attractions: a search (search.ts) when the arguments ask for one, else the plain read. */
async function listOrSearch<Row extends object>(
  context: Context,
  args: SearchArgs & { category?: string | null; orderBy?: readonly { field: string }[] | null },
  query: Parameters<typeof searchPage>[2],
  read: SearchRead<Row>,
): Promise<Row[]> {
  const search = searchOf(args, sortsByDistance(args), context.services.clock());
  const window = search?.bookable;
  const searched = window && read.whereTakingPlaceIn ? { ...read, where: { AND: [read.where, read.whereTakingPlaceIn(window)] } } : read;
  const rows = search ? await searchPage(context, search, query, searched) : await read.findMany({ ...query, where: read.where, orderBy: read.orderBy });
  const listed = await refuseUnknownCategory(context.prisma, args.category, rows);
  return refuseCursorNamingNothing(listed, query, async (id) => (await read.findMany({ where: { id }, select: { id: true } })).length > 0);
}

const DistanceUnit = builder.enumType('DistanceUnit', { values: { KM: { description: 'Kilometres.' }, MI: { description: 'Statute miles.' } } as const });

/**
 * What a search may read besides its page, its cost whatever its page: as many records as it weighs
 * for a party's room, or as one farthest first reads, every record of its radius.
 */
const searchWork = (args: { availableFor?: number | null; orderBy?: SortKeys }) =>
  args.availableFor != null || distanceOrderOf(args.orderBy) === 'farthest' ? maxWeighedCandidates : 0;

builder.queryFields((t) => {
  const filters = {
    city: t.arg.string({ description: 'Matches case-insensitively.' }),
    category: t.arg.string({ description: 'A category slug, e.g. haunted-house.' }),
    startsAfter: t.arg.string({ description: 'A date or a UTC timestamp.' }),
    startsBefore: t.arg.string({ description: 'A date or a UTC timestamp.' }),
    q: t.arg.string({ description: 'Text search.' }),
    lat: t.arg.float({ description: 'Latitude of the point to search near, in WGS 84 degrees (with its longitude).', extensions: rangeExtension(latitudeRange) }),
    lng: t.arg.float({ description: 'Longitude of the point to search near, in WGS 84 degrees (with its latitude).', extensions: rangeExtension(longitudeRange) }),
    radius: t.arg.float({
      description: `Keeps records within this great-circle distance of the point (given with lat and lng), in the radius unit; at most ${maxRadiusKm} km (310.6 mi).`,
      extensions: rangeExtension(radiusRange),
    }),
    radiusUnit: t.arg({ type: DistanceUnit, description: 'The unit of the radius: kilometres (the default) or miles.' }),
    availableFor: t.arg.int({
      description:
        'A party size: keeps records whose attraction has a slot in the availability window with at least this many places left (events: those taking place in the window), and answers the soonest of them.',
      // Which records pass moves with the places taken, in every account, and with the minute.
      extensions: { ...cachedUnderDataVersion(servicesDataVersion), ...rangeExtension(partySizeRange) },
    }),
    availableFrom: t.arg({ type: 'DateTime', description: 'Start of the availability window; default now.' }),
    availableTo: t.arg({
      type: 'DateTime',
      description: 'End of the availability window (slots start before it); default a day after its start, at most 7 days after it (or after now, for a window that has begun).',
    }),
  };
  return {
    events: t.prismaConnection({
      type: 'Event',
      cursor: 'id',
      ...directoryRootField,
      args: { ...filters, orderBy: t.arg({ type: [EventOrder] }) },
      complexity: connectionWith(maxWeighedCandidates, searchWork),
      resolve: async (query, _root, args, context) => {
        const read: SearchRead<Awaited<ReturnType<typeof context.prisma.event.findMany>>[number]> = {
          findMany: (findArgs) => context.services.directReads.findMany(context.prisma.event, 'Event', findArgs),
          keys: { id: true, latitude: true, longitude: true, attractionId: true },
          attractionIdOf: (row) => (row as { attractionId: string }).attractionId,
          where: eventWhere(args),
          orderBy: orderBy(eventSortFields, args.orderBy, 'STARTS_AT'),
          // An event is bookable in a window it takes place in, not for its attraction's slots a year on.
          whereTakingPlaceIn: (window) => ({ startsAt: { lt: window.to }, endsAt: { gt: window.from } }),
        };
        return listOrSearch(context, args, query, read);
      },
    }),
    event: t.prismaField({
      type: 'Event',
      ...directoryRootField,
      args: { id: t.arg.id({ required: true }) },
      resolve: async (query, _root, args, context) => {
        const event = await context.services.directReads.findUnique(context.prisma.event, 'Event', { ...query, where: { id: String(args.id) } });
        if (!event) throw notFound('event', String(args.id));
        return event;
      },
    }),
    attractions: t.prismaConnection({
      type: 'Attraction',
      cursor: 'id',
      ...directoryRootField,
      args: { ...filters, orderBy: t.arg({ type: [AttractionOrder] }) },
      complexity: connectionWith(maxWeighedCandidates, searchWork),
      resolve: async (query, _root, args, context) => {
        const read: SearchRead<Awaited<ReturnType<typeof context.prisma.attraction.findMany>>[number]> = {
          findMany: (findArgs) => context.services.directReads.findMany(context.prisma.attraction, 'Attraction', findArgs),
          keys: { id: true, latitude: true, longitude: true },
          attractionIdOf: (row) => (row as { id: string }).id,
          where: attractionWhere(args),
          orderBy: orderBy(attractionSortFields, args.orderBy, 'NAME'),
        };
        return listOrSearch(context, args, query, read);
      },
    }),
    attraction: t.prismaField({
      type: 'Attraction',
      ...directoryRootField,
      args: { id: t.arg.id({ required: true }) },
      resolve: async (query, _root, args, context) => {
        const attraction = await context.services.directReads.findUnique(context.prisma.attraction, 'Attraction', { ...query, where: { id: String(args.id) } });
        if (!attraction) throw notFound('attraction', String(args.id));
        return attraction;
      },
    }),
    categories: t.prismaConnection({
      type: 'Category',
      cursor: 'id',
      ...directoryRootField,
      resolve: async (query, _root, _args, context) =>
        refuseCursorNamingNothing(
          await context.services.directReads.findMany(context.prisma.category, 'Category', { ...query, orderBy: [{ slug: 'asc' }, { id: 'asc' }] }),
          query,
          async (id) => (await context.prisma.category.count({ where: { id } })) > 0,
        ),
    }),
    category: t.prismaField({
      type: 'Category',
      ...directoryRootField,
      args: { idOrSlug: t.arg.string({ required: true }) },
      resolve: async (query, _root, args, context) => {
        const category = await context.prisma.category.findFirst({ ...query, where: { OR: [{ id: args.idOrSlug }, { slug: args.idOrSlug }] } });
        if (!category) throw new AppError('not_found', `No category "${echoed(args.idOrSlug)}".`);
        return category;
      },
    }),
  };
});

const AttractionLocationInput = builder.inputType('AttractionLocationInput', {
  description: 'Where an attraction is, in WGS 84 degrees.',
  fields: (t) => ({
    latitude: t.float({ required: true, description: 'From -90 to 90.' }),
    longitude: t.float({ required: true, description: 'From -180 to 180.' }),
  }),
});

/** What placing an attraction answers: its place, not the directory's view of it (which needs directory:read). */
const PlacedAttraction = builder.objectRef<Awaited<ReturnType<typeof placeAttraction>>>('PlacedAttraction').implement({
  description: 'An attraction where an operator placed it.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    latitude: t.exposeFloat('latitude', { nullable: true }),
    longitude: t.exposeFloat('longitude', { nullable: true }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

builder.mutationField('placeAttraction', (t) =>
  t.field({
    type: PlacedAttraction,
    authScopes: { scope: 'admin' },
    description: 'Places an attraction at a point (operators): where near searches find it.',
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: AttractionLocationInput, required: true }) },
    resolve: (_root, args, context) => placeAttraction(context.prisma, String(args.id), args.input),
  }),
);

builder.queryField('directoryVersion', (t) =>
  t.string({
    authScopes: { scope: 'directory:read' },
    description: 'Changes whenever any directory response could change; a cheap validator for caches.',
    resolve: (_root, _args, context) => directoryDataVersion(context.services.readRows, context.services.clock()),
  }),
);
