import { lookup as lookupCallback } from 'node:dns';
import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { AppError } from '../../shared/errors.js';

/** Ranges a webhook must never reach: the server's own network and cloud metadata services. */
const forbiddenRanges = new Set([
  'unspecified', 'broadcast', 'multicast', 'linkLocal', 'loopback', 'private', 'uniqueLocal', 'carrierGradeNat', 'reserved', 'ipv4Mapped',
]);

function isForbidden(address: string): boolean {
  const parsed = ipaddr.parse(address);
  const range = parsed.range();
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) return isForbidden((parsed as ipaddr.IPv6).toIPv4Address().toString());
  return forbiddenRanges.has(range);
}

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

/** Refuses URLs whose host resolves to a private, loopback or link-local address (checked when an endpoint is saved). */
export async function assertPublicDestination(url: URL, allowPrivate: boolean): Promise<void> {
  if (allowPrivate) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = ipaddr.isValid(host) ? [host] : (await lookup(host, { all: true })).map((entry) => entry.address);
  } catch {
    throw invalidUrl(`url's host ${host} does not resolve.`);
  }
  if (addresses.length === 0 || addresses.some(isForbidden)) {
    throw invalidUrl(`url's host ${host} resolves to a private, loopback or link-local address.`);
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
    const forbidden = addresses.find((entry) => isForbidden(entry.address));
    if (addresses.length === 0 || forbidden) {
      return callback(Object.assign(new Error(`${hostname} resolves to a forbidden address${forbidden ? ` (${forbidden.address})` : ''}.`), { code: 'EFORBIDDEN' }), []);
    }
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};

/**
 * POSTs a webhook and resolves with the response status (the body is drained, unread). Redirects are
 * not followed. `signal` bounds everything, DNS included.
 */
export function postWebhook(url: URL, headers: Record<string, string>, body: string, options: { allowPrivate: boolean; signal: AbortSignal }): Promise<number> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // An IP literal is connected to without a lookup, so it is checked here.
  if (!options.allowPrivate && ipaddr.isValid(host) && isForbidden(host)) {
    return Promise.reject(new Error(`${host} is a forbidden address.`));
  }
  return new Promise((resolve, reject) => {
    const request = (url.protocol === 'https:' ? https : http).request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        signal: options.signal,
        ...(options.allowPrivate ? {} : { lookup: publicOnlyLookup }),
      },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
