import { lookup as lookupCallback } from 'node:dns';
import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { settleWithin } from '../../shared/deadline.js';
import { AppError } from '../../shared/errors.js';

/** Global unicast IPv6 (2000::/3): every other IPv6 block is local, special or embeds an IPv4 address. */
const globalUnicastIPv6 = ipaddr.parseCIDR('2000::/3');

/**
 * Whether a webhook may connect to `address`: only global unicast addresses pass (an allow-list, so
 * a form nobody thought of is refused). An IPv4-mapped address is judged by the IPv4 it maps to;
 * the other IPv6 forms that embed or translate to an IPv4 address (IPv4-compatible, NAT64, 6to4,
 * Teredo, SIIT) are not 'unicast' ranges, so they are refused outright.
 */
function isPublicAddress(address: string): boolean {
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const ipv6 = parsed as ipaddr.IPv6;
  if (ipv6.isIPv4MappedAddress()) return isPublicAddress(ipv6.toIPv4Address().toString());
  return ipv6.range() === 'unicast' && ipv6.match(globalUnicastIPv6);
}

/**
 * A host that resolves inward and one that does not resolve fail alike, at delivery as when saved:
 * otherwise anyone whose DNS a receiver's host follows (a CNAME) could learn which internal names exist.
 */
const forbiddenAddressMessage = 'The host does not resolve to an address webhooks may be sent to (only public addresses can receive them).';

function invalidUrl(message: string): AppError {
  return new AppError('validation_failed', message, { fieldErrors: [{ field: 'url', code: 'invalid', message }] });
}

/** Parses a webhook URL: http(s), no credentials, at most 2,048 characters. */
export function parseWebhookUrl(text: string): URL {
  if (text.length > 2048) throw invalidUrl('url is longer than 2048 characters.');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalidUrl('url is not a valid URL.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalidUrl('url must use https (or http).');
  if (url.username || url.password) throw invalidUrl('url must not carry credentials.');
  return url;
}

/** How long saving an endpoint waits for the resolver to look its host up. */
export const destinationLookupDeadlineMs = 5_000;

/** The addresses `host` resolves to, none when it does not resolve; 'unanswered' when the resolver gave no answer (a temporary failure, or none within the deadline). */
async function addressesOf(host: string): Promise<string[] | 'unanswered'> {
  const looked = lookup(host, { all: true }).then(
    (entries) => entries.map((entry) => entry.address),
    (error: unknown) => ((error as { code?: unknown }).code === 'EAI_AGAIN' ? ('unanswered' as const) : []),
  );
  return settleWithin(looked, destinationLookupDeadlineMs, () => 'unanswered' as const);
}

/** Refuses URLs whose host resolves to anything but public addresses (checked when an endpoint is saved). */
export async function assertPublicDestination(url: URL, allowPrivate: boolean): Promise<void> {
  if (allowPrivate) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = ipaddr.isValid(host) ? [host] : await addressesOf(host);
  // The resolver's failure, not the URL's: worth trying again as it is.
  if (addresses === 'unanswered') {
    throw new AppError('service_unavailable', `The address of url's host ${host} could not be looked up now; retry shortly.`, { headers: { 'retry-after': '5' } });
  }
  // A host that does not resolve and one that resolves inward get the same answer, so that saving
  // endpoints cannot tell which internal names exist. How to allow private addresses is said here,
  // where someone trying webhooks on their own machine looks.
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) {
    throw invalidUrl(
      "url's host does not resolve to a public address (only public addresses can receive webhooks): check that the host exists. To send webhooks to local or private addresses (local development), start the server with WEBHOOK_ALLOW_PRIVATE=1.",
    );
  }
}

/**
 * The socket's own DNS lookup, refusing forbidden answers: the check applies to the very address
 * connected to, so a host that re-resolves to a private address after it was saved (DNS rebinding)
 * is refused too.
 */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  lookupCallback(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    if (addresses.length === 0 || !addresses.every((entry) => isPublicAddress(entry.address))) {
      return callback(Object.assign(new Error(forbiddenAddressMessage), { code: 'EFORBIDDEN' }), []);
    }
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};

const failureTexts: Record<string, string> = {
  EFORBIDDEN: forbiddenAddressMessage,
  ENOTFOUND: forbiddenAddressMessage,
  EAI_AGAIN: 'The host could not be resolved (temporary DNS failure).',
  ECONNREFUSED: 'The connection was refused.',
  ECONNRESET: 'The connection was reset.',
  EHOSTUNREACH: 'The host is unreachable.',
  ENETUNREACH: 'The network is unreachable.',
  ETIMEDOUT: 'The connection timed out.',
  EPIPE: 'The connection was closed while sending.',
};

/**
 * What a failed request is recorded (and shown to the client) as. Node's own messages name the
 * address connected to ("connect ECONNREFUSED 10.0.0.5:443"), which would tell a client what its
 * host resolves to inside our network, so only the error code is kept.
 */
export function describeDeliveryFailure(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return 'The request failed.';
  return failureTexts[code] ?? `The request failed (${code}).`;
}

/**
 * The most of a receiver's answer body that is read. Only the status decides an attempt, so the body
 * is read just to let a short answer finish cleanly (its connection can then be reused); a longer one
 * is cut here, so no receiver makes the gateway read more than this.
 */
export const maxAnswerBodyBytes = 64 * 1024;

/**
 * POSTs a webhook and resolves with the response status once the answer is over: its body read to
 * the end or cut at maxAnswerBodyBytes or at `signal`, so the connection is finished with when this
 * resolves and an attempt holds its slot until then. Redirects are not followed. `signal` bounds
 * everything, DNS included; once the status has arrived it cuts the body rather than fail the request.
 */
export function postWebhook(url: URL, headers: Record<string, string>, body: string, options: { allowPrivate: boolean; signal: AbortSignal }): Promise<number> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // An IP literal is connected to without a lookup, so it is checked here.
  if (!options.allowPrivate && ipaddr.isValid(host) && !isPublicAddress(host)) {
    return Promise.reject(Object.assign(new Error(forbiddenAddressMessage), { code: 'EFORBIDDEN' }));
  }
  return new Promise((resolve, reject) => {
    let status: number | undefined;
    const request = (url.protocol === 'https:' ? https : http).request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        signal: options.signal,
        ...(options.allowPrivate ? {} : { lookup: publicOnlyLookup }),
      },
      (response) => {
        status = response.statusCode ?? 0;
        let bodyBytes = 0;
        response.on('data', (chunk: Buffer) => {
          bodyBytes += chunk.length;
          if (bodyBytes > maxAnswerBodyBytes) request.destroy();
        });
      },
    );
    request.on('error', (error) => {
      // After the status, an error is the body being cut (by the bound or the deadline): the answer stands.
      if (status === undefined) reject(error);
    });
    // 'close' comes once the answer is complete or the connection is gone, never before the status is settled.
    request.on('close', () => {
      if (status !== undefined) resolve(status);
    });
    request.end(body);
  });
}
