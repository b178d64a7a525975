import type { Plan } from '../generated/prisma/client.js';
import { AppError } from '../shared/errors.js';

export const scopes = ['bookings:read', 'bookings:write', 'bookings:book', 'webhooks:manage', 'directory:read', 'analytics:read', 'admin'] as const;

export type Scope = (typeof scopes)[number];

/** The account of the operator key (ADMIN_API_KEY), and of that key alone. */
export const operatorAccountId = 'acct_operator';

export function isScope(value: string): value is Scope {
  return (scopes as readonly string[]).includes(value);
}

/** Who is calling: an API key, or a public widget token that reads the directory and services' availability (and, if its operator allowed it, books). */
export type Principal =
  | {
      kind: 'api_key';
      keyId: string;
      accountId: string;
      scopes: readonly Scope[];
      plan: Plan;
      promo: boolean;
      /** When the key stops working; its open connections end then too. */
      expiresAt: Date | null;
      /** The stored hash of the secret it was verified with: once the key is rotated, what was opened with the old secret ends. */
      secretHash: string;
    }
  | {
      kind: 'widget_token';
      tokenId: string;
      accountId: string;
      rateLimitPerMinute: number;
      allowBooking: boolean;
    };

/** The id that names a principal's credential: its `key_…` or `wt_…`. */
export function credentialIdOf(principal: Principal): string {
  return principal.kind === 'api_key' ? principal.keyId : principal.tokenId;
}

const widgetScopes: readonly Scope[] = ['directory:read'];
/**
 * bookings:book holds, releases a hold, books a hold and joins a waitlist: what a visitor does on a
 * public page, never reading what others booked. Every widget token reads a service and its
 * availability, which are public (the `widgetToken` auth scope of src/graphql/builder.ts).
 */
const bookingWidgetScopes: readonly Scope[] = ['directory:read', 'bookings:book'];

export function grantedScopes(principal: Principal): readonly Scope[] {
  if (principal.kind === 'api_key') return principal.scopes;
  return principal.allowBooking ? bookingWidgetScopes : widgetScopes;
}

/** Widget tokens are public, so they never act as an API key: they have only their own narrow scopes. */
export function isApiKey(principal: Principal | null): principal is Extract<Principal, { kind: 'api_key' }> {
  return principal?.kind === 'api_key';
}

/** The `admin` scope implies every other scope. */
export function hasScope(principal: Principal | null, scope: Scope): boolean {
  if (!principal) return false;
  const granted = grantedScopes(principal);
  return granted.includes('admin') || granted.includes(scope);
}

/** What a field asks of its caller (the schema's `authScopes`): any one of these admits. */
export interface AuthScopes {
  scope?: Scope;
  anyScope?: readonly Scope[];
  /** An API key of any scope. */
  authenticated?: boolean;
  /** Any widget token. */
  widgetToken?: boolean;
}

/** How each kind of need is met by `principal`: the schema's scope checks, and REST's before it reads a request's input. */
export function scopeChecksFor(principal: Principal | null) {
  return {
    authenticated: isApiKey(principal),
    widgetToken: principal?.kind === 'widget_token',
    scope: (scope: Scope) => hasScope(principal, scope),
    anyScope: (wanted: readonly Scope[]) => wanted.some((scope) => hasScope(principal, scope)),
  };
}

/** Whether `principal` meets any of `needs`. */
export function meetsAuthScopes(principal: Principal | null, needs: AuthScopes): boolean {
  const checks = scopeChecksFor(principal);
  return (
    (needs.authenticated === true && checks.authenticated) ||
    (needs.widgetToken === true && checks.widgetToken) ||
    (needs.scope !== undefined && checks.scope(needs.scope)) ||
    (needs.anyScope !== undefined && checks.anyScope(needs.anyScope))
  );
}

/**
 * 403 for a caller that lacks `missing` (any one of them would do), naming them in the message and,
 * for REST, in WWW-Authenticate (RFC 6750). No scope named: the caller is a widget token and the
 * request needs an API key.
 */
export function insufficientScope(missing: readonly Scope[], why?: string): AppError {
  const need =
    missing.length > 0
      ? `This needs the ${missing.join(' or ')} scope.`
      : why
        ? 'This needs an API key.'
        : "This needs an API key; widget tokens read only the directory and services' availability.";
  const message = why ? `${why} ${need}` : need;
  const challenge = missing.length > 0 ? `Bearer error="insufficient_scope", scope="${missing.join(' ')}"` : 'Bearer error="insufficient_scope"';
  return new AppError('insufficient_scope', message, { headers: { 'www-authenticate': challenge } });
}
