import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Secrets the server must read back (webhook signing secrets, HMAC request-signing secrets) are
 * stored encrypted with AES-256-GCM: `enc:v1:` then base64 of IV (12 bytes), tag (16 bytes) and
 * ciphertext. The prefix tells encrypted values from ones written before encryption existed.
 */
export const sealedPrefix = 'enc:v1:';

export const secretsKeyBytes = 32;
const ivBytes = 12;
const tagBytes = 16;

export interface SecretBox {
  /** Encrypts a secret for storage. */
  seal(plaintext: string): string;
  /** Decrypts a stored secret; throws when it is not one sealed with this key. */
  open(stored: string): string;
}

export function isSealed(stored: string): boolean {
  return stored.startsWith(sealedPrefix);
}

export function randomSecretsKey(): Buffer {
  return randomBytes(secretsKeyBytes);
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== secretsKeyBytes) throw new Error(`A secrets key is ${secretsKeyBytes} bytes; got ${key.length}.`);
  return {
    seal(plaintext) {
      const iv = randomBytes(ivBytes);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return sealedPrefix + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
    },
    open(stored) {
      if (!isSealed(stored)) throw new Error('The stored secret is not encrypted.');
      const sealed = Buffer.from(stored.slice(sealedPrefix.length), 'base64');
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, ivBytes));
      decipher.setAuthTag(sealed.subarray(ivBytes, ivBytes + tagBytes));
      return Buffer.concat([decipher.update(sealed.subarray(ivBytes + tagBytes)), decipher.final()]).toString('utf8');
    },
  };
}
