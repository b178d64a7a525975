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
  image: { url: string; width: number | null; height: number | null; alt: string } | null;
}

export type LoadResult = { kind: 'events'; events: WidgetEvent[] } | { kind: 'error'; message: string; retry: boolean };

const requestedFields = 'title,city,venue,starts_at,ends_at,timezone,price_min,price_max,currency,url';
const timeoutMs = 15_000;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null;
const stringOr = (value: unknown, fallback = ''): string => (typeof value === 'string' ? value : fallback);
const numberOrNull = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

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
    image: firstImage(record['images']),
  };
}

export function eventsUrl(settings: Settings, apiBase: string, today: Date): string {
  const url = new URL('api/v1/events', apiBase);
  const query = url.searchParams;
  if (settings.city) query.set('city', settings.city);
  if (settings.category) query.set('category', settings.category);
  // A whole UTC day keeps the URL stable all day, so browsers and the API's ETags can reuse answers.
  query.set('starts_after', today.toISOString().slice(0, 10));
  query.set('sort', 'starts_at');
  query.set('limit', String(settings.limit));
  query.set('include', 'images');
  query.set('fields', requestedFields);
  return url.href;
}

/** What the visitor reads; the site owner gets the technical detail in the console. */
function messageForProblem(status: number, code: string, detail: string): { message: string; retry: boolean } {
  if (status === 401) return { message: 'This events widget has an invalid token, so it cannot show events.', retry: false };
  if (code === 'origin_not_allowed') return { message: `This widget token is not allowed on ${location.origin}, so it cannot show events here.`, retry: false };
  if (status === 403) return { message: 'This events widget is not allowed to read events.', retry: false };
  if (status === 400) return { message: `This events widget is set up wrongly${detail ? `: ${detail}` : '.'}`, retry: false };
  if (status === 429) return { message: 'Too many requests right now. Please try again in a minute.', retry: true };
  return { message: 'Events could not be loaded right now.', retry: true };
}

async function problemOf(response: Response): Promise<{ code: string; detail: string; requestId: string }> {
  const body: unknown = await response.json().catch(() => null);
  const problem = isObject(body) ? body : {};
  return { code: stringOr(problem['code']), detail: stringOr(problem['detail']), requestId: stringOr(problem['request_id']) };
}

/**
 * Fetches the events; never rejects. `signal` cancels a superseded load (another render() on the
 * same container), which resolves to null.
 */
export async function loadEvents(url: string, token: string, signal: AbortSignal, logError: (message: string) => void): Promise<LoadResult | null> {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  const onCancel = () => timeout.abort();
  signal.addEventListener('abort', onCancel);
  try {
    const response = await fetch(url, {
      headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' },
      credentials: 'omit',
      signal: timeout.signal,
    });
    if (!response.ok) {
      const problem = await problemOf(response);
      logError(`GET ${url} answered ${response.status} ${problem.code}: ${problem.detail} (request ${problem.requestId || 'unknown'})`);
      return { kind: 'error', ...messageForProblem(response.status, problem.code, problem.detail) };
    }
    const body: unknown = await response.json();
    if (!isObject(body) || !Array.isArray(body['data'])) throw new Error('the answer is not an event list');
    const events = body['data'].map(toEvent).filter((event): event is WidgetEvent => event !== null);
    return { kind: 'events', events };
  } catch (error) {
    if (signal.aborted) return null;
    if (timeout.signal.aborted) {
      logError(`GET ${url} did not answer within ${timeoutMs / 1000} s`);
      return { kind: 'error', message: 'The events service is taking too long to answer.', retry: true };
    }
    // Browsers hide why a cross-origin fetch failed: it may be the network, or a site the token does not allow.
    logError(`GET ${url} failed (${String(error)}): check the network, and that this page's origin is in the widget token's allowed origins`);
    return { kind: 'error', message: 'Events could not be loaded. Check your connection and try again.', retry: true };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onCancel);
  }
}
