import type { z } from 'zod';
import { AppError, type FieldError } from './errors.js';

/** zod issues as field errors; paths use the GraphQL names (REST renames them to snake_case). */
export function fieldErrorsOf(error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    field: issue.path.join('.') || '(body)',
    code: issue.code === 'invalid_type' && issue.message.includes('received undefined') ? 'required' : issue.code,
    message: issue.message,
  }));
}

/** Parses input with a zod schema, or throws 422 validation_failed listing every bad field. */
export function parseInput<Schema extends z.ZodType>(schema: Schema, input: unknown): z.output<Schema> {
  const result = schema.safeParse(input);
  if (!result.success) throw new AppError('validation_failed', 'The request has invalid fields.', { fieldErrors: fieldErrorsOf(result.error) });
  return result.data;
}
