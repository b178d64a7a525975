/** Injectable time source, so rules that depend on the date (promo bypass, retries) are testable. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();
