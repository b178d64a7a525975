/** Injectable time source, so rules that depend on the date (promo bypass, retries) are testable. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

/** The times the API and the database both hold (years 0001 to 9999, as the DateTime scalar takes them). */
export const earliestTime = Date.parse('0001-01-01T00:00:00.000Z');
export const latestTime = Date.parse('9999-12-31T23:59:59.999Z');

const twoDigits = Array.from({ length: 100 }, (_, value) => String(value).padStart(2, '0'));
const threeDigits = Array.from({ length: 1000 }, (_, value) => String(value).padStart(3, '0'));

/**
 * A timestamp as the API's JSON carries it: ISO 8601 UTC with `Z`, and no `.000` on whole seconds.
 * Every timestamp of every listed record passes here, so it is written from the date's fields: a
 * third of the time `toISOString` takes (which still writes the years outside 1000–9999, signed).
 */
export function isoTimestamp(date: Date): string {
  const year = date.getUTCFullYear();
  if (!(year >= 1000 && year <= 9999)) {
    const iso = date.toISOString();
    return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
  }
  const seconds = `${year}-${twoDigits[date.getUTCMonth() + 1]}-${twoDigits[date.getUTCDate()]}T${twoDigits[date.getUTCHours()]}:${twoDigits[date.getUTCMinutes()]}:${twoDigits[date.getUTCSeconds()]}`;
  const milliseconds = date.getUTCMilliseconds();
  return milliseconds === 0 ? `${seconds}Z` : `${seconds}.${threeDigits[milliseconds]}Z`;
}
