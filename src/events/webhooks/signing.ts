import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { WebhookEndpoint } from '../../generated/prisma/client.js';

/** A Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * `webhook-signature` for a delivery: `v1,<base64>` with the current secret and, during the 24 h
 * after a rotation, also with the previous one, so receivers on either secret verify.
 */
export function signatureHeader(
  endpoint: Pick<WebhookEndpoint, 'secret' | 'previousSecret' | 'previousSecretExpiresAt'>,
  messageId: string,
  timestamp: Date,
  body: string,
): string {
  const secrets = [endpoint.secret];
  if (endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > timestamp) {
    secrets.push(endpoint.previousSecret);
  }
  return secrets.map((secret) => new Webhook(secret).sign(messageId, timestamp, body)).join(' ');
}
