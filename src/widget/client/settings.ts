/** The render() options a host page passes, checked and completed with defaults. */

export const themes = ['pumpkin', 'midnight', 'classic'] as const;
export type Theme = (typeof themes)[number];

export const defaultLimit = 10;
const maxLimit = 100;
const defaultDays = 7;
/** The availability operation answers at most 31 days; one more is asked for (see bookingDays). */
const maxDays = 30;

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

function wholeNumberOf(name: string, value: unknown, max: number, fallback: number, warn: (message: string) => void): number {
  if (value === undefined || value === null || value === '') return fallback;
  const number = Number(value);
  if (Number.isInteger(number) && number >= 1 && number <= max) return number;
  warn(`${name} must be a whole number from 1 to ${max}; using ${fallback}.`);
  return fallback;
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
    attributionLink,
    apiBase: apiBase === null ? null : withTrailingSlash(apiBase),
  };
}

/** "haunted-house" → "Haunted house", for headings (the widget makes no extra request for category names). */
export function categoryLabel(slug: string): string {
  const words = slug.replace(/[-_]+/g, ' ').trim();
  return words ? words[0]!.toUpperCase() + words.slice(1) : '';
}
