import { AppError } from '../shared/errors.js';

function invalid(parameter: string, message: string): AppError {
  return new AppError('invalid_parameter', message, { fieldErrors: [{ field: parameter, code: 'invalid', message }] });
}

/** A comma-separated parameter whose every item must be one of `allowed`; 400 names the parameter otherwise. */
export function listParameter(query: URLSearchParams, parameter: string, allowed: readonly string[]): string[] | undefined {
  const raw = query.get(parameter);
  if (raw === null) return undefined;
  const items = raw.split(',').map((item) => item.trim()).filter(Boolean);
  const unknown = items.filter((item) => !allowed.includes(item));
  if (unknown.length) throw invalid(parameter, `${parameter} has unknown names: ${unknown.join(', ')}. Allowed: ${allowed.join(', ')}.`);
  return items;
}

const capitalized = (text: string) => text[0]!.toUpperCase() + text.slice(1);
const camel = (snake: string) => snake.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());

type CamelCase<Text extends string> = Text extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : Text;

/** The variables of a projection fragment: `$withStartsAt` for `starts_at`, `$includeImages` for `images`. */
export type Projection<Field extends string, Include extends string> = {
  [Key in Field as `with${Capitalize<CamelCase<Key>>}`]: boolean;
} & { [Key in Include as `include${Capitalize<Key>}`]: boolean };

/**
 * `fields` and `include` as the `$with…` and `$include…` variables of a projection fragment:
 * the REST request decides the GraphQL selection set. `id` is always selected.
 */
export function projectionVariables<Field extends string, Include extends string = never>(
  query: URLSearchParams,
  options: { fields: readonly Field[]; includes: readonly Include[]; alwaysSelected?: readonly Field[] },
): Projection<Field, Include> {
  const requested = listParameter(query, 'fields', ['id', ...options.fields]);
  const included: string[] = listParameter(query, 'include', options.includes) ?? [];
  const variables: Record<string, boolean> = {};
  for (const field of options.fields) {
    variables[`with${capitalized(camel(field))}`] = !requested || requested.includes(field) || Boolean(options.alwaysSelected?.includes(field));
  }
  for (const relation of options.includes) variables[`include${capitalized(relation)}`] = included.includes(relation);
  return variables as Projection<Field, Include>;
}

/** Drops the keys a `fields` list did not ask for (those selected only to compute headers). */
export function onlyRequestedFields<T extends Record<string, unknown>>(record: T, query: URLSearchParams, includes: readonly string[]): Partial<T> {
  const requested = query.get('fields');
  if (requested === null) return record;
  const keep = new Set(['id', ...requested.split(',').map((item) => item.trim()), ...includes]);
  return Object.fromEntries(Object.entries(record).filter(([key]) => keep.has(key))) as Partial<T>;
}

/** `sort=-price_min,title` as GraphQL order inputs; unknown fields give 400. */
export function sortParameter(query: URLSearchParams, allowed: readonly string[]): { field: string; direction: 'ASC' | 'DESC' }[] | undefined {
  const raw = query.get('sort');
  if (raw === null) return undefined;
  const keys = raw.split(',').map((item) => item.trim()).filter(Boolean);
  return keys.map((key) => {
    const descending = key.startsWith('-');
    const field = descending ? key.slice(1) : key;
    if (!allowed.includes(field)) throw invalid('sort', `sort cannot use "${field}". Allowed: ${allowed.join(', ')}.`);
    return { field: field.toUpperCase(), direction: descending ? 'DESC' : 'ASC' };
  });
}
