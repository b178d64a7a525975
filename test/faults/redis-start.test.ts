import { randomUUID } from 'node:crypto';
import { setTimeout as wait } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { redisSilenceLimitMs } from '../../src/shared/redis.js';
import { startFaultProxy, type FaultProxy } from './proxy.js';
import { outageModes, slowMachineMarginMs } from './timing.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { requireService } from '../support/services.js';

const redisUrl = await requireService('redis');

/** The proxy's URL with a key prefix of this test's own, as a deployment of its own would have. */
function isolated(proxy: FaultProxy): string {
  const url = new URL(proxy.url);
  url.searchParams.set('keyPrefix', `test-${randomUUID()}:`);
  return url.toString();
}

describe.skipIf(!redisUrl)('a server starting while Redis is not answering yet', () => {
  let proxy: FaultProxy | undefined;
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    await proxy?.close();
  });

  it('listens once Redis is connected, so its first requests are counted where every instance counts them', async () => {
    proxy = await startFaultProxy(redisUrl!);
    proxy.freeze();
    let listening = false;
    // One instant for both instances: on the real clock the two requests could fall in two minutes' windows.
    const now = new Date();
    const clock = () => now;
    const starting = startTestServer({ clock, config: { REDIS_URL: isolated(proxy), REDIS_COMMAND_TIMEOUT_MS: 1000 } }).then((started) => {
      listening = true;
      return started;
    });
    // The server's connections reach the frozen proxy once its database is open.
    await expect.poll(() => proxy!.openSockets, { timeout: 30_000 }).toBeGreaterThan(0);
    // Without the wait for Redis it would be listening by now; the wait's own deadline is ten times longer.
    await wait(redisSilenceLimitMs / 10);
    expect(listening).toBe(false);
    proxy.restore();
    server = await starting;

    const { key } = await server.createKey({ plan: 'pro' });
    const first = await fetch(`${server.url}/v1/no_such_route`, { headers: { authorization: `Bearer ${key}` } });
    expect(first.headers.get('x-ratelimit-remaining')).toBe('999');
    // Another instance of the same deployment sees that request: it was counted in Redis, not in memory.
    const sibling = server.sibling(clock);
    try {
      const siblingUrl = await sibling.listen(0, '127.0.0.1');
      const second = await fetch(`${siblingUrl}/v1/no_such_route`, { headers: { authorization: `Bearer ${key}` } });
      expect(second.headers.get('x-ratelimit-remaining')).toBe('998');
    } finally {
      await sibling.close();
    }
  });

  it.each(outageModes)('starts (within the silence limit when frozen) and serves with per-instance limits while Redis stays down from the start: %s', async (mode) => {
    proxy = await startFaultProxy(redisUrl!);
    proxy[mode]();
    let connectingAt = Date.now();
    const starting = startTestServer({ config: { REDIS_URL: isolated(proxy), REDIS_COMMAND_TIMEOUT_MS: 100 } });
    // Frozen, the server's connections reach the proxy once its database is open: the wait starts then.
    if (mode === 'freeze') {
      await expect.poll(() => proxy!.openSockets, { timeout: 30_000 }).toBeGreaterThan(0);
      connectingAt = Date.now();
    }
    server = await starting;
    if (mode === 'freeze') expect(Date.now() - connectingAt).toBeLessThan(redisSilenceLimitMs + slowMachineMarginMs);
    const { key } = await server.createKey({ plan: 'pro' });
    const response = await fetch(`${server.url}/v1/no_such_route`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(404);
    expect(response.headers.get('x-ratelimit-remaining')).toBe('999');
  });
});
