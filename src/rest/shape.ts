import { AppError } from '../shared/errors.js';

const toSnake = (key: string) => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
const toCamel = (key: string) => key.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());

function renameKeys(value: unknown, rename: (key: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => renameKeys(item, rename));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, entry]) => [rename(key), renameKeys(entry, rename)]));
}

/** GraphQL field names to REST JSON names: startTime → start_time, deeply. */
export function snakeCaseKeys<T>(value: T): unknown {
  return renameKeys(value, toSnake);
}

/** REST JSON names to GraphQL input names: start_time → startTime, deeply. */
export function camelCaseKeys(value: unknown): unknown {
  return renameKeys(value, toCamel);
}

/** A dotted GraphQL field path as REST names it: customer.email, service_id. */
export function restFieldName(path: string): string {
  return path.split('.').map(toSnake).join('.');
}

/** The JSON body of a write as a GraphQL input object; anything but an object is 422. */
export function bodyAsInput(body: unknown): Record<string, unknown> {
  if (body === undefined) return {};
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new AppError('validation_failed', 'The body must be a JSON object.', {
      fieldErrors: [{ field: '(body)', code: 'invalid_type', message: 'Send a JSON object.' }],
    });
  }
  return camelCaseKeys(body) as Record<string, unknown>;
}
