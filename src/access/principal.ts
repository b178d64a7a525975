import type { Plan } from '../generated/prisma/client.js';

export const scopes = [
  'bookings:read',
  'bookings:write',
  'webhooks:manage',
  'directory:read',
  'analytics:read',
  'admin',
] as const;

export type Scope = (typeof scopes)[number];

export function isScope(value: string): value is Scope {
  return (scopes as readonly string[]).includes(value);
}

/** Who is calling: an API key, or a public widget token that may only read the directory. */
export type Principal =
  | {
      kind: 'api_key';
      keyId: string;
      accountId: string;
      scopes: readonly Scope[];
      plan: Plan;
      promo: boolean;
    }
  | {
      kind: 'widget_token';
      tokenId: string;
      accountId: string;
      rateLimitPerMinute: number;
    };

const widgetScopes: readonly Scope[] = ['directory:read'];

export function grantedScopes(principal: Principal): readonly Scope[] {
  return principal.kind === 'api_key' ? principal.scopes : widgetScopes;
}

/** The `admin` scope implies every other scope. */
export function hasScope(principal: Principal | null, scope: Scope): boolean {
  if (!principal) return false;
  const granted = grantedScopes(principal);
  return granted.includes('admin') || granted.includes(scope);
}
