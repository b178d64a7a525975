import type { ServerResponse } from 'node:http';

const streamedContentType = /^\s*(text\/event-stream|multipart\/)/i;

/** Copies a fetch Response (from Yoga, or a REST event stream) onto the Node response, streaming SSE bodies as they come. */
export async function writeFetchResponse(response: ServerResponse, fetchResponse: Response): Promise<void> {
  response.statusCode = fetchResponse.status;
  fetchResponse.headers.forEach((value, name) => response.setHeader(name, value));
  if (!fetchResponse.body) {
    response.end();
    return;
  }
  // A whole answer goes out in one write with its length; only event streams are streamed.
  if (!streamedContentType.test(fetchResponse.headers.get('content-type') ?? '')) {
    const payload = Buffer.from(await fetchResponse.arrayBuffer());
    response.setHeader('content-length', payload.length);
    response.end(payload);
    return;
  }
  response.flushHeaders();
  const reader = fetchResponse.body.getReader();
  response.on('close', () => void reader.cancel().catch(() => undefined));
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    response.write(value);
  }
  response.end();
}
