import { z } from 'zod';
import { parseInput } from '../shared/validation.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { Plan } from '../generated/prisma/enums.js';
import { AppError, notFound, validationFailed } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import type { SecretBox } from '../shared/secrets.js';
import { normalizeOrigin } from './cors.js';
import { forgetCredential } from './credential-cache.js';
import { createApiKey, hashSecret, newApiKeyCredentials, newSigningSecret } from './keys.js';
import { parseRange } from './network.js';
import { operatorAccountId, scopes } from './principal.js';

/**
 * Operator rules for accounts, API keys and widget tokens: one place, used by the GraphQL
 * mutations (and so by the REST admin routes) and by the CLI.
 */

const origin = z.string().transform((text, context) => {
  const normalized = normalizeOrigin(text);
  if (normalized === null) context.addIssue({ code: 'custom', message: `"${text}" is not an origin such as https://shop.example.` });
  return normalized ?? text;
});

const addressRange = z.string().refine((text) => parseRange(text) !== null, { message: 'Not an IP address or CIDR such as 203.0.113.0/24 or 2001:db8::/32.' });

const name = z.string().trim().min(1).max(200);

/** A list stored once per value, in the order given: a value repeated grants nothing more. */
const distinct = <T>(list: T[]): T[] => [...new Set(list)];

export const newAccountInput = z.object({ name });

export const newApiKeyInput = z
  .object({
    accountId: z.string().min(1),
    plan: z.enum(Plan),
    scopes: z.array(z.enum(scopes)).min(1).transform(distinct),
    name: name.nullish(),
    allowedOrigins: z.array(origin).max(100).default([]).transform(distinct),
    ipAllowlist: z.array(addressRange).max(100).default([]).transform(distinct),
    promo: z.boolean().default(false),
    requireSignature: z.boolean().default(false),
  })
  .refine((input) => !input.requireSignature || input.plan === 'enterprise', {
    path: ['requireSignature'],
    message: 'HMAC request signing is available on the enterprise plan.',
  });

export const newWidgetTokenInput = z.object({
  accountId: z.string().min(1),
  name: name.nullish(),
  allowedOrigins: z.array(origin).min(1).max(100).transform(distinct),
  rateLimitPerMinute: z.number().int().min(1).max(1_000_000).default(600),
  allowBooking: z.boolean().default(false),
});

async function requireAccount(prisma: PrismaClient, accountId: string): Promise<void> {
  const account = await prisma.account.findUnique({ where: { id: accountId }, select: { id: true } });
  if (!account) throw validationFailed([{ field: 'accountId', code: 'not_found', message: `No account with id "${accountId}".` }]);
}

export function createAccount(prisma: PrismaClient, input: unknown) {
  const { name } = parseInput(newAccountInput, input);
  return prisma.account.create({ data: { id: newId('account'), name } });
}

/** Issues a key; the returned `key` (and `signingSecret`) are the only copies ever shown. */
export async function issueApiKey(prisma: PrismaClient, secrets: SecretBox, input: unknown) {
  const parsed = parseInput(newApiKeyInput, input);
  if (parsed.accountId === operatorAccountId) {
    const message = `${operatorAccountId} holds the operator key alone, which ADMIN_API_KEY sets: issue keys in an account of their own.`;
    throw validationFailed([{ field: 'accountId', code: 'operator_account', message }]);
  }
  await requireAccount(prisma, parsed.accountId);
  return createApiKey(prisma, secrets, parsed);
}

async function findApiKey(prisma: PrismaClient, id: string) {
  const record = await prisma.apiKey.findUnique({ where: { id } });
  if (!record) throw notFound('API key', id);
  return record;
}

/** Revokes a key at once in this process; the caller announces it to the others (`revokedCredentials`). Repeating it changes nothing. */
export async function revokeApiKey(prisma: PrismaClient, id: string, now: Date) {
  const record = await findApiKey(prisma, id);
  const revoked = record.revokedAt ? record : await prisma.apiKey.update({ where: { id }, data: { revokedAt: now } });
  forgetCredential(id);
  return revoked;
}

/** Replaces the secret (and the signing secret, where there is one); the old ones stop working, here at once, elsewhere once the caller announces it. */
export async function rotateApiKey(prisma: PrismaClient, secrets: SecretBox, id: string) {
  const existing = await findApiKey(prisma, id);
  if (existing.revokedAt) throw new AppError('key_revoked', `The API key "${id}" is revoked and cannot be rotated.`);
  if (existing.accountId === operatorAccountId) {
    throw new AppError('invalid_parameter', `The operator key "${id}" is ADMIN_API_KEY: change it by starting the server with another value, not by rotating it.`);
  }
  const credentials = newApiKeyCredentials(id);
  const signingSecret = existing.signingSecret ? newSigningSecret() : null;
  const record = await prisma.apiKey.update({
    where: { id },
    data: { secretHash: hashSecret(credentials.secret), signingSecret: signingSecret && secrets.seal(signingSecret) },
  });
  forgetCredential(id);
  return { record, key: credentials.key, signingSecret };
}

export async function createWidgetToken(prisma: PrismaClient, input: unknown) {
  const parsed = parseInput(newWidgetTokenInput, input);
  await requireAccount(prisma, parsed.accountId);
  const token = await prisma.widgetToken.create({
    data: {
      id: newId('widgetToken'),
      accountId: parsed.accountId,
      name: parsed.name ?? null,
      allowedOrigins: parsed.allowedOrigins,
      rateLimitPerMinute: parsed.rateLimitPerMinute,
      allowBooking: parsed.allowBooking,
    },
  });
  // This process may remember the id as unknown from before it existed.
  forgetCredential(token.id);
  return token;
}

export async function revokeWidgetToken(prisma: PrismaClient, id: string, now: Date) {
  const record = await prisma.widgetToken.findUnique({ where: { id } });
  if (!record) throw notFound('widget token', id);
  const revoked = record.revokedAt ? record : await prisma.widgetToken.update({ where: { id }, data: { revokedAt: now } });
  forgetCredential(id);
  return revoked;
}
