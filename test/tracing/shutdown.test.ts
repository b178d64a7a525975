import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shutdownDeadlineMs } from '../../src/tracing/tracing.js';
import { startServerProcess } from '../access/processes.js';
import { openEventsDatabase } from '../events/cluster.js';
import { slowMachineMarginMs } from '../faults/timing.js';
import { apiClient } from '../support/http.js';
import { requireService } from '../support/services.js';

const postgresUrl = await requireService('postgres');

/** `server` listening on a free loopback port, with its URL. */
async function listening<T extends Server | TcpServer>(server: T): Promise<{ server: T; url: string }> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/**
 * A server process with tracing on, stopped with SIGTERM after one request while its collector does
 * not take spans: it exits 0 within the collector's wait, and says in one log line that the last
 * spans were lost, rather than crashing with the exporter's error.
 */
describe.skipIf(!postgresUrl)('stopping with tracing on while the collector does not take spans', () => {
  let cluster: Awaited<ReturnType<typeof openEventsDatabase>>;
  let refusing: { server: Server; url: string };
  let silent: { server: TcpServer; url: string };
  const held: Socket[] = [];

  beforeAll(async () => {
    cluster = await openEventsDatabase(postgresUrl!);
    // Collectors that do not take spans: one refuses them (a wrong backend key), one never answers.
    refusing = await listening(createServer((_request, response) => response.writeHead(401).end('Unauthorized')));
    silent = await listening(createTcpServer((socket) => void held.push(socket)));
  });
  afterAll(async () => {
    for (const socket of held) socket.destroy();
    refusing?.server.close();
    silent?.server.close();
    await cluster?.database.close();
  });

  for (const [collector, waits] of [
    ['refuses them', false],
    ['never answers', true],
  ] as const) {
    it(`exits 0 when it ${collector}, warning that the last spans were lost`, { timeout: 60_000 }, async () => {
      const endpoint = collector === 'refuses them' ? refusing.url : silent.url;
      const server = await startServerProcess({ ...cluster.env, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_SAMPLER: 'always_on' });
      let output = '';
      server.process.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      server.process.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      expect((await apiClient(server.url, cluster.key)('GET', '/v1/bookings?limit=1')).status).toBe(200);
      const stoppedAt = performance.now();
      // 'close', not 'exit': by then all it wrote has been read.
      const closed = once(server.process, 'close');
      server.process.kill('SIGTERM');
      const [code] = (await closed) as [number | null];
      const elapsedMs = performance.now() - stoppedAt;
      expect({ code, stackTrace: output.includes('Uncaught') || output.includes('    at ') }).toEqual({ code: 0, stackTrace: false });
      expect(output).toContain('the collector did not take the last spans');
      expect(elapsedMs).toBeLessThan((waits ? shutdownDeadlineMs : 0) + slowMachineMarginMs * 2);
    });
  }
});
