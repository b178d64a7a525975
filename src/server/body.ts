import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError, echoed } from '../shared/errors.js';

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
  const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  if (body.length > 0) checkEncoding(request, body);
  return body;
}

const jsonMediaType = /^\s*application\/([a-z.+-]*\+)?json\s*(;|$)/i;
const charsetParameter = /;\s*charset\s*=\s*"?([^";\s]*)/i;

/**
 * Bodies are read as they come, uncompressed and in UTF-8 (what JSON is, RFC 8259): another
 * Content-Encoding or charset is refused with 415 rather than misread, and a JSON body that is not
 * UTF-8 with 400 rather than stored with U+FFFD in place of what it held.
 */
function checkEncoding(request: IncomingMessage, body: Buffer): void {
  const coding = request.headers['content-encoding']?.trim().toLowerCase();
  if (coding && coding !== 'identity') {
    throw new AppError('unsupported_media_type', `Content-Encoding ${echoed(coding)} is not accepted; send the body uncompressed.`);
  }
  const contentType = request.headers['content-type'] ?? '';
  const charset = charsetParameter.exec(contentType)?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new AppError('unsupported_media_type', `charset=${echoed(charset)} is not accepted; send the body in UTF-8.`);
  }
  if (jsonMediaType.test(contentType) && !isUtf8(body)) throw new AppError('invalid_json', 'The body is not valid UTF-8.');
}
