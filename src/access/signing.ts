import { createHash, createHmac } from 'node:crypto';

/**
 * HMAC request signing, shared by clients (signRequest) and the server's check, so both build the
 * signed text the same way. It depends on node:crypto only and can be copied into a client as is.
 *
 *   X-Signature-Timestamp: <unix seconds>
 *   X-Signature: v1=<hex HMAC-SHA256(signing_secret, "<timestamp>.<METHOD>.<path?query>.<hex sha256(body)>")>
 */
export const signatureHeader = 'x-signature';
export const signatureTimestampHeader = 'x-signature-timestamp';

export type SignableBody = string | Uint8Array | undefined;

export function signedText(timestamp: number | string, method: string, target: string, body: SignableBody): string {
  const bodyDigest = createHash('sha256')
    .update(body ?? '')
    .digest('hex');
  return `${timestamp}.${method.toUpperCase()}.${target}.${bodyDigest}`;
}

export function computeSignature(signingSecret: string, text: string): string {
  return createHmac('sha256', signingSecret).update(text).digest('hex');
}

/** The path and query a request line carries for `url` (an absolute URL or a path). */
function requestTarget(url: string | URL): string {
  if (typeof url === 'string' && url.startsWith('/')) return url;
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

export interface SignRequestInput {
  /** The key's `signing_secret` (hs_…), shown when the key was created or rotated. */
  signingSecret: string;
  method: string;
  /** The URL about to be requested, absolute or as a path with its query. */
  url: string | URL;
  /** The exact bytes that will be sent; omit for requests without a body. */
  body?: SignableBody;
  /** Defaults to now; the server accepts ±300 s. */
  timestamp?: number;
}

/**
 * Headers that sign one request. Each signature is accepted once, so sign every request (and
 * every retry) anew.
 *
 * @example
 *   const body = JSON.stringify(booking);
 *   const headers = signRequest({ signingSecret, method: 'POST', url, body });
 *   await fetch(url, { method: 'POST', body, headers: { ...headers, authorization: `Bearer ${key}`, 'content-type': 'application/json' } });
 */
export function signRequest(input: SignRequestInput): Record<'x-signature-timestamp' | 'x-signature', string> {
  const timestamp = input.timestamp ?? Math.floor(Date.now() / 1000);
  const text = signedText(timestamp, input.method, requestTarget(input.url), input.body);
  return {
    [signatureTimestampHeader]: String(timestamp),
    [signatureHeader]: `v1=${computeSignature(input.signingSecret, text)}`,
  };
}
