import type { z } from 'zod';
import { validationFailed, type FieldError } from './errors.js';

/**
 * The documented code of a zod issue: `required`, `invalid_type`, `too_short`/`too_long` (text),
 * `too_few`/`too_many` (lists), `out_of_range` (numbers), a custom rule's own `params.code`, else `invalid`.
 */
function fieldErrorCode(issue: z.core.$ZodIssue, input: unknown): string {
  let value: unknown = input;
  for (const key of issue.path) value = (value as Record<PropertyKey, unknown> | undefined)?.[key];
  if (value === undefined || value === null) return 'required';
  switch (issue.code) {
    case 'invalid_type':
      return 'invalid_type';
    case 'too_small':
    case 'too_big': {
      const short = issue.code === 'too_small';
      if (issue.origin === 'string') return short ? 'too_short' : 'too_long';
      if (issue.origin === 'array' || issue.origin === 'set') return short ? 'too_few' : 'too_many';
      return 'out_of_range';
    }
    case 'custom':
      return typeof issue.params?.['code'] === 'string' ? issue.params['code'] : 'invalid';
    default:
      return 'invalid';
  }
}

/** A GraphQL input with its explicit nulls left out: null for an optional field means "not given", as leaving it out does. */
function withoutNulls(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof Date) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, entry]) => entry !== null)
      .map(([key, entry]) => [key, withoutNulls(entry)]),
  );
}

/** Checks `input` against `schema`: its parsed value, or one field error per problem, paths in GraphQL names (`customer.email`, `allowedOrigins.0`). */
export function checkInput<Schema extends z.ZodType>(schema: Schema, input: unknown): { success: true; data: z.output<Schema> } | { success: false; fieldErrors: FieldError[] } {
  const given = withoutNulls(input);
  const result = schema.safeParse(given);
  if (result.success) return { success: true, data: result.data };
  const fieldErrors: FieldError[] = result.error.issues.map((issue) => ({
    field: issue.path.join('.') || '(body)',
    code: fieldErrorCode(issue, given),
    message: issue.message,
  }));
  return { success: false, fieldErrors };
}

/** Parses `input` or throws 422 validation_failed with one field error per problem. */
export function parseInput<Schema extends z.ZodType>(schema: Schema, input: unknown): z.output<Schema> {
  const result = checkInput(schema, input);
  if (result.success) return result.data;
  throw validationFailed(result.fieldErrors);
}
