import type { Socket } from 'node:net';
import type { ServerResponse } from 'node:http';

const streamedContentType = /^\s*(text\/event-stream|multipart\/)/i;

/** Whether an answer of this media type is a stream (SSE, multipart): sent as it comes, ended by its client leaving. */
export const isStreamedContentType = (contentType: string): boolean => streamedContentType.test(contentType);

/**
 * Whether the client has left: the response closed, or (an answer to a pipelined request, still
 * waiting for the ones before it, has no socket and hears nothing) its connection did.
 */
const clientGone = (response: ServerResponse, connection: Socket) => response.destroyed || connection.destroyed;

/** Copies a fetch Response (from Yoga, or a REST event stream) onto the Node response, streaming SSE bodies as they come. */
export async function writeFetchResponse(response: ServerResponse, fetchResponse: Response): Promise<void> {
  const connection = response.req.socket;
  // The client left while the answer was being made: its 'close' has been emitted already, so a
  // stream (a subscription, with its place in the key's quota) is ended here or never.
  if (clientGone(response, connection)) {
    await fetchResponse.body?.cancel().catch(() => undefined);
    return;
  }
  response.statusCode = fetchResponse.status;
  fetchResponse.headers.forEach((value, name) => response.setHeader(name, value));
  if (!fetchResponse.body) {
    response.end();
    return;
  }
  // A whole answer goes out in one write with its length; only event streams are streamed.
  if (!isStreamedContentType(fetchResponse.headers.get('content-type') ?? '')) {
    const payload = Buffer.from(await fetchResponse.arrayBuffer());
    response.setHeader('content-length', payload.length);
    response.end(payload);
    return;
  }
  response.flushHeaders();
  const reader = fetchResponse.body.getReader();
  const cancel = () => void reader.cancel().catch(() => undefined);
  response.on('close', cancel);
  connection.on('close', cancel);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      // A client that reads slowly holds its stream back, not the server's memory: the next event is
      // read once this one is out (a booking-event stream reads the log from where it stopped).
      if (!response.write(value)) await drained(response, connection);
    }
  } finally {
    connection.off('close', cancel);
  }
  response.end();
}

/** Resolves once what was written has gone out, or the client has left. */
function drained(response: ServerResponse, connection: Socket): Promise<void> {
  if (clientGone(response, connection)) return Promise.resolve();
  return new Promise((resolve) => {
    const settle = () => {
      response.off('drain', settle);
      response.off('close', settle);
      connection.off('close', settle);
      resolve();
    };
    response.on('drain', settle);
    response.on('close', settle);
    connection.on('close', settle);
  });
}
