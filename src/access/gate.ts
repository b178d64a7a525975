import { ConfigurationError, deadlineDefaults } from '../config.js';
import type { AppServices } from '../graphql/context.js';
import { AppError, echoed } from '../shared/errors.js';
import { connectRedis, redisHealth, untilReady } from '../shared/redis.js';
import { authenticate, presentedKeyId, type Credential } from './authenticate.js';
import { corsGrantHeaders, grantIfOrigin, preflightHeaders, requestOriginOf, type RequestOrigin } from './cors.js';
import { wasRecentlyFound } from './credential-cache.js';
import { clientBlockOf, createClientAddressResolver, isInRanges, parseRange, type AddressRange } from './network.js';
import { hashSecret, parseApiKey } from './keys.js';
import { credentialIdOf, type Principal } from './principal.js';
import { createRateLimiter, failedAuthenticationsPerMinute, limitFor, perClientLimitFor, rateLimitHeaders, type RateLimitStatus } from './rate-limit.js';
import { checkSignature, createMemoryReplayGuard, createRedisReplayGuard } from './signature-check.js';

/** The parts of an HTTP request that access rules look at. */
export interface GateRequest {
  method: string;
  /** Path and query exactly as sent, e.g. /v1/bookings?limit=5 */
  target: string;
  headers: Record<string, string | string[] | undefined>;
  remoteAddress: string;
  body: Buffer;
}

export interface Admission {
  principal: Principal | null;
  /** The calling client's address (through TRUSTED_PROXIES), which some limits are counted per. */
  clientAddress: string;
  /** Headers every response to this request carries (rate-limit status, CORS). */
  headers: Record<string, string>;
}

export interface AccessGate {
  /**
   * Decides whether a request may proceed, in this order: credential (401), origin (403
   * origin_not_allowed), client address (403 ip_not_allowed), signature (401), rate limit (429).
   * A client address with too many failed authentications this minute gets 429 instead of a credential
   * lookup, and a key id with too many from that address gets 429 whatever its secret.
   * Throws AppError when not; the error carries the headers its response needs.
   */
  admit(request: GateRequest): Promise<Admission>;
  /** Counts one more operation of an already admitted caller (a WebSocket subscribe); throws 429 when over. */
  meter(admission: Admission): Promise<void>;
  /** Response headers for a CORS preflight; null when the request is not one. */
  preflight(headers: GateRequest['headers']): Record<string, string> | null;
  /** Whether the Redis that shares counters and nonces answers within `deadlineMs`. */
  redisHealth(deadlineMs: number): Promise<'ok' | 'degraded' | 'not_configured'>;
  /** Waits at most `deadlineMs` for that Redis to be connected; false when it was not (counting is then per instance until it is). */
  untilRedisReady(deadlineMs: number): Promise<boolean>;
  close(): Promise<void>;
}

export interface AccessGateOptions {
  /** Shares rate-limit counters and seen signatures between instances. */
  redisUrl?: string | undefined;
  /** How long a request waits for a Redis command before it counts in memory (rate limits) or is refused 503 (signed requests). */
  redisCommandTimeoutMs?: number;
  /** Comma-separated CIDRs of proxies whose X-Forwarded-For is believed. */
  trustedProxies?: string;
  /** Told of every request refused for its rate limit, with the credential's plan (for metrics). */
  onRateLimited?(plan: string): void;
}

function header(request: GateRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function parseTrustedProxies(text: string): AddressRange[] {
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const range = parseRange(entry);
      if (!range) throw new ConfigurationError(`TRUSTED_PROXIES has "${entry}", which is not an IP address or CIDR`);
      return range;
    });
}

/** Swallows a rate-limit refusal (the count was still taken), rethrows anything else. */
function unlessOverLimit(error: unknown): void {
  if (!(error instanceof AppError && error.code === 'rate_limited')) throw error;
}

/** Refusals keep the CORS grant the request earned, so a permitted page can read why it was refused. */
function withHeaders(error: unknown, headers: Record<string, string>): unknown {
  if (error instanceof AppError) Object.assign(error.headers, headers);
  return error;
}

