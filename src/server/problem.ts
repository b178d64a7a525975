import type { ServerResponse } from 'node:http';
import { AppError, titleFor, type ErrorCode, type FieldError } from '../shared/errors.js';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  request_id: string;
  errors?: FieldError[];
}

export function problemFor(error: AppError, requestId: string): Problem {
  return {
    type: `https://hallowgate.dev/problems/${error.code.replaceAll('_', '-')}`,
    title: titleFor(error.status),
    status: error.status,
    detail: error.message,
    code: error.code,
    request_id: requestId,
    ...(error.fieldErrors.length ? { errors: error.fieldErrors } : {}),
  };
}

/** Writes an RFC 9457 problem document; the only way errors leave the HTTP surfaces. */
export function sendProblem(response: ServerResponse, error: AppError, requestId: string): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const body = JSON.stringify(problemFor(error, requestId));
  for (const [name, value] of Object.entries(error.headers)) response.setHeader(name, value);
  response.writeHead(error.status, {
    'content-type': 'application/problem+json',
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}
