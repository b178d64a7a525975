import { createHash, timingSafeEqual } from 'node:crypto';
import type { ApiKey, Plan, PrismaClient } from '../generated/prisma/client.js';
import { AppError } from '../shared/errors.js';
import { newId, randomToken } from '../shared/ids.js';
import type { SecretBox } from '../shared/secrets.js';
import { forgetCredential } from './credential-cache.js';
import { apiKeyPattern } from './key-format.js';
import { isScope, type Principal, type Scope } from './principal.js';

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Splits `<KEY_ID>.<SECRET>`; null when the text cannot be a key. */
export function parseApiKey(text: string): { keyId: string; secret: string } | null {
  const match = apiKeyPattern.exec(text);
  return match ? { keyId: match[1]!, secret: match[2]! } : null;
}

/** A new secret for `keyId` (a new key unless given); `key` is the whole credential the client sends. */
export function newApiKeyCredentials(keyId = newId('apiKey')): { keyId: string; secret: string; key: string } {
  const secret = `sk_${randomToken(32)}`;
  return { keyId, secret, key: `${keyId}.${secret}` };
}

export interface NewApiKey {
  accountId: string;
  plan: Plan;
  scopes: Scope[];
  name?: string | null;
  allowedOrigins?: string[];
  ipAllowlist?: string[];
  promo?: boolean;
  requireSignature?: boolean;
  expiresAt?: Date | null;
}

export function newSigningSecret(): string {
  return `hs_${randomToken(32)}`;
}

/** Creates a key and returns the only copy of its secret (and of its signing secret, which is stored encrypted). */
export async function createApiKey(prisma: PrismaClient, secrets: SecretBox, input: NewApiKey, credentials = newApiKeyCredentials()) {
  // Enterprise keys may sign; keys that must sign need the secret whatever their plan.
  const signingSecret = input.requireSignature || input.plan === 'enterprise' ? newSigningSecret() : null;
  const record = await prisma.apiKey.create({
    data: {
      id: credentials.keyId,
      accountId: input.accountId,
      name: input.name ?? null,
      secretHash: hashSecret(credentials.secret),
      plan: input.plan,
      scopes: input.scopes,
      allowedOrigins: input.allowedOrigins ?? [],
      ipAllowlist: input.ipAllowlist ?? [],
      promo: input.promo ?? false,
      requireSignature: input.requireSignature ?? false,
      signingSecret: signingSecret && secrets.seal(signingSecret),
      expiresAt: input.expiresAt ?? null,
    },
  });
  // This process may remember the id as unknown from before it existed.
  forgetCredential(record.id);
  return { record, key: credentials.key, signingSecret };
}

/**
 * 401 with its Bearer challenge (RFC 6750): naming the `error` when a token was sent and is not one
 * (`invalid_token`); bare when none was sent, or another scheme than Bearer (RFC 6750 §3.1).
 */
export function unauthenticated(message: string, error?: 'invalid_token'): AppError {
  const challenge = error ? `Bearer realm="hallowgate", error="${error}"` : 'Bearer realm="hallowgate"';
  return new AppError('unauthenticated', message, { headers: { 'www-authenticate': challenge } });
}

export function principalForKey(record: ApiKey): Principal {
  return {
    kind: 'api_key',
    keyId: record.id,
    accountId: record.accountId,
    scopes: record.scopes.filter(isScope),
    plan: record.plan,
    promo: record.promo,
    expiresAt: record.expiresAt,
    secretHash: record.secretHash,
  };
}

/** Checks a presented key against its stored hash in constant time; throws 401 on any failure. */
export function verifyApiKey(record: ApiKey | null, secret: string, now: Date): ApiKey {
  const presented = Buffer.from(hashSecret(secret), 'hex');
  const stored = Buffer.from(record?.secretHash ?? '0'.repeat(64), 'hex');
  const matches = presented.length === stored.length && timingSafeEqual(presented, stored);
  if (!record || !matches) throw unauthenticated('The API key is not valid.', 'invalid_token');
  if (record.revokedAt) throw unauthenticated('The API key has been revoked.', 'invalid_token');
  if (record.expiresAt && record.expiresAt <= now) throw unauthenticated('The API key has expired.', 'invalid_token');
  return record;
}
