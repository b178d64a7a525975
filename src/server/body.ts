import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../shared/errors.js';

/** Whether the client waits for "100 Continue" before it sends its body. */
export const expectsContinue = (request: IncomingMessage) => request.headers.expect?.toLowerCase() === '100-continue';

const tooLarge = (limit: number) => new AppError('payload_too_large', `The request body is larger than ${limit} bytes.`);

/**
 * The request's body, refusing more than `limit` bytes without buffering the rest. A client that
 * sent `Expect: 100-continue` is asked for the body here, once its declared length is known to fit.
 */
export async function readBody(request: IncomingMessage, response: ServerResponse, limit: number): Promise<Buffer> {
  const declared = Number(request.headers['content-length']);
  const waitsToSend = expectsContinue(request);
  if (Number.isFinite(declared) && declared > limit) {
    // A body never asked for never comes, so the connection cannot carry another request; one sent is read and dropped.
    if (waitsToSend) response.shouldKeepAlive = false;
    else request.resume();
    throw tooLarge(limit);
  }
  if (waitsToSend) response.writeContinue();
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
