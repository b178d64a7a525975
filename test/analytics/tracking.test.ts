import { createServer, request as httpRequest, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UsageEntry, UsageRecorder } from '../../src/analytics/recorder.js';
import { trackResponse } from '../../src/analytics/tracking.js';

/** A server whose every response is tracked, answering or holding each request as the test says. */
let server: ReturnType<typeof createServer>;
let url: string;
const recorded: UsageEntry[] = [];
const held: ServerResponse[] = [];
const recorder: UsageRecorder = { record: (entry) => void recorded.push(entry), flush: async () => undefined, start: () => undefined, stop: async () => undefined };

beforeAll(async () => {
  server = createServer((request, response) => {
    trackResponse(recorder, response, 'key_tracked', () => request.url ?? '', performance.now());
    if (request.url === '/held') held.push(response);
    else if (request.url === '/stream') response.writeHead(200, { 'content-type': 'text/event-stream' }).write(': open\n\n');
    else response.end('answered');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Sends GET `path` and leaves: once the server holds it, or once the answer has started. */
function leave(path: string, once: 'held' | 'answered'): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${url}${path}`);
    request.on('error', () => undefined);
    request.on('close', () => resolve());
    if (once === 'answered') request.on('response', () => request.destroy());
    else
      void expect
        .poll(() => held.length)
        .toBeGreaterThan(0)
        .then(() => request.destroy(), reject);
    request.end();
  });
}

describe('a tracked response', () => {
  it('counts an answer and a stream its client leaves, never a request left before any answer', async () => {
    await leave('/held', 'held');
    await leave('/stream', 'answered');
    await fetch(`${url}/answered`).then((response) => response.text());
    await expect.poll(() => recorded.map((entry) => entry.route).sort()).toEqual(['/answered', '/stream']);
    expect(recorded.every((entry) => entry.status === 200 && entry.apiKeyId === 'key_tracked')).toBe(true);
  });
});