/** Refusals of a verified credential (its origin, address, signature, rate limit), by the principal refused. */
const refusedPrincipals = new WeakMap<object, Principal>();

/** The principal a refusal turned away after verifying its key (so its usage counts the refusal); undefined for any other error. */
export function refusedPrincipalOf(error: unknown): Principal | undefined {
  return typeof error === 'object' && error !== null ? refusedPrincipals.get(error) : undefined;
}

export function createAccessGate(services: AppServices, options: AccessGateOptions = {}): AccessGate {
  const adminApiKey = services.config.ADMIN_API_KEY === undefined ? undefined : parseApiKey(services.config.ADMIN_API_KEY);
  const operatorKey = adminApiKey ? { id: adminApiKey.keyId, secretHash: hashSecret(adminApiKey.secret) } : undefined;
  const clientAddress = createClientAddressResolver(parseTrustedProxies(options.trustedProxies ?? ''));
  const redis = options.redisUrl ? connectRedis(options.redisUrl, { commandTimeoutMs: options.redisCommandTimeoutMs ?? deadlineDefaults.REDIS_COMMAND_TIMEOUT_MS }) : undefined;
  redis?.on('error', (error: Error) => services.logger.warn({ err: error }, 'access gate: Redis error'));
  const rateLimiter = createRateLimiter(redis);
  const replayGuard = redis ? createRedisReplayGuard(redis) : createMemoryReplayGuard();

  async function rateLimitStatus(principal: Principal, address: string, now: Date): Promise<RateLimitStatus> {
    const { limit, bypassed } = limitFor(principal, now);
    if (bypassed) return rateLimiter.bypassedStatus(limit, now);
    const perClientLimit = perClientLimitFor(principal);
    try {
      // The client's share first, so a client over it spends nothing of the budget it shares with others.
      if (perClientLimit !== null) await rateLimiter.take(`${credentialIdOf(principal)}@${clientBlockOf(address)}`, perClientLimit, now);
      return await rateLimiter.take(credentialIdOf(principal), limit, now);
    } catch (error) {
      if (error instanceof AppError && error.code === 'rate_limited') options.onRateLimited?.(principal.kind === 'api_key' ? principal.plan : 'widget_token');
      throw error;
    }
  }

  /** Who may read the response from a browser: only an origin the credential lists, or a same-origin page. */
  function corsFor({ crossOrigin, sameOrigin }: RequestOrigin, credential: Credential): Record<string, string> {
    const listed = crossOrigin !== null && credential.allowedOrigins.includes(crossOrigin);
    // Widget tokens are public, so their origins are their only binding; keys that list origins are bound to them too.
    const refused = credential.principal.kind === 'widget_token' ? !sameOrigin && !listed : crossOrigin !== null && credential.allowedOrigins.length > 0 && !listed;
    if (refused && credential.principal.kind === 'widget_token' && crossOrigin !== null) {
      // A widget token is public, and so are the sites it is on: the refused page may read why (the
      // site owner sees it in the widget and the console, not a network failure).
      const allowed = credential.allowedOrigins.length > 0 ? `it allows ${credential.allowedOrigins.join(', ')}` : 'it allows no page origins';
      throw new AppError('origin_not_allowed', `Pages of ${echoed(crossOrigin)} are not allowed to use this widget token; ${allowed}.`, { headers: grantIfOrigin(crossOrigin) });
    }
    if (refused) {
      throw new AppError('origin_not_allowed', `Requests from ${crossOrigin === null ? 'pages without an Origin' : echoed(crossOrigin)} are not allowed for this credential.`);
    }
    return listed ? corsGrantHeaders(crossOrigin) : {};
  }

  /**
   * Failed authentications count per client address, and per address and key id. Past the address's
   * limit, a credential that would need a database lookup is refused before it, unless it is one this
   * process found lately (so a flood of made-up credentials costs no database work, and good keys
   * from the same address still work). Past the limit of one key id from an address, that key is
   * refused whatever secret comes with it, so the answer never tells a right guess from a wrong one.
   * A right secret is weighed against that count once it is verified, after the guesses sent with it
   * have been counted: a burst of guesses sent at once gets no more verdicts than the limit.
   */
  async function authenticateFrom(address: string, authorization: string | undefined, now: Date): Promise<Credential | null> {
    const failures = `failed-authentications@${clientBlockOf(address)}`;
    const keyId = presentedKeyId(authorization);
    const keyFailures = keyId === undefined ? undefined : `${failures}/${keyId}`;
    const beforeLookup = async (id: string) => {
      if (wasRecentlyFound(id)) return;
      const refusal = await rateLimiter.refusal(failures, failedAuthenticationsPerMinute, now);
      if (refusal) throw refusal;
    };
    const outcome = await authenticate(services.prisma, services.secrets, authorization, now, beforeLookup, operatorKey).then(
      (credential) => ({ credential }),
      (error: unknown) => ({ error }),
    );
    if ('credential' in outcome) {
      const keyRefusal = keyFailures === undefined ? null : await rateLimiter.refusal(keyFailures, failedAuthenticationsPerMinute, now);
      if (keyRefusal) throw keyRefusal;
      return outcome.credential;
    }
    if (outcome.error instanceof AppError && outcome.error.code === 'unauthenticated') {
      const addressCount = rateLimiter.take(failures, failedAuthenticationsPerMinute, now);
      // A recently found key id is verified past its address's limit (other keys behind that address
      // keep working), so its own counter alone may refuse it: were the address's 429 to answer its
      // wrong secrets while the right one gets 200, that limit would still tell right from wrong.
      const addressRefusal = keyId !== undefined && wasRecentlyFound(keyId) ? addressCount.catch(unlessOverLimit) : addressCount;
      await Promise.all([addressRefusal, keyFailures && rateLimiter.take(keyFailures, failedAuthenticationsPerMinute, now)]);
    }
    throw outcome.error;
  }

  async function admitCredential(request: GateRequest, origin: RequestOrigin, credential: Credential, address: string, now: Date): Promise<Admission> {
    let cors: Record<string, string> = {};
    try {
      cors = corsFor(origin, credential);
      if (credential.ipAllowlist && !isInRanges(address, credential.ipAllowlist)) {
        throw new AppError('ip_not_allowed', `Requests from ${echoed(address)} are not allowed for this key.`);
      }
      if (credential.signing) {
        await checkSignature(credential.signing, { ...request, header: (name) => header(request, name) }, now, replayGuard);
      }
      const status = await rateLimitStatus(credential.principal, address, now);
      return { principal: credential.principal, clientAddress: address, headers: { ...rateLimitHeaders(status), ...cors } };
    } catch (error) {
      if (error instanceof AppError) refusedPrincipals.set(error, credential.principal);
      throw withHeaders(error, cors);
    }
  }

  return {
    async admit(request) {
      const now = services.clock();
      // Anonymous answers and refusals of unknown credentials hold nothing private, so any page may read them.
      const origin = requestOriginOf(request.headers);
      const publicCors = origin.crossOrigin ? grantIfOrigin(origin.crossOrigin) : {};
      const address = clientAddress(request.remoteAddress, header(request, 'x-forwarded-for'));
      let credential: Credential | null;
      try {
        credential = await authenticateFrom(address, header(request, 'authorization'), now);
      } catch (error) {
        throw withHeaders(error, publicCors);
      }
      if (!credential) return { principal: null, clientAddress: address, headers: publicCors };
      return admitCredential(request, origin, credential, address, now);
    },
    async meter({ principal, clientAddress: address }) {
      if (principal) await rateLimitStatus(principal, address, services.clock());
    },
    preflight: preflightHeaders,
    redisHealth: async (deadlineMs) => (redis ? redisHealth(redis, deadlineMs) : 'not_configured'),
    untilRedisReady: async (deadlineMs) => (redis ? untilReady(redis, deadlineMs) : true),
    async close() {
      await redis?.quit().catch(() => redis.disconnect());
    },
  };
}
