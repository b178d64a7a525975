import { timingSafeEqual } from 'node:crypto';
import type { Redis } from 'ioredis';
import { AppError } from '../shared/errors.js';
import { computeSignature, signatureHeader, signatureTimestampHeader, signedText } from './signing.js';

export const signatureWindowSeconds = 300;

/** Remembers signatures already accepted, so each is used once (across instances when backed by Redis). */
export interface ReplayGuard {
  /** True the first time `id` is seen; `ttlMs` is how long it must be remembered. */
  firstUse(id: string, ttlMs: number, now: Date): Promise<boolean>;
}

export function createMemoryReplayGuard(): ReplayGuard {
  const seenUntil = new Map<string, number>();
  let nextSweep = 0;
  return {
    async firstUse(id, ttlMs, now) {
      const nowMs = now.getTime();
      if (nowMs >= nextSweep) {
        for (const [seen, until] of seenUntil) if (until <= nowMs) seenUntil.delete(seen);
        nextSweep = nowMs + 60_000;
      }
      if ((seenUntil.get(id) ?? 0) > nowMs) return false;
      seenUntil.set(id, nowMs + ttlMs);
      return true;
    },
  };
}

/**
 * Across instances through Redis. Without Redis (down, or silent past the connection's command
 * deadline) a signature's single use cannot be vouched for, so signed requests fail closed (503)
 * until it is back; unsigned traffic is unaffected.
 */
export function createRedisReplayGuard(redis: Redis): ReplayGuard {
  return {
    async firstUse(id, ttlMs) {
      const stored = await redis.set(`hallowgate:signature:${id}`, '1', 'PX', ttlMs, 'NX').catch(() => {
        throw new AppError('service_unavailable', 'Signed requests cannot be checked for replays right now; retry shortly.', { headers: { 'retry-after': '5' } });
      });
      return stored === 'OK';
    },
  };
}

export interface SigningKey {
  id: string;
  /** Decrypts the key's signing secret: only a signed request needs it, so unsigned ones pay no AES. */
  signingSecret: (() => string) | null;
  requireSignature: boolean;
}

export interface SignedRequest {
  method: string;
  target: string;
  body: Buffer;
  header(name: string): string | undefined;
}

const timestampPattern = /^\d{1,12}$/;
const signaturePattern = /^v1=([0-9a-f]{64})$/i;

function invalidSignature(message: string): AppError {
  return new AppError('invalid_signature', message);
}

/**
 * Checks the optional HMAC signature of a request made with `key`. Unsigned requests pass unless
 * the key requires signing; a signed request must be correct, fresh (±300 s) and new.
 */
export async function checkSignature(key: SigningKey, request: SignedRequest, now: Date, replays: ReplayGuard): Promise<void> {
  const timestamp = request.header(signatureTimestampHeader);
  const signature = request.header(signatureHeader);
  if (timestamp === undefined && signature === undefined) {
    if (key.requireSignature) throw invalidSignature('This key requires signed requests: send X-Signature-Timestamp and X-Signature.');
    return;
  }
  if (!key.signingSecret) throw invalidSignature('This key has no signing secret; send the request unsigned.');
  if (timestamp === undefined || !timestampPattern.test(timestamp)) {
    throw invalidSignature('X-Signature-Timestamp must be the Unix time in seconds.');
  }
  const presented = signaturePattern.exec(signature ?? '')?.[1];
  if (!presented) throw invalidSignature('X-Signature must look like v1=<hex HMAC-SHA256>.');

  const skewSeconds = Math.abs(now.getTime() / 1000 - Number(timestamp));
  if (skewSeconds > signatureWindowSeconds) {
    throw new AppError('signature_expired', `The signature timestamp is more than ${signatureWindowSeconds} s away from the server's time.`);
  }
  const expected = computeSignature(key.signingSecret(), signedText(timestamp, request.method, request.target, request.body));
  if (!timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(presented.toLowerCase(), 'hex'))) {
    throw invalidSignature('The signature does not match the request.');
  }
  // Long enough that the timestamp has left the window before the signature is forgotten.
  const rememberMs = (Number(timestamp) + signatureWindowSeconds + 1) * 1000 - now.getTime();
  if (!(await replays.firstUse(`${key.id}:${expected}`, Math.max(rememberMs, 1000), now))) {
    throw new AppError('replayed_request', 'This signature was already used; sign every request anew.');
  }
}
