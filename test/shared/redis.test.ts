import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { setTimeout as wait } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { connectRedis, connectRedisSubscriber, redisOptionsOf, redisProbeEveryMs, redisSilenceLimitMs } from '../../src/shared/redis.js';
import { startFaultProxy } from '../faults/proxy.js';
import { requireService } from '../support/services.js';

const redisUrl = await requireService('redis');

/** Keeps the event loop busy, as a long synchronous step (an embedded database's query, say) does. */
function busyFor(milliseconds: number) {
  const until = Date.now() + milliseconds;
  while (Date.now() < until);
}

describe.skipIf(!redisUrl)('a Redis connection probed for silence', () => {
  it('is kept after the process itself was busy for longer than the silence limit', async () => {
    const redis = connectRedis(redisUrl!, { commandTimeoutMs: 1000 });
    const errors: Error[] = [];
    redis.on('error', (error: Error) => errors.push(error));
    try {
      await once(redis, 'ready');
      await redis.ping();
      busyFor(redisSilenceLimitMs + 1500);
      // The probe overdue since the busy stretch runs first thing; two more follow it in this wait.
      await wait(2 * redisProbeEveryMs + 200);
      expect(await redis.ping()).toBe('PONG');
      expect(errors.map((error) => error.message)).toEqual([]);
      expect(redis.status).toBe('ready');
    } finally {
      redis.disconnect();
    }
  });

  it('is dropped and made anew when Redis stops answering while the socket stays open', async () => {
    const proxy = await startFaultProxy(redisUrl!);
    const redis = connectRedis(proxy.url, { commandTimeoutMs: 100 });
    const errors: Error[] = [];
    redis.on('error', (error: Error) => errors.push(error));
    try {
      await once(redis, 'ready');
      proxy.freeze();
      const frozenAt = Date.now();
      // Not events.once: it rejects on the 'error' event the probe tells the silence with.
      await new Promise((resolve) => redis.once('reconnecting', resolve));
      expect(Date.now() - frozenAt).toBeGreaterThanOrEqual(redisSilenceLimitMs);
      expect(errors.map((error) => error.message)).toContain(`Redis answered nothing for ${redisSilenceLimitMs} ms: reconnecting`);
      proxy.restore();
      await once(redis, 'ready', { signal: AbortSignal.timeout(5000) });
      expect(await redis.ping()).toBe('PONG');
    } finally {
      redis.disconnect();
      await proxy.close();
    }
  });
});

describe.skipIf(!redisUrl)('a pub/sub subscriber connection', () => {
  it('keeps a channel subscribed while its connection was being made and lost with it, once Redis is back', async () => {
    const proxy = await startFaultProxy(redisUrl!);
    const publisher = new Redis(redisUrl!);
    proxy.freeze();
    const subscriber = connectRedisSubscriber(proxy.url);
    subscriber.redis.on('error', () => undefined);
    const heard: string[] = [];
    subscriber.redis.on('message', (_channel: string, message: string) => heard.push(message));
    try {
      // Connected, its ready check unanswered: ioredis writes a SUBSCRIBE at once.
      await new Promise((resolve) => subscriber.redis.once('connect', resolve));
      expect(subscriber.redis.status).toBe('connect');
      void subscriber.subscribe('hallowgate:test:lost-subscribe').catch(() => undefined);
      // The connection goes before Redis saw it; the next one is made once Redis is reachable again.
      proxy.cut();
      proxy.restore();
      // Not events.once: it rejects on the 'error' event the lost connection is told with.
      await new Promise((resolve) => subscriber.redis.once('ready', resolve));
      await expect.poll(async () => (await publisher.publish('hallowgate:test:lost-subscribe', 'after'), heard), { timeout: 10_000, interval: 100 }).toContain('after');
    } finally {
      subscriber.redis.disconnect();
      publisher.disconnect();
      await proxy.close();
    }
  });
});

describe('REDIS_URL as connection options', () => {
  it('reads host, port, user, password, database, TLS and options in the query with the WHATWG URL parser', () => {
    expect(redisOptionsOf('redis://127.0.0.1:6379')).toEqual({ host: '127.0.0.1', port: 6379 });
    expect(redisOptionsOf('redis://cache.internal')).toEqual({ host: 'cache.internal', port: 6379 });
    expect(redisOptionsOf('rediss://app:p%40ss%3Aword@cache.internal:6380/5')).toEqual({
      host: 'cache.internal',
      port: 6380,
      username: 'app',
      password: 'p@ss:word',
      db: 5,
      tls: {},
    });
    expect(redisOptionsOf('redis://:secret@[::1]:6379/2')).toEqual({ host: '::1', port: 6379, password: 'secret', db: 2 });
    // Query parameters are options, as ioredis reads them.
    expect(redisOptionsOf('redis://127.0.0.1:6379/?keyPrefix=app%3A&family=6')).toEqual({ host: '127.0.0.1', port: 6379, keyPrefix: 'app:', family: 6 });
  });
});
