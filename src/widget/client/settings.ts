/** The render() options a host page passes, checked and completed with defaults. */

import { decimalText } from '../../shared/decimal.js';

export const themes = ['pumpkin', 'midnight', 'classic'] as const;
export type Theme = (typeof themes)[number];

export const defaultLimit = 10;
const maxLimit = 100;
const defaultDays = 7;
/** The availability operation answers at most 31 days; one more is asked for (see bookingDays). */
const maxDays = 30;
const maxParty = 100;
/** As the directory's availability window: a week of slots. */
const maxWindowMs = 7 * 86_400_000;
const defaultRadiusKm = 25;
/** The directory's largest radius. */
const maxRadiusKm = 500;

/** Where the places are counted: tonight in each event's time zone, or between two instants. */
export type PlacesWindow = 'tonight' | { from: Date; to: Date };

/** Events near the visitor (asked for only when they press Near me), or near a given point. */
export type Near = 'me' | { lat: number; lng: number };

export interface Settings {
  token: string;
  city: string;
  category: string;
  theme: Theme;
  limit: number;
  /** A service id (svc_…): the widget books it instead of listing events. */
  service: string;
  /** How many days of the service's slots the booking view shows. */
  days: number;
  /** A party size: each event shows the places left for it in `window`. Null: no places shown. */
  places: number | null;
  window: PlacesWindow;
  near: Near | null;
  radiusKm: number;
  /** Absolute http(s) URL, or null when none was given (or it was not a web address). */
  attributionLink: string | null;
  /** Where /api/v1/ lives, ending in a slash. Null when neither the script's address nor apiBase tells. */
  apiBase: string | null;
}

/** An absolute http(s) URL, or null: keeps javascript: and other schemes out of hrefs and srcs. */
export function webUrl(value: unknown, base?: string): string | null {
  if (typeof value !== 'string' || value.trim() === '') return null;
  try {
    const url = new URL(value, base);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

function themeOf(value: unknown, warn: (message: string) => void): Theme {
  if (value === undefined || value === null || value === '') return 'pumpkin';
  if ((themes as readonly unknown[]).includes(value)) return value as Theme;
  warn(`theme "${String(value)}" is not one of ${themes.join(', ')}; using pumpkin.`);
  return 'pumpkin';
}

function wholeNumberOf<Fallback extends number | null>(name: string, value: unknown, max: number, fallback: Fallback, warn: (message: string) => void): number | Fallback {
  if (value === undefined || value === null || value === '') return fallback;
  const number = decimal(value);
  if (Number.isInteger(number) && number >= 1 && number <= max) return number;
  warn(`${name} must be a whole number from 1 to ${max}; ${fallback === null ? 'it is left out' : `using ${fallback}`}.`);
  return fallback;
}

/** A number, or one written as text (" -70.9 ": blanks around it are an attribute's, "42.52, -70.9"); NaN for anything else. */
function decimal(value: unknown): number {
  if (typeof value === 'number') return value;
  return typeof value === 'string' && decimalText.test(value.trim()) ? Number(value) : Number.NaN;
}

function decimalOf(name: string, value: unknown, min: number, max: number, fallback: number, warn: (message: string) => void): number {
  if (value === undefined || value === null || value === '') return fallback;
  const number = decimal(value);
  if (Number.isFinite(number) && number >= min && number <= max) return number;
  warn(`${name} must be a number from ${min} to ${max}; using ${fallback}.`);
  return fallback;
}

function windowOf(value: unknown, warn: (message: string) => void): PlacesWindow {
  if (value === undefined || value === null || value === '' || value === 'tonight') return 'tonight';
  const given = (typeof value === 'object' ? value : {}) as Record<string, unknown>;
  const [from, to] = [given['from'], given['to']].map((time) => new Date(typeof time === 'string' ? time : Number.NaN));
  const length = to!.getTime() - from!.getTime();
  if (length > 0 && length <= maxWindowMs) return { from: from!, to: to! };
  warn('window must be "tonight" or { from, to }: ISO timestamps at most 7 days apart, from first; using tonight.');
  return 'tonight';
}

function nearOf(value: unknown, warn: (message: string) => void): Near | null {
  if (value === undefined || value === null || value === '') return null;
  if (value === 'me') return 'me';
  const parts = typeof value === 'string' ? value.split(',') : [(value as Record<string, unknown>)['lat'], (value as Record<string, unknown>)['lng']];
  const [lat, lng] = parts.map(decimal);
  if (parts.length === 2 && Math.abs(lat!) <= 90 && Math.abs(lng!) <= 180) return { lat: lat!, lng: lng! };
  warn('near must be "me", "lat,lng" or { lat, lng } in degrees; events are not sorted by distance.');
  return null;
}

/**
 * The options a container's data attributes give (data-city="Salem", data-places="6",
 * data-from/data-to for the window), for pages that cannot run an inline script's options.
 * render()'s own options win over them.
 */
export function optionsOfElement(element: Element): Record<string, unknown> {
  const { from, to, ...rest } = (element as HTMLElement).dataset ?? {};
  return from || to ? { ...rest, window: { from, to } } : { ...rest };
}

function withTrailingSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}

/**
 * Reads the options leniently: a wrong theme or limit falls back to the default with a console
 * warning, so a typo never leaves the visitor with nothing.
 */
export function readSettings(options: unknown, scriptDirectory: string | null, warn: (message: string) => void): Settings {
  const given = (typeof options === 'object' && options !== null ? options : {}) as Record<string, unknown>;
  const attributionLink = webUrl(given['attributionLink']);
  if (given['attributionLink'] !== undefined && attributionLink === null) {
    warn('attributionLink must be an http(s) URL; the attribution link is left out.');
  }
  const apiBase = webUrl(given['apiBase']) ?? scriptDirectory;
  return {
    token: text(given['token']),
    city: text(given['city']),
    category: text(given['category']),
    theme: themeOf(given['theme'], warn),
    limit: wholeNumberOf('limit', given['limit'], maxLimit, defaultLimit, warn),
    service: text(given['service']),
    days: wholeNumberOf('days', given['days'], maxDays, defaultDays, warn),
    places: wholeNumberOf('places', given['places'], maxParty, null, warn),
    window: windowOf(given['window'], warn),
    near: nearOf(given['near'], warn),
    radiusKm: decimalOf('radius', given['radius'], 1, maxRadiusKm, defaultRadiusKm, warn),
    attributionLink,
    apiBase: apiBase === null ? null : withTrailingSlash(apiBase),
  };
}

/** "haunted-house" → "Haunted house", for headings (the widget makes no extra request for category names). */
export function categoryLabel(slug: string): string {
  const words = slug.replace(/[-_]+/g, ' ').trim();
  return words ? words[0]!.toUpperCase() + words.slice(1) : '';
}
