import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { AppError } from '../shared/errors.js';
import { problemFor } from './problem.js';

/** A request line at least this long is what made the head too large: its target, as URI length limits go. */
const longestTargetBytes = 8_192;

/** Whether the bytes Node's parser stopped in open with a request line of at least longestTargetBytes. */
function opensWithLongRequestLine(packet: Buffer | undefined): boolean {
  if (!packet || !/^[A-Z]+ /.test(packet.subarray(0, 16).toString('latin1'))) return false;
  const lineEnd = packet.indexOf('\r\n');
  return (lineEnd === -1 ? packet.length : lineEnd) >= longestTargetBytes;
}

/** The refusal of a request Node could not read as HTTP, by the code of Node's parser error. */
function refusalOf(error: NodeJS.ErrnoException & { rawPacket?: Buffer }): AppError {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return new AppError('request_timeout', 'The request did not arrive whole in time.');
  if (error.code === 'HPE_HEADER_OVERFLOW' && opensWithLongRequestLine(error.rawPacket)) {
    return new AppError('uri_too_long', `The request target is over ${longestTargetBytes} bytes; send what does not fit in a query string in a POST body.`);
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') return new AppError('headers_too_large', 'The request headers are over the size limit.');
  return new AppError('invalid_request', 'The request is not valid HTTP/1.1.');
}

/**
 * Answers a request Node's HTTP parser refused (malformed, headers too large, not whole in time)
 * with a problem document, as every other refusal is answered, instead of Node's bare status line;
 * then closes the connection, which is in no state to carry another request. A CONNECT too.
 */
export function answerClientErrors(server: Server): void {
  // Each connection's responses not yet finished (pipelined requests queue theirs): a refusal written
  // while one of them is being sent would land inside it.
  const unfinished = new WeakMap<Duplex, Set<ServerResponse>>();
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    let responses = unfinished.get(request.socket);
    if (!responses) unfinished.set(request.socket, (responses = new Set()));
    responses.add(response);
    response.once('close', () => responses.delete(response));
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const sending = [...(unfinished.get(socket) ?? [])].some((response) => response.headersSent);
    if (error.code === 'ECONNRESET' || !socket.writable || sending) {
      socket.destroy();
      return;
    }
    refuseOnSocket(socket, refusalOf(error));
  });
  // Node closes a CONNECT without a word when nothing listens for it: it is refused as any other method is.
  server.on('connect', (_request: IncomingMessage, socket: Duplex) =>
    refuseOnSocket(
      socket,
      new AppError('method_not_allowed', 'CONNECT is not served here: this server is no proxy.', { headers: { allow: 'GET, HEAD, POST, PATCH, DELETE, OPTIONS' } }),
    ),
  );
}

/**
 * Answers on a connection no response object owns (a request Node could not read, a CONNECT, an
 * upgrade refused) with a problem document, then closes it from this side once written, whether or
 * not the client closes its own (a half-open connection would otherwise outlive the request and
 * hold up the server's close).
 */
export function refuseOnSocket(socket: Duplex, refusal: AppError): void {
  const problem = problemFor(refusal, `req_${randomUUID().replaceAll('-', '')}`);
  const body = JSON.stringify(problem);
  const headers = Object.entries(refusal.headers).map(([name, value]) => `${name}: ${value}\r\n`);
  const answer = `HTTP/1.1 ${problem.status} ${problem.title}\r\ncontent-type: application/problem+json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${headers.join('')}connection: close\r\n\r\n${body}`;
  socket.end(answer, () => socket.destroy());
}

/**
 * Requests with an `Expect` header reach the request handler like any other (Node would answer them
 * by itself: a bare 417, or "100 Continue" before any check): the handler refuses an expectation it
 * cannot meet, and a body is continued only when it is read, so one declared over the limit is
 * refused before the client sends it.
 */
export function handleExpectations(server: Server): void {
  const handOn = (request: IncomingMessage, response: ServerResponse) => server.emit('request', request, response);
  server.on('checkContinue', handOn);
  server.on('checkExpectation', handOn);
}
