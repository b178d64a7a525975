import type { IncomingMessage } from 'node:http';
import { AppError } from '../shared/errors.js';

/** Reads a request body, refusing more than `limit` bytes without buffering the rest. */
/** The refusal of a body its Content-Length declares over `limit` bytes; undefined for any other. */
export function declaredTooLarge(request: IncomingMessage, limit: number): AppError | undefined {
  const declared = Number(request.headers['content-length']);
  return Number.isFinite(declared) && declared > limit ? tooLarge(limit) : undefined;
}

const tooLarge = (limit: number) => new AppError('payload_too_large', `The request body is larger than ${limit} bytes.`);

export async function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  const refusal = declaredTooLarge(request, limit);
  if (refusal) {
    request.resume();
    throw refusal;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of request as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) {
        request.resume();
        throw tooLarge(limit);
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    // The client went away or broke off its body (ECONNRESET "aborted", a timeout): its mistake, not an outage.
    throw new AppError('invalid_request', 'The request body ended before it was complete.');
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}
