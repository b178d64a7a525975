import { statusForCode } from '../../shared/errors.js';
import { compareText, ref, type JsonSchema } from './components.js';

/** The error answers every document shares: the standard responses' texts and the problem+json schemas. */

export const rateLimitHeaders = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

const genericProblemText: Record<string, string> = {
  '400': 'A query parameter is malformed, repeated or names something unknown (`invalid_parameter`, `errors` naming it), or the body is not JSON (`invalid_json`).',
  '404': '`not_found`: no such record in this account.',
  '422': '`validation_failed`: `errors` names each field, in the body’s snake_case (`unknown_field` for a key the body may not have).',
};

export interface ResponseText {
  description: string;
  headers?: readonly string[];
}

export const standardResponses = {
  NotModified: { description: 'The representation matches the validator sent (`If-None-Match`, `If-Modified-Since`); no body.', headers: ['ETag', 'Cache-Control'] },
  BadRequest: { description: genericProblemText['400']! },
  Unauthorized: {
    description:
      'No credential, or one that is malformed, unknown, revoked or expired (`unauthenticated`), or a bad request signature (`invalid_signature`, `signature_expired`, `replayed_request`).',
    headers: ['WWW-Authenticate'],
  },
  NotFound: { description: genericProblemText['404']! },
  PayloadTooLarge: { description: '`payload_too_large`: the body is over the size limit.' },
  UnsupportedMediaType: { description: '`unsupported_media_type`: the body is not `application/json`.' },
  UnprocessableContent: { description: genericProblemText['422']! },
  TooManyRequests: { description: '`rate_limited`: over the credential’s per-minute limit.', headers: ['Retry-After', ...rateLimitHeaders] },
  ServiceUnavailable: {
    description: '`service_unavailable`: the database is busy or unreachable; nothing was changed. Retry after `Retry-After` seconds.',
    headers: ['Retry-After'],
  },
} satisfies Record<string, ResponseText>;

export type StandardResponse = keyof typeof standardResponses;
export const standardNames = new Map<ResponseText, StandardResponse>(Object.entries(standardResponses).map(([name, text]) => [text, name as StandardResponse]));

export function problemSchemas(): Record<string, JsonSchema> {
  return {
    Problem: {
      type: 'object',
      description: 'RFC 9457 problem details.',
      required: ['type', 'title', 'status', 'detail', 'code', 'request_id'],
      properties: {
        type: { type: 'string', format: 'uri' },
        title: { type: 'string' },
        status: { type: 'integer' },
        detail: { type: 'string' },
        code: { type: 'string', enum: Object.keys(statusForCode).sort(compareText), description: 'Stable snake_case error code.' },
        request_id: { type: 'string', description: 'The `X-Request-Id` of the request.' },
        errors: { type: 'array', items: ref('schemas', 'FieldError') },
      },
      additionalProperties: false,
    },
    FieldError: {
      type: 'object',
      required: ['field', 'code', 'message'],
      properties: {
        field: { type: 'string', description: 'The query parameter, or the dotted snake_case path in the body (`customer.email`).' },
        code: { type: 'string', examples: ['required', 'invalid', 'unknown_field'] },
        message: { type: 'string' },
      },
      additionalProperties: false,
    },
  };
}
