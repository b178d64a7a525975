import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { WebhookEndpoint } from '../../generated/prisma/client.js';
import type { SecretBox } from '../../shared/secrets.js';

/** A Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * `webhook-signature` for a delivery: `v1,<base64>` with the current secret and, during the 24 h
 * after a rotation, also with the previous one, so receivers on either secret verify. The stored
 * secrets are encrypted; they are decrypted here, for this signature only.
 */
export function signatureHeader(
  endpoint: Pick<WebhookEndpoint, 'secret' | 'previousSecret' | 'previousSecretExpiresAt'>,
  secrets: SecretBox,
  messageId: string,
  timestamp: Date,
  body: string,
): string {
  const stored = [endpoint.secret];
  if (endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > timestamp) {
    stored.push(endpoint.previousSecret);
  }
  return stored.map((secret) => new Webhook(secrets.open(secret)).sign(messageId, timestamp, body)).join(' ');
}
