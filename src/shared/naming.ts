/**
 * The one mapping between the two ways names are written: camelCase in GraphQL, TypeScript and
 * Prisma's client, snake_case on the wire of REST and webhooks (`startTime` ↔ `start_time`).
 * REST input and output (src/rest/document-transform.ts aliases the operations' fields with it),
 * field errors, the OpenAPI documents and the booking representation in webhooks all name fields
 * through it, so a field is renamed in one place: its GraphQL name. Prisma's `@map` column names
 * follow the same rule (test/conformance/naming.test.ts holds them to it).
 */

/** `startTime` → `start_time`. */
export const snakeCaseOf = (name: string): string => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** `start_time` → `startTime`; the inverse of snakeCaseOf. */
export const camelCaseOf = (name: string): string => name.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());

/** A dotted path of camelCase names (`customer.emailAddress`) in snake_case (`customer.email_address`). */
export const snakeCasePathOf = (path: string): string => path.split('.').map(snakeCaseOf).join('.');

/** `startTime` → `start_time`, as a type. */
export type SnakeCase<Name extends string> = Name extends `${infer Head}${infer Tail}` ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${SnakeCase<Tail>}` : Name;

/** An object with its keys, at every depth, in snake_case. */
export type SnakeCased<Value> = Value extends readonly (infer Item)[]
  ? SnakeCased<Item>[]
  : Value extends Record<string, unknown>
    ? { [Key in keyof Value & string as SnakeCase<Key>]: SnakeCased<Value[Key]> }
    : Value;

/** A JSON value with its object keys, at every depth, in snake_case; key order is kept. */
export function snakeCased<Value>(value: Value): SnakeCased<Value> {
  if (Array.isArray(value)) return value.map(snakeCased) as SnakeCased<Value>;
  if (value === null || typeof value !== 'object') return value as SnakeCased<Value>;
  return Object.fromEntries(Object.entries(value).map(([key, entry]) => [snakeCaseOf(key), snakeCased(entry)])) as SnakeCased<Value>;
}
