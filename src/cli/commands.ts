import { webhookEventTypes, type WebhookEventType } from '../events/kinds.js';
import type { HttpMethod } from '../rest/route.js';

/** One call of a REST route: an operator's (/v1/admin) or, for trigger, an account's. */
export interface AdminRequest {
  method: HttpMethod;
  /** A route path template, e.g. /v1/admin/api_keys/:id */
  route: string;
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: Record<string, unknown>;
  /** A list: every page of it is read, not its first. */
  wholeList?: true;
}

export type Options = Record<string, string | boolean | string[] | undefined>;

export class UsageError extends Error {
  override name = 'UsageError';
}

export const usage = `Usage: hallowgate <command> [options]

Commands:
  accounts create --name <name>
  accounts list                      (every list command prints the whole list, read 100 a page)
  keys create --account <acct_…> --plan <free|pro|business|enterprise> --scopes <scope,…>
              [--name <name>] [--origins <origin,…>] [--ip <cidr,…>] [--promo] [--require-signature]
  keys list [--account <acct_…>]
  keys revoke <key_…>
  keys rotate <key_…>
  widget-tokens create --account <acct_…> --origins <origin,…> [--rate-limit <per minute>] [--name <name>]
                       [--booking]   (the widget may also hold, book and join waitlists)
  widget-tokens list [--account <acct_…>]
  widget-tokens revoke <wt_…>
  services create --attraction <at_…> --name <name> --duration <minutes> --capacity <places>
                  --timezone <IANA zone> --slot-minutes <minutes> --season-start <YYYY-MM-DD>
                  --season-end <YYYY-MM-DD> --hours '<days> <HH:MM>-<HH:MM>' [--hours …]
  services update <svc_…> [any option of services create; --hours replaces every opening]
  services list [--attraction <at_…>]
  attractions place <at_…> --lat=<degrees> --lng=<degrees>   where near searches find it (write
                                                            negative degrees after =: --lng=-70.9)

Testing webhooks (through a running server, with an API key of the account):
  trigger <event> --endpoint <we_…>   sends the endpoint a signed test event ("test": true) of a kind:
                                      booking.created, booking.updated, booking.cancelled, waitlist.offered,
                                      api_key.usage_alert
  listen --forward-to <url> [--events <booking.created,…>] [--after <msg_…>]
                                      forwards the account's booking events to a local URL, signed with
                                      the secret it prints; resumes where it stopped (.data/listen-<acct_…>.json)
  --server <url>                      the server (or HALLOWGATE_URL; http://localhost:4000 by default)
  --api-key <KEY_ID>.<SECRET>         the account's key (or HALLOWGATE_API_KEY): webhooks:manage for
                                      trigger, bookings:read for booking events

Where the operator commands run:
  --server <url> --admin-key <KEY_ID>.<SECRET>   through a running server's /v1/admin routes
                                                 (or HALLOWGATE_URL and ADMIN_API_KEY); the key
                                                 is the ADMIN_API_KEY the server was started with
  --timeout <seconds>                            how long the server may take to answer (default 30)
  otherwise                                      directly against the database: DATABASE_URL, or
                                                 the embedded one (./.data/pglite) when it is unset

Scopes: bookings:read, bookings:write, bookings:book, webhooks:manage, directory:read, analytics:read, admin.
Opening hours: days are mon … sun (or 1 … 7), lists and ranges such as mon-thu,sun, or daily;
times are local to --timezone, and a closing time before the opening time is after midnight:
  --hours 'thu,sun 19:00-23:00' --hours 'fri-sat 19:00-01:00'
Output is the JSON the REST route answers. Keys and signing secrets are shown only once.`;

