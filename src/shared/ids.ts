import { randomBytes } from 'node:crypto';

/** Prefixes name the type of every public id (`bk_…`, `svc_…`), the same in REST and GraphQL. */
export const idPrefixes = {
  account: 'acct',
  apiKey: 'key',
  widgetToken: 'wt',
  booking: 'bk',
  service: 'svc',
  event: 'ev',
  attraction: 'at',
  category: 'cat',
  image: 'img',
  webhookEndpoint: 'we',
  bookingEvent: 'msg',
  webhookDelivery: 'whd',
  webhookAttempt: 'wha',
  alertRule: 'alr',
  usageAlert: 'ual',
  hold: 'hold',
  waitlistEntry: 'wle',
} as const;

export type IdKind = keyof typeof idPrefixes;

const alphabet = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Random base62 text; 22 characters carry about 131 bits. */
export function randomToken(length = 22): string {
  const bytes = randomBytes(length * 2);
  let out = '';
  for (let i = 0; out.length < length && i < bytes.length; i++) {
    const byte = bytes[i]!;
    // 248 = 4 * 62: rejecting the rest keeps every character equally likely.
    if (byte < 248) out += alphabet[byte % 62];
  }
  return out.length === length ? out : out + randomToken(length - out.length);
}

export function newId(kind: IdKind): string {
  return `${idPrefixes[kind]}_${randomToken()}`;
}

/** A prefix, an underscore and a body of letters, digits and underscores (seeded categories use slugs). */
const idShape = /^([a-z]+)_\w{1,64}$/;

/** The kind an id names through its prefix; undefined for text that is not an id of ours. */
export function idKindOf(id: string): IdKind | undefined {
  const prefix = idShape.exec(id)?.[1];
  return (Object.keys(idPrefixes) as IdKind[]).find((kind) => idPrefixes[kind] === prefix);
}
