/** Injectable time source, so rules that depend on the date (promo bypass, retries) are testable. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

/** A timestamp as the API's JSON carries it: ISO 8601 UTC with `Z`, and no `.000` on whole seconds. */
export function isoTimestamp(date: Date): string {
  const iso = date.toISOString();
  // Every timestamp of every listed record passes here: a suffix check, not a search.
  return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
}
