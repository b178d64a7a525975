import { builder } from './builder.js';

/**
 * A GraphQL enum whose names are the stored words in UPPER_CASE (`CONFIRMED` for `confirmed`),
 * the GraphQL convention; resolvers and the database keep the lowercase words, and REST shows them.
 */
export function upperCaseEnum<const Value extends string>(name: string, values: readonly Value[], description?: string) {
  const entries = Object.fromEntries(values.map((value) => [value.toUpperCase(), { value }])) as { [Key in Value as Uppercase<Key>]: { value: Key } };
  return builder.enumType(name, { values: entries, ...(description ? { description } : {}) });
}
