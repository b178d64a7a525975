import { Redis, type Command, type RedisOptions } from 'ioredis';
import { settleWithin } from './deadline.js';
import { endSpan, startChildSpan } from '../tracing/tracing.js';

export interface RedisConnectionOptions {
  /**
   * How long a command may wait for its answer, sent or queued while the connection is being made
   * anew; then it fails and the caller falls back. Unset: commands wait for the connection (a pub/sub
   * subscriber, connectRedisSubscriber).
   */
  commandTimeoutMs: number | undefined;
  /** Whether ioredis subscribes a new connection to the channels the last one had (its default: yes). */
  autoResubscribe?: boolean;
}

/**
 * The deadline of commands no request waits on, or that a request waits on once for something
 * long-lived (a subscription's place): long enough that a burst on a loaded Redis is still counted.
 */
export const unhurriedCommandTimeoutMs = 1000;

/** How often each connection is probed with a PING. */
export const redisProbeEveryMs = 1000;
/**
 * How long a connection may stay silent (no PING answered, or no ready check) before it is dropped
 * and made anew: a hung server or a middlebox keeps the socket open without answering, which
 * nothing else detects. Longer than a command's deadline, so one slow answer does not drop it.
 */
export const redisSilenceLimitMs = 3000;

/**
 * A redis:// or rediss:// URL as ioredis' options, read with the WHATWG URL parser: given the URL
 * itself, ioredis reads it with Node's legacy url.parse(), which Node 24 warns about on every start.
 * As ioredis reads one: query parameters are options (`?keyPrefix=app:`, `family` a number), then
 * host, port, user, password (percent-decoded), database (the path) and TLS (rediss:).
 */
