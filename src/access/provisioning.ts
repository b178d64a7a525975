import { ConfigError } from '../db/config-error.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { newId } from '../shared/ids.js';
import type { SecretBox } from '../shared/secrets.js';
import { createWidgetToken } from './admin.js';
import { apiKeyRule } from './key-format.js';
import { createApiKey, hashSecret, parseApiKey } from './keys.js';
import { operatorAccountId, scopes } from './principal.js';

/**
 * Makes sure the operator key named by ADMIN_API_KEY exists with exactly that secret and the
 * admin scope. Only the hash is stored; an existing operator key with another secret is re-keyed, and
 * an id already used by another account's key is refused.
 * Instances starting together on one database may run this at once: inserts that find the row
 * already there do nothing (ON CONFLICT DO NOTHING) instead of failing.
 */
export async function ensureOperatorKey(prisma: PrismaClient, adminApiKey: string): Promise<string> {
  const parsed = parseApiKey(adminApiKey);
  if (!parsed) throw new Error(`ADMIN_API_KEY must be ${apiKeyRule}`);
  const operatorKey = { secretHash: hashSecret(parsed.secret), scopes: ['admin'], revokedAt: null, expiresAt: null };
  await prisma.account.createMany({ data: [{ id: operatorAccountId, name: 'Operators' }], skipDuplicates: true });
  await prisma.apiKey.createMany({
    data: [{ id: parsed.keyId, accountId: operatorAccountId, name: 'ADMIN_API_KEY', plan: 'business', ...operatorKey }],
    skipDuplicates: true,
  });
  // Only a key of the operators' account: an id that names a customer's key (a key pasted into the
  // wrong setting) must not make that key an operator's, nor bring it back from revocation.
  const { count } = await prisma.apiKey.updateMany({ where: { id: parsed.keyId, accountId: operatorAccountId }, data: operatorKey });
  if (count === 0) {
    throw new ConfigError(`ADMIN_API_KEY's id ${parsed.keyId} names a key of another account, not an operator key: give ADMIN_API_KEY an id of its own (key_ops, say)`);
  }
  return parsed.keyId;
}

export interface DemoAccount {
  accountId: string;
  key: string;
  widgetToken: string;
}

/**
 * A demo account for trying the product after first start: a key holding every scope but admin,
 * and a widget token for pages served from `widgetOrigins` (the demo page works with it at once).
 */
export async function createDemoAccount(prisma: PrismaClient, secrets: SecretBox, widgetOrigins: string[]): Promise<DemoAccount> {
  const account = await prisma.account.create({ data: { id: newId('account'), name: 'Demo Haunts Inc.' } });
  const { key } = await createApiKey(prisma, secrets, {
    accountId: account.id,
    plan: 'pro',
    name: 'demo',
    scopes: scopes.filter((scope) => scope !== 'admin'),
  });
  const widgetToken = await createWidgetToken(prisma, { accountId: account.id, name: 'demo', allowedOrigins: widgetOrigins });
  return { accountId: account.id, key, widgetToken: widgetToken.id };
}