/** The flags the commands take, for node:util parseArgs. */
export const optionSpec = {
  server: { type: 'string' },
  'admin-key': { type: 'string' },
  timeout: { type: 'string' },
  name: { type: 'string' },
  account: { type: 'string' },
  plan: { type: 'string' },
  scopes: { type: 'string' },
  origins: { type: 'string' },
  ip: { type: 'string' },
  promo: { type: 'boolean' },
  'require-signature': { type: 'boolean' },
  booking: { type: 'boolean' },
  'rate-limit': { type: 'string' },
  attraction: { type: 'string' },
  duration: { type: 'string' },
  capacity: { type: 'string' },
  timezone: { type: 'string' },
  'slot-minutes': { type: 'string' },
  'season-start': { type: 'string' },
  'season-end': { type: 'string' },
  hours: { type: 'string', multiple: true },
  endpoint: { type: 'string' },
  'api-key': { type: 'string' },
  'forward-to': { type: 'string' },
  events: { type: 'string' },
  after: { type: 'string' },
  lat: { type: 'string' },
  lng: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export function list(value: Options[string]): string[] | undefined {
  return typeof value === 'string'
    ? value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean)
    : undefined;
}

function text(value: Options[string]): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A whole number as a number; anything else as given, for the server to refuse by name. */
function integer(value: Options[string]): number | string | undefined {
  const given = text(value);
  return given !== undefined && /^-?\d{1,9}$/.test(given) ? Number(given) : given;
}

/** A decimal number as JSON sends it; anything else goes as text, for the server to refuse by name. */
function decimal(value: Options[string]): number | string | undefined {
  const given = text(value);
  return given !== undefined && /^-?\d{1,3}(\.\d{1,12})?$/.test(given) ? Number(given) : given;
}

const weekdayNames = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

/** `mon`, `7`, `mon-thu`, `fri,sat`, `daily` as ISO weekdays (1 = Monday). */
function weekdays(days: string): number[] {
  if (days === 'daily') return [1, 2, 3, 4, 5, 6, 7];
  const day = (name: string) => {
    const index = /^[1-7]$/.test(name) ? Number(name) : weekdayNames.indexOf(name.slice(0, 3)) + 1;
    if (index < 1) throw new UsageError(`"${name}" is no weekday: use mon … sun or 1 … 7.`);
    return index;
  };
  return days.split(',').flatMap((part) => {
    const [from, to] = part.split('-');
    if (to === undefined) return [day(from!)];
    const [first, last] = [day(from!), day(to)];
    return Array.from({ length: ((last - first + 7) % 7) + 1 }, (_, offset) => ((first - 1 + offset) % 7) + 1);
  });
}

/** `--hours 'fri-sat 19:00-01:00'` (repeatable) as opening_hours; the times go as written, for the server to check. */
function openingHours(value: Options[string]): { weekday: number; opens: string; closes: string }[] | undefined {
  if (value === undefined) return undefined;
  return (Array.isArray(value) ? value : [String(value)]).flatMap((entry) => {
    const match = /^\s*(\S+)\s+([^-\s]+)-([^-\s]+)\s*$/.exec(entry.toLowerCase());
    if (!match) throw new UsageError(`--hours "${entry}" must look like 'fri-sat 19:00-01:00'.`);
    return weekdays(match[1]!).map((weekday) => ({ weekday, opens: match[2]!, closes: match[3]! }));
  });
}

function serviceFields(options: Options): Record<string, unknown> {
  return given({
    attraction_id: text(options['attraction']),
    name: text(options['name']),
    duration_minutes: integer(options['duration']),
    capacity: integer(options['capacity']),
    timezone: text(options['timezone']),
    slot_minutes: integer(options['slot-minutes']),
    season_start: text(options['season-start']),
    season_end: text(options['season-end']),
    opening_hours: openingHours(options['hours']),
  });
}

