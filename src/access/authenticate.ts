import type { PrismaClient } from '../generated/prisma/client.js';
import type { SecretBox } from '../shared/secrets.js';
import { cachedCredential } from './credential-cache.js';
import { parseApiKey, principalForKey, unauthenticated, verifyApiKey } from './keys.js';
import { parseRanges, type AddressRange } from './network.js';
import { operatorAccountId, type Principal } from './principal.js';
import type { SigningKey } from './signature-check.js';

const widgetTokenPattern = /^wt_[A-Za-z0-9]{8,64}$/;

/** A verified credential and the rules it carries for the access gate. */
export interface Credential {
  principal: Principal;
  allowedOrigins: readonly string[];
  /** Null: any address. A list none of whose stored entries can be read any more admits none. */
  ipAllowlist: readonly AddressRange[] | null;
  /** Null for widget tokens, which are never signed. */
  signing: SigningKey | null;
}

/** Runs before a credential is read from the database (not when it is cached); throws to refuse the read. */
export type BeforeLookup = (id: string) => Promise<void>;

function loadApiKey(prisma: PrismaClient, keyId: string, beforeLookup: BeforeLookup) {
  return cachedCredential(keyId, async () => {
    await beforeLookup(keyId);
    const record = await prisma.apiKey.findUnique({ where: { id: keyId } });
    return record && { record, ipAllowlist: record.ipAllowlist.length > 0 ? parseRanges(record.ipAllowlist) : null };
  });
}

function loadWidgetToken(prisma: PrismaClient, tokenId: string, beforeLookup: BeforeLookup) {
  return cachedCredential(tokenId, async () => {
    await beforeLookup(tokenId);
    return prisma.widgetToken.findUnique({ where: { id: tokenId } });
  });
}

const bearerPattern = /^Bearer ([^\s]+)$/i;

/** The key id an Authorization header presents, when it is a well-formed API key; nothing is looked up or checked. */
export function presentedKeyId(authorization: string | undefined): string | undefined {
  const presented = authorization && bearerPattern.exec(authorization.trim())?.[1];
  return presented ? parseApiKey(presented)?.keyId : undefined;
}

/**
 * Resolves an Authorization header to the calling credential. No header gives null (the caller
 * decides whether anonymous access is allowed); anything malformed, unknown, revoked or expired is
 * 401, and so is an operator key other than `operatorKey`, the ADMIN_API_KEY this process was
 * started with: one an earlier start left in the database, under another value or none, opens nothing.
 * That key is checked against this process's own setting, not the hash in the database (which the
 * instance started last wrote): instances started with two values under one id, as a rolling
 * rotation makes them, each take the one they were started with.
 */
export async function authenticate(
  prisma: PrismaClient,
  secrets: SecretBox,
  authorization: string | undefined,
  now: Date,
  beforeLookup: BeforeLookup = async () => undefined,
  operatorKey?: { id: string; secretHash: string },
): Promise<Credential | null> {
  if (authorization === undefined || authorization === '') return null;
  const match = bearerPattern.exec(authorization.trim());
  if (!match) throw unauthenticated('Authorization must be "Bearer <KEY_ID>.<SECRET>".');
  const presented = match[1]!;

  if (widgetTokenPattern.test(presented)) {
    const token = await loadWidgetToken(prisma, presented, beforeLookup);
    if (!token || token.revokedAt) throw unauthenticated('The widget token is not valid.', 'invalid_token');
    return {
      principal: {
        kind: 'widget_token',
        tokenId: token.id,
        accountId: token.accountId,
        rateLimitPerMinute: token.rateLimitPerMinute,
        allowBooking: token.allowBooking,
      },
      allowedOrigins: token.allowedOrigins,
      ipAllowlist: null,
      signing: null,
    };
  }

  const parsed = parseApiKey(presented);
  if (!parsed) throw unauthenticated('The API key is malformed; expected <KEY_ID>.<SECRET>.', 'invalid_token');
  const loaded = await loadApiKey(prisma, parsed.keyId, beforeLookup);
  const stored = loaded?.record ?? null;
  const isOwnOperatorKey = stored !== null && stored.accountId === operatorAccountId && stored.id === operatorKey?.id;
  const verified = verifyApiKey(isOwnOperatorKey ? { ...stored, secretHash: operatorKey.secretHash } : stored, parsed.secret, now);
  if (verified.accountId === operatorAccountId && !isOwnOperatorKey) throw unauthenticated('The API key is not valid.', 'invalid_token');
  // The stored record, for the checks of open connections against the database: a rotation (another
  // instance started with a new value) ends them once, as any key's rotation does.
  const record = isOwnOperatorKey ? stored : verified;
  return {
    principal: principalForKey(record),
    allowedOrigins: record.allowedOrigins,
    ipAllowlist: loaded!.ipAllowlist,
    signing: {
      id: record.id,
      signingSecret: record.signingSecret === null ? null : () => secrets.open(record.signingSecret!),
      requireSignature: record.requireSignature,
    },
  };
}

/**
 * Whether the credential behind an already verified `principal` is still valid: not revoked or
 * expired and, for a key, not rotated to another secret. From the credential cache, so a revocation
 * made elsewhere shows within its time to live (here at once).
 */
export async function credentialStillValid(prisma: PrismaClient, principal: Principal, now: Date): Promise<boolean> {
  if (principal.kind === 'widget_token') {
    const token = await loadWidgetToken(prisma, principal.tokenId, async () => undefined);
    return token !== null && token.revokedAt === null;
  }
  const record = (await loadApiKey(prisma, principal.keyId, async () => undefined))?.record;
  return !!record && record.revokedAt === null && (record.expiresAt === null || record.expiresAt > now) && record.secretHash === principal.secretHash;
}
