import net from 'node:net';

/** PostgreSQL comes from TEST_DATABASE_URL (the whole suite on PostgreSQL) or TEST_POSTGRES_URL (only the tests that need it). */
const variables = { postgres: ['TEST_DATABASE_URL', 'TEST_POSTGRES_URL'], redis: ['TEST_REDIS_URL'] } as const;
export type ExternalService = keyof typeof variables;

function reachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  const defaultPort = url.startsWith('redis') ? 6379 : 5432;
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port || defaultPort) });
    socket.setTimeout(2000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/**
 * The URL of a real PostgreSQL or Redis server for tests that need one. Under CI=true a missing or
 * unreachable server is an error, so such tests fail instead of silently skipping; locally they may skip.
 */
export async function requireService(service: ExternalService): Promise<string | undefined> {
  const names = variables[service];
  const variable = names.join(' or ');
  const url = names.map((name) => process.env[name]).find(Boolean);
  const inCi = process.env['CI'] === 'true';
  if (!url) {
    if (inCi) throw new Error(`${variable} must be set under CI=true: this test needs a real ${service} server.`);
    return undefined;
  }
  if (!(await reachable(url))) {
    if (inCi) throw new Error(`${variable}=${url} is not reachable.`);
    return undefined;
  }
  return url;
}
