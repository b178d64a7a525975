import type { Prisma } from '../generated/prisma/client.js';
import { builder, nodeScope } from '../graphql/builder.js';
import { cachedUnderDataVersion } from '../response-cache/graphql-data-versions.js';
import { AppError } from '../shared/errors.js';
import { attractionWhere, eventWhere, refuseUnknownCategory } from './filters.js';
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

function orderInput<Fields extends Record<string, string>>(name: string, fields: Fields) {
  const FieldEnum = builder.enumType(`${name}Field`, { values: Object.keys(fields) as (keyof Fields & string)[] });
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
  const keys = order?.length ? order : [{ field: fallback, direction: 'ASC' }];
  if (new Set(keys.map((key) => key.field)).size < keys.length) {
    throw new AppError('invalid_parameter', 'orderBy names a field more than once.', {
      fieldErrors: [{ field: 'orderBy', code: 'repeated', message: 'Name each field at most once.' }],
    });
  }
  return [...keys.map((key) => ({ [fields[key.field as keyof Fields]!]: key.direction === 'DESC' ? ('desc' as const) : ('asc' as const) })), { id: 'asc' as const }];
}

builder.queryFields((t) => {
  const filters = {
    city: t.arg.string({ description: 'Matches case-insensitively.' }),
    category: t.arg.string({ description: 'A category slug, e.g. haunted-house.' }),
    startsAfter: t.arg.string({ description: 'A date or a UTC timestamp.' }),
    startsBefore: t.arg.string({ description: 'A date or a UTC timestamp.' }),
    q: t.arg.string({ description: 'Text search.' }),
  };
  return {
    events: t.prismaConnection({
      type: 'Event',
      cursor: 'id',
      ...directoryRootField,
      args: { ...filters, orderBy: t.arg({ type: [EventOrder] }) },
      resolve: async (query, _root, args, context) =>
        refuseUnknownCategory(
          context.prisma,
          args.category,
          await context.services.directReads.findMany(context.prisma.event, 'Event', {
            ...query,
            where: eventWhere(args),
            orderBy: orderBy(eventSortFields, args.orderBy, 'STARTS_AT'),
          }),
        ),
    }),
    event: t.prismaField({
      type: 'Event',
      ...directoryRootField,
      args: { id: t.arg.id({ required: true }) },
      resolve: async (query, _root, args, context) => {
        const event = await context.services.directReads.findUnique(context.prisma.event, 'Event', { ...query, where: { id: String(args.id) } });
        if (!event) throw new AppError('not_found', `No event with id "${args.id}".`);
        return event;
      },
    }),
    attractions: t.prismaConnection({
      type: 'Attraction',
      cursor: 'id',
      ...directoryRootField,
      args: { ...filters, orderBy: t.arg({ type: [AttractionOrder] }) },
      resolve: async (query, _root, args, context) =>
        refuseUnknownCategory(
          context.prisma,
          args.category,
          await context.services.directReads.findMany(context.prisma.attraction, 'Attraction', {
            ...query,
            where: attractionWhere(args),
            orderBy: orderBy(attractionSortFields, args.orderBy, 'NAME'),
          }),
        ),
    }),
    attraction: t.prismaField({
      type: 'Attraction',
      ...directoryRootField,
      args: { id: t.arg.id({ required: true }) },
      resolve: async (query, _root, args, context) => {
        const attraction = await context.services.directReads.findUnique(context.prisma.attraction, 'Attraction', { ...query, where: { id: String(args.id) } });
        if (!attraction) throw new AppError('not_found', `No attraction with id "${args.id}".`);
        return attraction;
      },
    }),
    categories: t.prismaConnection({
      type: 'Category',
      cursor: 'id',
      ...directoryRootField,
      resolve: (query, _root, _args, context) =>
        context.services.directReads.findMany(context.prisma.category, 'Category', { ...query, orderBy: [{ slug: 'asc' }, { id: 'asc' }] }),
    }),
    category: t.prismaField({
      type: 'Category',
      ...directoryRootField,
      args: { idOrSlug: t.arg.string({ required: true }) },
      resolve: async (query, _root, args, context) => {
        const category = await context.prisma.category.findFirst({ ...query, where: { OR: [{ id: args.idOrSlug }, { slug: args.idOrSlug }] } });
        if (!category) throw new AppError('not_found', `No category "${args.idOrSlug}".`);
        return category;
      },
    }),
  };
});

builder.queryField('directoryVersion', (t) =>
  t.string({
    authScopes: { scope: 'directory:read' },
    description: 'Changes whenever any directory response could change; a cheap validator for caches.',
    resolve: (_root, _args, context) => directoryDataVersion(context.services.readRows, context.services.clock()),
  }),
);
