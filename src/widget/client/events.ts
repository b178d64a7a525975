import { callApi, isObject, numberOrNull, stringOr, type Wording } from './api.js';
import type { Settings } from './settings.js';
import { webUrl } from './settings.js';

/** The part of a directory event (as `/api/v1/events` answers it, snake_case) that the widget shows. */
export interface WidgetEvent {
  id: string;
  title: string;
  city: string;
  venue: string;
  startsAt: string;
  endsAt: string;
  timezone: string;
  priceMin: number | null;
  priceMax: number | null;
  currency: string;
  url: string | null;
  attractionId: string;
  /** Kilometres from the point the list was searched near; null without one. */
  distanceKm: number | null;
  image: { url: string; width: number | null; height: number | null; alt: string } | null;
}

export type LoadResult = { kind: 'events'; events: WidgetEvent[] } | { kind: 'error'; message: string; retry: boolean };

const requestedFields = 'title,city,venue,starts_at,ends_at,timezone,price_min,price_max,currency,url,attraction_id';

function firstImage(images: unknown): WidgetEvent['image'] {
  const image = Array.isArray(images) ? images.find((item) => isObject(item) && webUrl(item['url'])) : undefined;
  if (!isObject(image)) return null;
  return { url: webUrl(image['url'])!, width: numberOrNull(image['width']), height: numberOrNull(image['height']), alt: stringOr(image['alt']) };
}

/** Only well-formed records are shown; a malformed one is skipped rather than breaking the list. */
function toEvent(record: unknown): WidgetEvent | null {
  if (!isObject(record) || typeof record['title'] !== 'string' || typeof record['starts_at'] !== 'string') return null;
  return {
    id: stringOr(record['id']),
    title: record['title'],
    city: stringOr(record['city']),
    venue: stringOr(record['venue']),
    startsAt: record['starts_at'],
    endsAt: stringOr(record['ends_at']),
    timezone: stringOr(record['timezone'], 'UTC'),
    priceMin: numberOrNull(record['price_min']),
    priceMax: numberOrNull(record['price_max']),
    currency: stringOr(record['currency'], 'USD'),
    url: webUrl(record['url']),
    attractionId: stringOr(record['attraction_id']),
    distanceKm: numberOrNull(record['distance_km']),
    image: firstImage(record['images']),
  };
}

/** The list's address: near `point` (nearest first, within the radius) when there is one. */
export function eventsUrl(settings: Settings, apiBase: string, today: Date, point: { lat: number; lng: number } | null): string {
  const url = new URL('api/v1/events', apiBase);
  const query = url.searchParams;
  if (settings.city) query.set('city', settings.city);
  if (settings.category) query.set('category', settings.category);
  // A whole UTC day keeps the URL stable all day, so browsers and the API's ETags can reuse answers.
  query.set('starts_after', today.toISOString().slice(0, 10));
  if (point) {
    query.set('lat', String(point.lat));
    query.set('lng', String(point.lng));
    query.set('radius', String(settings.radiusKm));
  }
  query.set('sort', point ? 'distance' : 'starts_at');
  query.set('limit', String(settings.limit));
  query.set('include', 'images');
  query.set('fields', point ? `${requestedFields},distance_km` : requestedFields);
  return url.href;
}

const wording: Wording = { widget: 'events widget', task: 'show events', allowed: 'read events', failed: 'Events could not be loaded', service: 'events service' };

/** Fetches the events; never rejects. `signal` cancels a superseded load (another render() on the same container), which resolves to null. */
export async function loadEvents(url: string, token: string, signal: AbortSignal, logError: (message: string) => void): Promise<LoadResult | null> {
  const answer = await callApi({ url, token, signal }, wording, logError);
  if (!answer) return null;
  if (answer.kind === 'problem') return { kind: 'error', message: answer.message, retry: answer.retry };
  const data = answer.body['data'];
  if (!Array.isArray(data)) {
    logError(`GET ${url} answered something other than an event list`);
    return { kind: 'error', message: 'Events could not be loaded right now.', retry: true };
  }
  return { kind: 'events', events: data.map(toEvent).filter((event): event is WidgetEvent => event !== null) };
}
