import type { AttractionOrder, EventOrder } from './__generated__/graphql.js';
import {
  DirectoryAttractionDocument,
  DirectoryAttractionsDocument,
  DirectoryCategoriesDocument,
  DirectoryCategoryDocument,
  DirectoryEventDocument,
  DirectoryEventsDocument,
  DirectoryVersionDocument,
} from './__generated__/graphql.js';
import { listPage, pageArguments } from './lists.js';
import { runOperation } from './operation.js';
import { onlyRequestedFields, projectionVariables, sortParameter } from './projection.js';
import type { RestRequest, RestRoute } from './routes.js';

const eventFields = [
  'title', 'description', 'city', 'region', 'venue', 'address', 'latitude', 'longitude', 'starts_at', 'ends_at',
  'timezone', 'price_min', 'price_max', 'currency', 'url', 'attraction_id', 'updated_at',
] as const;
const eventIncludes = ['categories', 'images'] as const;
const eventSorts = ['starts_at', 'ends_at', 'price_min', 'price_max', 'title', 'city', 'updated_at'];

const attractionFields = [
  'name', 'description', 'city', 'region', 'website', 'event_count', 'first_starts_at', 'last_ends_at', 'next_starts_at',
  'price_min', 'price_max', 'updated_at',
] as const;
const attractionIncludes = ['events', 'categories'] as const;
const attractionSorts = ['name', 'city', 'event_count', 'first_starts_at', 'last_ends_at', 'price_min', 'price_max'];

const categoryFields = ['slug', 'name'] as const;

function filterVariables(request: RestRequest) {
  const value = (name: string) => request.query.get(name) ?? undefined;
  return { city: value('city'), category: value('category'), startsAfter: value('starts_after'), startsBefore: value('starts_before'), q: value('q') };
}

type Timestamped = { updated_at?: string | null };
type AttractionNode = Timestamped & Record<string, unknown> & { events?: { edges: readonly { node: unknown }[] } };

/**
 * Newest updated_at among the records, for Last-Modified. An attraction's updated_at already
 * covers its events (it is the aggregated view's).
 */
function newest(records: readonly Timestamped[]): Date | null {
  const times = records.map((record) => (record.updated_at ? Date.parse(record.updated_at) : 0)).filter((time) => time > 0);
  return times.length ? new Date(Math.max(...times)) : null;
}

// The operations alias every field to its REST name, so records need no renaming here.
function eventJson(request: RestRequest) {
  return (event: Timestamped & Record<string, unknown>) => onlyRequestedFields(event, request.query, eventIncludes);
}

function attractionJson(request: RestRequest) {
  return ({ events, ...attraction }: AttractionNode) =>
    onlyRequestedFields({ ...attraction, ...(events ? { events: events.edges.map((edge) => edge.node) } : {}) }, request.query, attractionIncludes);
}

/** Categories are `{ id, slug, name }`; their update time only feeds Last-Modified. */
const categoryJson = ({ updated_at: _updatedAt, ...category }: { updated_at: string } & Record<string, unknown>) => category;

const dataVersion = async (request: RestRequest) => (await runOperation(DirectoryVersionDocument, {}, request.context)).directoryVersion;

const directoryRoute = (route: Omit<RestRoute, 'method' | 'cacheSeconds' | 'validator'>): RestRoute => ({
  method: 'GET',
  cacheSeconds: 60,
  validator: dataVersion,
  ...route,
});

const eventProjection = (request: RestRequest) =>
  projectionVariables(request.query, { fields: eventFields, includes: eventIncludes, alwaysSelected: ['updated_at'] });
const attractionProjection = (request: RestRequest) =>
  projectionVariables(request.query, { fields: attractionFields, includes: attractionIncludes, alwaysSelected: ['updated_at'] });

export const directoryRoutes: RestRoute[] = [
  directoryRoute({
    path: '/api/v1/events',
    async handle(request) {
      const { events } = await runOperation(
        DirectoryEventsDocument,
        {
          ...eventProjection(request),
          ...filterVariables(request),
          orderBy: sortParameter(request.query, eventSorts) as EventOrder[] | undefined,
          ...pageArguments(request.query),
        },
        request.context,
      );
      const nodes = events.edges.map((edge) => edge.node);
      return { ...listPage(request.url, events, eventJson(request)), lastModified: newest(nodes) };
    },
  }),
  directoryRoute({
    path: '/api/v1/events/:id',
    async handle(request) {
      const { event } = await runOperation(
        DirectoryEventDocument,
        { ...eventProjection(request), id: request.params['id']! },
        request.context,
      );
      return { status: 200, body: eventJson(request)(event), lastModified: newest([event]) };
    },
  }),
  directoryRoute({
    path: '/api/v1/attractions',
    async handle(request) {
      const { attractions } = await runOperation(
        DirectoryAttractionsDocument,
        {
          ...attractionProjection(request),
          ...filterVariables(request),
          orderBy: sortParameter(request.query, attractionSorts) as AttractionOrder[] | undefined,
          ...pageArguments(request.query),
        },
        request.context,
      );
      const nodes = attractions.edges.map((edge) => edge.node);
      return { ...listPage(request.url, attractions, attractionJson(request)), lastModified: newest(nodes) };
    },
  }),
  directoryRoute({
    path: '/api/v1/attractions/:id',
    async handle(request) {
      const { attraction } = await runOperation(
        DirectoryAttractionDocument,
        { ...attractionProjection(request), id: request.params['id']! },
        request.context,
      );
      return { status: 200, body: attractionJson(request)(attraction), lastModified: newest([attraction]) };
    },
  }),
  directoryRoute({
    path: '/api/v1/categories',
    async handle(request) {
      const { categories } = await runOperation(
        DirectoryCategoriesDocument,
        { ...projectionVariables(request.query, { fields: categoryFields, includes: [] }), ...pageArguments(request.query) },
        request.context,
      );
      const nodes = categories.edges.map((edge) => edge.node);
      return { ...listPage(request.url, categories, categoryJson), lastModified: newest(nodes) };
    },
  }),
  directoryRoute({
    path: '/api/v1/categories/:id_or_slug',
    async handle(request) {
      const { category } = await runOperation(
        DirectoryCategoryDocument,
        { ...projectionVariables(request.query, { fields: categoryFields, includes: [] }), idOrSlug: request.params['id_or_slug']! },
        request.context,
      );
      return { status: 200, body: categoryJson(category), lastModified: newest([category]) };
    },
  }),
];
