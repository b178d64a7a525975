import net, { type AddressInfo, type Socket } from 'node:net';

export type FaultMode = 'pass' | 'refuse' | 'freeze' | 'full';

/**
 * What PostgreSQL answers a new session when every connection slot is taken: an ErrorResponse,
 * FATAL 53300 "sorry, too many clients already", then it closes the connection.
 */
function tooManyClients(): Buffer {
  const fields = Buffer.from('SFATAL\0VFATAL\0C53300\0Msorry, too many clients already\0\0', 'utf8');
  const length = Buffer.alloc(4);
  length.writeInt32BE(fields.length + 4);
  return Buffer.concat([Buffer.from('E'), length, fields]);
}

/**
 * A TCP proxy on loopback in front of a real server (PostgreSQL, Redis), for outages without
 * stopping the shared server other tests use. Two kinds of outage:
 * - cut(): drops every open connection and refuses new ones, as a restart or a partition does;
 * - freeze(): keeps every connection open and accepts new ones but forwards nothing either way, as a
 *   hung or paused server, or a middlebox that keeps acknowledging, does. The kernel's buffers fill
 *   and nothing is lost: restore() forwards what waited, in order.
 * - full(): drops every open connection and answers each new one as a PostgreSQL whose connection
 *   slots are all taken does (FATAL 53300), as when other clients took them during a restart.
 * restore() lets connections through again.
 * `observe` sees each client connection as it opens (bench/statement-recorder.ts reads what clients send).
 */
export async function startFaultProxy(targetUrl: string, observe?: (client: Socket) => void) {
  const target = new URL(targetUrl);
  const targetPort = Number(target.port || (target.protocol.startsWith('redis') ? 6379 : 5432));
  const open = new Set<Socket>();
  let mode: FaultMode = 'pass';
  const server = net.createServer((client) => {
    if (mode === 'refuse') {
      client.destroy();
      return;
    }
    if (mode === 'full') {
      client.on('error', () => undefined);
      client.once('data', () => client.end(tooManyClients()));
      return;
    }
    const upstream = net.connect(targetPort, target.hostname);
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => undefined);
      // Paused sockets read nothing, so nothing is forwarded until restore() resumes them.
      if (mode === 'freeze') socket.pause();
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    observe?.(client);
    client.pipe(upstream).pipe(client);
    // pipe() resumes its source: pause again after it when frozen.
    if (mode === 'freeze') for (const socket of [client, upstream]) socket.pause();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxied = new URL(targetUrl);
  proxied.hostname = '127.0.0.1';
  proxied.port = String((server.address() as AddressInfo).port);
  return {
    /** The target's URL with the proxy's host and port. */
    url: proxied.toString(),
    get mode() {
      return mode;
    },
    /** Connections open through the proxy (both sides counted). */
    get openSockets() {
      return open.size;
    },
    cut() {
      mode = 'refuse';
      for (const socket of open) socket.destroy();
    },
    freeze() {
      mode = 'freeze';
      for (const socket of open) socket.pause();
    },
    full() {
      mode = 'full';
      for (const socket of open) socket.destroy();
    },
    /** Silences the connections open now, as freeze() does, but lets new ones through: a server hung on some sessions only. */
    stallOpen() {
      for (const socket of open) socket.pause();
    },
    restore() {
      mode = 'pass';
      for (const socket of open) socket.resume();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export type FaultProxy = Awaited<ReturnType<typeof startFaultProxy>>;
