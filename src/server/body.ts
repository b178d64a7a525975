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

/** A JSON media type: application/json, or one of its +json kinds. */
export const jsonMediaType = /^application\/([a-z.+-]*\+)?json\s*(;|$)/i;
const formMediaType = /^application\/x-www-form-urlencoded\s*(;|$)/i;
const charsetParameters = /;\s*charset\s*=\s*"?([^";\s]*)/gi;

/** Whether every percent-encoded run of a form body decodes to UTF-8 (URLSearchParams would put U+FFFD in its place). */
function decodesAsUtf8(form: string): boolean {
  try {
    decodeURIComponent(form.replaceAll('+', ' '));
    return true;
  } catch {
    return false;
  }
}

/**
 * Bodies are read as they come, uncompressed and in UTF-8 (what JSON is, RFC 8259): another
 * Content-Encoding or charset is refused with 415 rather than misread, and a body that is not UTF-8
 * with 400 rather than stored with U+FFFD in place of what it held.
 */
function checkEncoding(request: IncomingMessage, body: Buffer): void {
  const coding = request.headers['content-encoding']?.trim().toLowerCase();
  if (coding && coding !== 'identity') {
    throw new AppError('unsupported_media_type', `Content-Encoding ${echoed(coding)} is not accepted; send the body uncompressed.`);
  }
  const contentType = request.headers['content-type'] ?? '';
  for (const [, charset = ''] of contentType.matchAll(charsetParameters)) {
    if (!['utf-8', 'utf8'].includes(charset.toLowerCase())) throw new AppError('unsupported_media_type', `charset=${echoed(charset)} is not accepted; send the body in UTF-8.`);
  }
  const json = jsonMediaType.test(contentType);
  if (!isUtf8(body) || (formMediaType.test(contentType) && !decodesAsUtf8(body.toString('latin1')))) {
    throw new AppError(json ? 'invalid_json' : 'invalid_request', 'The body is not valid UTF-8.');
  }
}
