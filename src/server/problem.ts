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
  const problem = problemFor(error, requestId);
  const body = JSON.stringify(problem);
  for (const [name, value] of Object.entries(error.headers)) response.setHeader(name, value);
  // The status line says what the title says (RFC 9110's names: 422 Unprocessable Content, not Node's older Entity).
  response.writeHead(error.status, problem.title, {
    'content-type': 'application/problem+json',
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}