export function redisOptionsOf(url: string): RedisOptions {
  const parsed = new URL(url);
  const database = parsed.pathname.replace(/^\//, '');
  const { family, ...query } = Object.fromEntries(parsed.searchParams);
  return {
    ...query,
    ...(family !== undefined && Number.isInteger(Number(family)) ? { family: Number(family) } : {}),
    host: parsed.hostname.replace(/^\[|\]$/g, '') || 'localhost',
    port: parsed.port ? Number(parsed.port) : 6379,
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(database ? { db: Number(database) } : {}),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

/**
 * ioredis with a deadline per command. Its own `commandTimeout` fires in the timers phase, before
 * the event loop reads the sockets: after the loop was busy for longer than the deadline (a burst of
 * work), a reply already received would count as late. This deadline looks once more after the
 * loop has read what arrived (setImmediate runs after the poll phase).
 */
class RedisWithDeadline extends Redis {
  constructor(
    url: string,
    private readonly commandTimeoutMs: number,
  ) {
    // Commands past their deadline were given up on: none is sent again on the next connection.
    super({ ...redisOptionsOf(url), maxRetriesPerRequest: 1, autoResendUnfulfilledCommands: false, connectTimeout: redisSilenceLimitMs });
  }

  override sendCommand(command: Command, stream?: Parameters<Redis['sendCommand']>[1]): unknown {
    // The command's name only: its keys and arguments (credentials' ids, counters) stay out of traces.
    const span = startChildSpan(() => {
      const operation = command.name.toUpperCase();
      return { name: operation, attributes: { 'db.system': 'redis', 'db.system.name': 'redis', 'db.operation.name': operation } };
    });
    const result = super.sendCommand(command, stream);
    if (span) {
      command.promise.then(
        () => span.end(),
        (error: unknown) => endSpan(span, error),
      );
    }
    if (!command.isResolved) {
      const timer = setTimeout(
        () =>
          setImmediate(() => {
            if (!command.isResolved) command.reject(new Error('Command timed out'));
          }),
        this.commandTimeoutMs,
      );
      command.promise.then(
        () => clearTimeout(timer),
        () => clearTimeout(timer),
      );
    }
    return result;
  }
}

/**
 * A Redis connection every part of the server makes the same way: commands with a deadline (queued
 * ones too, and the offline queue is flushed after one reconnection attempt), and a health probe
 * that replaces a connection gone silent.
 */
export function connectRedis(url: string, options: RedisConnectionOptions): Redis {
  const redis =
    options.commandTimeoutMs === undefined
      ? new Redis({ ...redisOptionsOf(url), maxRetriesPerRequest: null, connectTimeout: redisSilenceLimitMs, autoResubscribe: options.autoResubscribe ?? true })
      : new RedisWithDeadline(url, options.commandTimeoutMs);
  let heardAt = Date.now();
  /** When the oldest PING still unanswered went out; undefined when every one was answered. */
  let pingSentAt: number | undefined;
  const heard = () => {
    heardAt = Date.now();
    pingSentAt = undefined;
  };
  redis.on('ready', heard);
  redis.on('reconnecting', heard);
  // 'connect' is the socket; the connection is usable at 'ready', after Redis answered its ready check.
  const isSilent = () =>
    redis.status === 'ready' ? pingSentAt !== undefined && Date.now() - pingSentAt > redisSilenceLimitMs : redis.status === 'connect' && Date.now() - heardAt > redisSilenceLimitMs;
  const probe = setInterval(() => {
    if (redis.status !== 'ready' && redis.status !== 'connect') return;
    // Judged once the loop has read what arrived (setImmediate runs after the poll phase): timers run
    // first, so after the loop was busy for longer than the limit, an answer already received would
    // count as silence, and only a PING sent and left unanswered is.
    setImmediate(() => {
      if (isSilent()) {
        // Told as ioredis tells its own errors: to the 'error' listeners its owner attached.
        if (redis.listenerCount('error') > 0) redis.emit('error', new Error(`Redis answered nothing for ${redisSilenceLimitMs} ms: reconnecting`));
        heard();
        // Not disconnect(): it ends the socket politely and waits for a close the silent peer never sends.
        redis.stream.destroy();
        return;
      }
      if (redis.status === 'ready') {
        pingSentAt ??= Date.now();
        redis.ping().then(heard, () => undefined);
      }
    });
  }, redisProbeEveryMs);
  probe.unref();
  redis.once('end', () => clearInterval(probe));
  return redis;
}

/** A pub/sub subscriber connection and the channels it keeps. */
export interface RedisSubscriber {
  redis: Redis;
  subscribe(channel: string): Promise<unknown>;
  unsubscribe(channel: string): Promise<unknown>;
}

const channelsPerCommand = 1000;

/**
 * A pub/sub subscriber connection that holds the channels it was asked for, and subscribes to all of
 * them on each new connection once it is ready. Channels are sent only to a ready connection: ioredis
 * lets a SUBSCRIBE or UNSUBSCRIBE through while a connection is still being made (before its ready
 * check), and one lost with that connection is never answered nor sent again (nor, for a SUBSCRIBE,
 * renewed by ioredis, which renews only what Redis confirmed: its own renewal is turned off here).
 */
export function connectRedisSubscriber(url: string): RedisSubscriber {
  const redis = connectRedis(url, { commandTimeoutMs: undefined, autoResubscribe: false });
  const channels = new Set<string>();
  // In bounded commands (a spread of thousands of channels would overflow the call's arguments). One
  // that fails went with its connection, and the next one subscribes again.
  const send = async (command: 'subscribe' | 'unsubscribe', names: string[]) => {
    if (redis.status !== 'ready') return;
    const sent: Promise<unknown>[] = [];
    for (let from = 0; from < names.length; from += channelsPerCommand) sent.push(redis[command](...names.slice(from, from + channelsPerCommand)).catch(() => undefined));
    await Promise.all(sent);
  };
  redis.on('ready', () => {
    if (channels.size > 0) void send('subscribe', [...channels]);
  });
  return {
    redis,
    subscribe: (channel) => {
      channels.add(channel);
      return send('subscribe', [channel]);
    },
    unsubscribe: (channel) => {
      channels.delete(channel);
      return send('unsubscribe', [channel]);
    },
  };
}

/**
 * Resolves true once `redis` is ready, or false when its first attempt to connect fails or
 * `deadlineMs` passes first: a server waits for this before it listens, so its first requests are
 * counted where every instance counts them rather than in memory while the connection comes up.
 */
export async function untilReady(redis: Redis, deadlineMs: number): Promise<boolean> {
  if (redis.status === 'ready') return true;
  let settle = (ready: boolean): void => void ready;
  const outcome = new Promise<boolean>((resolve) => (settle = resolve));
  const onReady = () => settle(true);
  const onFailure = () => settle(false);
  redis.once('ready', onReady).once('reconnecting', onFailure).once('end', onFailure);
  try {
    return await settleWithin(outcome, deadlineMs, () => false);
  } finally {
    redis.off('ready', onReady).off('reconnecting', onFailure).off('end', onFailure);
  }
}

/** 'ok' when `redis` answers a PING within `deadlineMs`, else 'degraded'. */
export function redisHealth(redis: Redis, deadlineMs: number): Promise<'ok' | 'degraded'> {
  return settleWithin(
    redis.ping().then(
      () => 'ok' as const,
      () => 'degraded' as const,
    ),
    deadlineMs,
    () => 'degraded' as const,
  );
}
