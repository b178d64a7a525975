/** Injectable time source, so rules that depend on the date (promo bypass, retries) are testable. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

/** A timestamp as JSON carries it (CONTRACT.md): ISO 8601 UTC with `Z`, and no `.000` on whole seconds. */
export const isoTimestamp = (date: Date): string => date.toISOString().replace('.000Z', 'Z');