/** Drops options that were not given, so the server applies its defaults and reports what is missing. */
function given(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

function idArgument(positionals: string[], what: string): Record<string, string> {
  const [group, command, id, ...extra] = positionals;
  if (!id) throw new UsageError(`Give the ${what} id: hallowgate ${group} ${command} <id>`);
  // One id a command: a second would otherwise be left undone while the command says it succeeded.
  if (extra.length > 0) throw new UsageError(`Give one ${what} id at a time: hallowgate ${group} ${command} <id> (not also ${extra.join(' ')})`);
  return { id };
}

function accountFilter(options: Options): Record<string, string> {
  const account = text(options['account']);
  return account ? { account_id: account } : {};
}

/** The kinds `--events` and `trigger` take, checked here so a typo is named before anything is sent. */
export function eventKinds(given: string[], allowed: readonly string[], where: string): WebhookEventType[] {
  const unknown = given.filter((kind) => !allowed.includes(kind));
  if (unknown.length > 0) throw new UsageError(`${where} takes ${allowed.join(', ')}; not ${unknown.join(', ')}.`);
  return given as WebhookEventType[];
}

/** `trigger booking.cancelled --endpoint we_…` as the REST request that sends the test event. */
export function triggerRequestFor(positionals: string[], options: Options): AdminRequest {
  const [, event, extra] = positionals;
  if (!event || extra !== undefined) throw new UsageError(`Give one event kind: hallowgate trigger <${webhookEventTypes.join('|')}> --endpoint <we_…>`);
  const endpoint = text(options['endpoint']);
  if (!endpoint) throw new UsageError('Give the endpoint to send it to: --endpoint <we_…> (GET /v1/webhook_endpoints lists them).');
  eventKinds([event], webhookEventTypes, 'trigger');
  return { method: 'POST', route: '/v1/webhook_endpoints/:id/test', params: { id: endpoint }, body: { event } };
}

/** Turns `keys create --plan pro …` into the admin REST request it stands for. */
export function adminRequestFor(positionals: string[], options: Options): AdminRequest {
  const [resource, action] = positionals;
  switch (`${resource} ${action}`) {
    case 'accounts create':
      return { method: 'POST', route: '/v1/admin/accounts', body: given({ name: text(options['name']) }) };
    case 'accounts list':
      return { method: 'GET', route: '/v1/admin/accounts', wholeList: true };
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
      return { method: 'GET', route: '/v1/admin/api_keys', query: accountFilter(options), wholeList: true };
    case 'keys revoke':
      return { method: 'DELETE', route: '/v1/admin/api_keys/:id', params: idArgument(positionals, 'key') };
    case 'keys rotate':
      return { method: 'POST', route: '/v1/admin/api_keys/:id/rotate', params: idArgument(positionals, 'key') };
    case 'widget-tokens create':
      return {
        method: 'POST',
        route: '/v1/admin/widget_tokens',
        body: given({
          account_id: text(options['account']),
          allowed_origins: list(options['origins']),
          rate_limit_per_minute: integer(options['rate-limit']),
          name: text(options['name']),
          allow_booking: options['booking'],
        }),
      };
    case 'widget-tokens list':
      return { method: 'GET', route: '/v1/admin/widget_tokens', query: accountFilter(options), wholeList: true };
    case 'widget-tokens revoke':
      return { method: 'DELETE', route: '/v1/admin/widget_tokens/:id', params: idArgument(positionals, 'widget token') };
    case 'services create':
      return { method: 'POST', route: '/v1/admin/services', body: serviceFields(options) };
    case 'services update':
      return { method: 'PATCH', route: '/v1/admin/services/:id', params: idArgument(positionals, 'service'), body: serviceFields(options) };
    case 'services list': {
      const attraction = text(options['attraction']);
      return { method: 'GET', route: '/v1/services', query: attraction ? { attraction_id: attraction } : {}, wholeList: true };
    }
    case 'attractions place':
      return {
        method: 'PATCH',
        route: '/v1/admin/attractions/:id',
        params: idArgument(positionals, 'attraction'),
        body: given({ latitude: decimal(options['lat']), longitude: decimal(options['lng']) }),
      };
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
