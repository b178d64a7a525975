/**
 * Errors every surface shares. Domain code throws AppError with a stable snake_case code;
 * GraphQL puts the code in `extensions.code`, REST turns it into RFC 9457 problem+json.
 */
export interface FieldError {
  field: string;
  code: string;
  message: string;
}

/** HTTP status for every stable error code: `code` in REST problem documents, `extensions.code` in GraphQL. */
export const statusForCode = {
  invalid_parameter: 400,
  invalid_json: 400,
  invalid_request: 400,
  unauthenticated: 401,
  signature_expired: 401,
  invalid_signature: 401,
  replayed_request: 401,
  insufficient_scope: 403,
  ip_not_allowed: 403,
  origin_not_allowed: 403,
  not_found: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  booking_cancelled: 409,
  slot_full: 409,
  hold_expired: 409,
  idempotency_key_in_use: 409,
  delivery_pending: 409,
  endpoint_busy: 409,
  endpoint_disabled: 409,
  key_revoked: 409,
  request_timeout: 408,
  precondition_failed: 412,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  expectation_failed: 417,
  validation_failed: 422,
  idempotency_key_reused: 422,
  too_many_endpoints: 422,
  too_many_alert_rules: 422,
  too_many_holds: 422,
  too_many_waitlist_entries: 422,
  rate_limited: 429,
  too_many_subscriptions: 429,
  headers_too_large: 431,
  query_too_complex: 400,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof statusForCode;

const titleForStatus: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  408: 'Request Timeout',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  417: 'Expectation Failed',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export function titleFor(status: number): string {
  return titleForStatus[status] ?? 'Error';
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly fieldErrors: FieldError[];
  /** Extra response headers the error implies (Retry-After, Allow, WWW-Authenticate). */
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: { fieldErrors?: FieldError[]; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.fieldErrors = options.fieldErrors ?? [];
    this.headers = options.headers ?? {};
  }

  get status(): number {
    return statusForCode[this.code];
  }
}

/** Client text as an error message repeats it: at most 64 characters, so an answer never echoes a huge input. */
export function echoed(text: string): string {
  return text.length > 64 ? `${text.slice(0, 64)}…` : text;
}

/**
 * A library's message (graphql-js, Yoga) with what it quotes of the client's input cut as `echoed`
 * cuts it: each quoted part, and each run of characters without a space, past 64 characters. Those
 * libraries quote a refused name or value whole, however long. One pass, whatever the message holds.
 */
export function withEchoesCut(message: string): string {
  let cut = '';
  let at = 0;
  for (;;) {
    const open = message.indexOf('"', at);
    if (open === -1) break;
    // Its closing quote: the next one not escaped; none, and the rest is cut by runs only.
    let close = open + 1;
    while (close < message.length && message[close] !== '"') close += message[close] === '\\' ? 2 : 1;
    if (close >= message.length) break;
    cut += `${message.slice(at, open)}"${echoed(message.slice(open + 1, close))}"`;
    at = close + 1;
  }
  return (cut + message.slice(at)).replace(/\S{65,}/g, echoed);
}

export function notFound(what: string, id: string): AppError {
  return new AppError('not_found', `No ${what} with id "${echoed(id)}".`);
}

/** 400 invalid_parameter naming one parameter (or argument), with the message for both. */
export function invalidParameter(parameter: string, message: string, code = 'invalid'): AppError {
  return new AppError('invalid_parameter', message, { fieldErrors: [{ field: parameter, code, message }] });
}

export function validationFailed(fieldErrors: FieldError[], message = 'The request has invalid fields.'): AppError {
  return new AppError('validation_failed', message, { fieldErrors });
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(statusForCode, value);
}

/**
 * Unreachable, out of room, or past a deadline (src/db/connection.ts): class 08 is a connection
 * PostgreSQL lost or refused, class 53 a server out of resources (53300: every connection slot
 * taken), 57014 a statement PostgreSQL cancelled at statement_timeout, 25P03 a transaction it ended
 * at idle_in_transaction_session_timeout, P2028 a Prisma transaction past its maxWait or timeout,
 * P2037 Prisma's word for too many connections, "Query read timeout" a server that did not answer.
 */
const unreachableDatabaseCodes = new Set([
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '08P01',
  '53000',
  '53100',
  '53200',
  '53300',
  '53400',
  'P2037',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  '57014',
  '57P01',
  '57P02',
  '57P03',
  '25P03',
  'P1001',
  'P1002',
  'P1008',
  'P1017',
  'P2024',
  'P2028',
]);
const unreachableDatabaseMessage =
  /connection terminated|connection ended unexpectedly|can't reach database server|timeout exceeded when trying to connect|terminating connection due to (administrator command|idle-in-transaction timeout)|the database system is (starting up|shutting down)|too many clients already|remaining connection slots are reserved|query read timeout|canceling statement due to statement timeout|client (was closed|has encountered a connection error) and is not queryable/i;

/**
 * A 503 for an error that means the database cannot be reached right now (a restart, a partition,
 * an exhausted pool, a hung server past a deadline), looked for through the error's causes;
 * undefined for any other error.
 */
export function databaseUnavailable(error: unknown): AppError | undefined {
  const unreachable = someCause(error, (cause) => {
    const code = (cause as { code?: unknown }).code;
    return (typeof code === 'string' && unreachableDatabaseCodes.has(code)) || unreachableDatabaseMessage.test(cause.message);
  });
  return unreachable ? databaseUnavailableError() : undefined;
}

/** What a request the database cannot serve now is answered: 503, to be retried shortly. */
export const databaseUnavailableError = () => new AppError('service_unavailable', 'The database is unavailable; retry shortly.', { headers: { 'retry-after': '5' } });

/** Whether `error` or one of its causes (a driver's error wrapped by Prisma's) is one `matches` names. */
export function someCause(error: unknown, matches: (cause: Error) => boolean): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current instanceof Error; depth++) {
    if (matches(current)) return true;
    current = (current as { cause?: unknown; originalError?: unknown }).cause ?? (current as { originalError?: unknown }).originalError;
  }
  return false;
}
