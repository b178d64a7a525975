import { GraphQLError, Kind } from 'graphql';
import { isoTimestamp } from '../shared/clock.js';
import { builder } from './builder.js';

// Years 0001–9999 only: PostgreSQL has no year 0000 (JavaScript reads it as 1 BC), and four digits keep
// every date inside what both PostgreSQL and JavaScript's Date can hold.
// Exported for the OpenAPI documents, which state the same patterns.
export const isoUtc = /^(?!0000)\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;
export const isoDate = /^(?!0000)\d{4}-\d{2}-\d{2}$/;

function badValue(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'invalid_parameter' } });
}

/** Parses `YYYY-MM-DDTHH:MM:SS(.sss)Z`, rejecting offsets and impossible dates such as Feb 30. */
export function parseUtcTimestamp(value: string): Date | null {
  if (!isoUtc.test(value)) return null;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return null;
  return date.toISOString().slice(0, 19) === value.slice(0, 19) ? date : null;
}

/** Parses `YYYY-MM-DD` as the start of that UTC day, rejecting impossible dates. */
export function parseIsoDate(value: string): Date | null {
  if (!isoDate.test(value)) return null;
  const date = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) return null;
  return date.toISOString().slice(0, 10) === value ? date : null;
}

builder.scalarType('DateTime', {
  description: 'An ISO 8601 timestamp in UTC with a trailing Z, for example 2026-10-31T19:00:00Z.',
  serialize: (value) => isoTimestamp(value instanceof Date ? value : new Date(String(value))),
  parseValue: (value) => {
    const date = typeof value === 'string' ? parseUtcTimestamp(value) : null;
    if (!date) throw badValue(`DateTime must be an ISO 8601 UTC timestamp ending in Z; got ${JSON.stringify(value)}.`);
    return date;
  },
  parseLiteral: (ast) => {
    const date = ast.kind === Kind.STRING ? parseUtcTimestamp(ast.value) : null;
    if (!date) throw badValue('DateTime must be an ISO 8601 UTC timestamp ending in Z.');
    return date;
  },
});

builder.scalarType('Date', {
  description: 'A calendar date, YYYY-MM-DD.',
  serialize: (value) => (value instanceof Date ? value.toISOString().slice(0, 10) : String(value)),
  parseValue: (value) => {
    const date = typeof value === 'string' ? parseIsoDate(value) : null;
    if (!date) throw badValue(`Date must be YYYY-MM-DD; got ${JSON.stringify(value)}.`);
    return date;
  },
  parseLiteral: (ast) => {
    const date = ast.kind === Kind.STRING ? parseIsoDate(ast.value) : null;
    if (!date) throw badValue('Date must be YYYY-MM-DD.');
    return date;
  },
});

builder.scalarType('JSON', {
  description: 'Arbitrary JSON.',
  serialize: (value) => value,
  parseValue: (value) => value,
});
