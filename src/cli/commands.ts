import type { HttpMethod } from '../rest/routes.js';

/** One operator call, in the terms of the /v1/admin REST routes. */
export interface AdminRequest {
  method: HttpMethod;
  /** A route path template, e.g. /v1/admin/api_keys/:id */
  route: string;
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: Record<string, unknown>;
}

export type Options = Record<string, string | boolean | undefined>;

export class UsageError extends Error {
  override name = 'UsageError';
}

export const usage = `Usage: hallowgate <command> [options]

Commands:
  accounts create --name <name>
  accounts list
  keys create --account <acct_…> --plan <free|pro|business|enterprise> --scopes <scope,…>
              [--name <name>] [--origins <origin,…>] [--ip <cidr,…>] [--promo] [--require-signature]
  keys list [--account <acct_…>]
  keys revoke <key_…>
  keys rotate <key_…>
  widget-tokens create --account <acct_…> --origins <origin,…> [--rate-limit <per minute>] [--name <name>]
  widget-tokens list [--account <acct_…>]
  widget-tokens revoke <wt_…>

Where the command runs:
  --server <url> --admin-key <KEY_ID>.<SECRET>   through a running server's /v1/admin routes
                                                 (or HALLOWGATE_URL and ADMIN_API_KEY)
  otherwise                                      directly against DATABASE_URL=postgres://…

Scopes: bookings:read, bookings:write, webhooks:manage, directory:read, analytics:read, admin.
Output is the JSON the REST route answers. Keys and signing secrets are shown only once.`;

/** The flags the commands take, for node:util parseArgs. */
export const optionSpec = {
  server: { type: 'string' },
  'admin-key': { type: 'string' },
  name: { type: 'string' },
  account: { type: 'string' },
  plan: { type: 'string' },
  scopes: { type: 'string' },
  origins: { type: 'string' },
  ip: { type: 'string' },
  promo: { type: 'boolean' },
  'require-signature': { type: 'boolean' },
  'rate-limit': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function list(value: string | boolean | undefined): string[] | undefined {
  return typeof value === 'string'
    ? value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean)
    : undefined;
}

function text(value: string | boolean | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Drops options that were not given, so the server applies its defaults and reports what is missing. */
function given(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

function idArgument(positionals: string[], what: string): Record<string, string> {
  const id = positionals[2];
  if (!id) throw new UsageError(`Give the ${what} id: hallowgate ${positionals[0]} ${positionals[1]} <id>`);
  return { id };
}

function accountFilter(options: Options): Record<string, string> {
  const account = text(options['account']);
  return account ? { account_id: account } : {};
}

/** Turns `keys create --plan pro …` into the admin REST request it stands for. */
export function adminRequestFor(positionals: string[], options: Options): AdminRequest {
  const [resource, action] = positionals;
  switch (`${resource} ${action}`) {
    case 'accounts create':
      return { method: 'POST', route: '/v1/admin/accounts', body: given({ name: text(options['name']) }) };
    case 'accounts list':
      return { method: 'GET', route: '/v1/admin/accounts' };
    case 'keys create':
      return {
        method: 'POST',
        route: '/v1/admin/api_keys',
        body: given({
          account_id: text(options['account']),
          plan: text(options['plan']),
          scopes: list(options['scopes']),
          name: text(options['name']),
          allowed_origins: list(options['origins']),
          ip_allowlist: list(options['ip']),
          promo: options['promo'],
          require_signature: options['require-signature'],
        }),
      };
    case 'keys list':
      return { method: 'GET', route: '/v1/admin/api_keys', query: accountFilter(options) };
    case 'keys revoke':
      return { method: 'DELETE', route: '/v1/admin/api_keys/:id', params: idArgument(positionals, 'key') };
    case 'keys rotate':
      return { method: 'POST', route: '/v1/admin/api_keys/:id/rotate', params: idArgument(positionals, 'key') };
    case 'widget-tokens create': {
      const rateLimit = text(options['rate-limit']);
      return {
        method: 'POST',
        route: '/v1/admin/widget_tokens',
        body: given({
          account_id: text(options['account']),
          allowed_origins: list(options['origins']),
          rate_limit_per_minute: rateLimit === undefined ? undefined : Number(rateLimit),
          name: text(options['name']),
        }),
      };
    }
    case 'widget-tokens list':
      return { method: 'GET', route: '/v1/admin/widget_tokens', query: accountFilter(options) };
    case 'widget-tokens revoke':
      return { method: 'DELETE', route: '/v1/admin/widget_tokens/:id', params: idArgument(positionals, 'widget token') };
    default:
      throw new UsageError(`Unknown command "${positionals.join(' ')}".\n\n${usage}`);
  }
}

/** The concrete path of a request, e.g. /v1/admin/api_keys/key_123/rotate?account_id=… */
export function pathOf(request: AdminRequest): string {
  const path = request.route.replace(/:([a-z_]+)/g, (_match, name: string) => encodeURIComponent(request.params?.[name] ?? ''));
  const query = new URLSearchParams(request.query ?? {}).toString();
  return query ? `${path}?${query}` : path;
}
