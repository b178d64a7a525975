import { z } from 'zod';
import { apiKeyPattern, apiKeyRule } from './access/key-format.js';
import { ConfigError } from './db/config-error.js';
import { parseDatabaseUrl } from './db/database-url.js';
import { fastPaths, parseFastPaths } from './fast-paths.js';
import { secretsKeyBytes } from './shared/secrets.js';
import { tracingSettingsSchema } from './tracing/settings.js';

const booleanFlag = z
  .enum(['0', '1', 'true', 'false', ''])
  .optional()
  .transform((value) => value === '1' || value === 'true');

/** How long each call to a dependency may take before the caller gives up (README, Configuration). */
export const deadlineDefaults = {
  REDIS_COMMAND_TIMEOUT_MS: 100,
  DATABASE_CONNECT_TIMEOUT_MS: 5000,
  DATABASE_STATEMENT_TIMEOUT_MS: 5000,
  DATABASE_TRANSACTION_TIMEOUT_MS: 5000,
} as const;

const configSchema = z.object({
  PORT: z.coerce.number({ error: 'must be a port number, 0 to 65535' }).int().min(0).max(65535).default(4000),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  /** How long a query waits for a PostgreSQL connection, pooled or new, before 503. */
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(deadlineDefaults.DATABASE_CONNECT_TIMEOUT_MS),
  /** PostgreSQL's statement_timeout; the client gives up one second later on a server that does not answer at all. */
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(deadlineDefaults.DATABASE_STATEMENT_TIMEOUT_MS),
  /** An interactive transaction's deadline, and PostgreSQL's idle_in_transaction_session_timeout. */
  DATABASE_TRANSACTION_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(deadlineDefaults.DATABASE_TRANSACTION_TIMEOUT_MS),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
  /** Each Redis command's deadline: past it, rate limits count in this instance's memory and signed requests get 503. */
  REDIS_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(10).max(10_000).default(deadlineDefaults.REDIS_COMMAND_TIMEOUT_MS),
  ADMIN_API_KEY: z.string().regex(apiKeyPattern, `must be ${apiKeyRule}`).optional(),
  /**
   * The origin clients reach the server at (https://api.example.com), for the absolute URLs answers
   * carry: Location, Link and the OpenAPI documents' servers. Unset: each request's own Host.
   */
  PUBLIC_URL: z
    .string()
    .optional()
    .transform((text, context) => {
      if (text === undefined || text === '') return undefined;
      const url = URL.canParse(text) ? new URL(text) : null;
      if (!url || !['http:', 'https:'].includes(url.protocol) || url.username || url.password || url.pathname !== '/' || url.search || url.hash) {
        context.addIssue({ code: 'custom', message: 'must be an http:// or https:// origin with nothing after the host and port, like https://api.example.com' });
        return z.NEVER;
      }
      return url.origin;
    }),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  WEBHOOK_ALLOW_PRIVATE: booleanFlag,
  /** Comma-separated CIDRs of proxies whose X-Forwarded-For is believed. */
  TRUSTED_PROXIES: z.string().default(''),
  /** Seed an empty database at start (embedded PGlite only unless forced). */
  SEED_ON_START: z.enum(['auto', 'always', 'never']).default('auto'),
  /** Waits between webhook attempts, e.g. "5s,5m,30m,2h,5h,10h,10h"; a delivery fails after the last. */
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .regex(/^\d+(ms|s|m|h)(,\d+(ms|s|m|h))*$/, 'must look like 5s,5m,30m,2h')
    .default('5s,5m,30m,2h,5h,10h,10h'),
  WEBHOOK_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  /** How often each instance settles expired holds and makes the waitlist offers they free. */
  WAITLIST_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(500),
  /** How long the places an instance's open subscriptions take in a key's limit outlive it (renewed every third of it). */
  SUBSCRIPTION_LEASE_MS: z.coerce.number().int().min(3000).max(600_000).default(30_000),
  /** Webhook attempts one instance runs at once. */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(32),
  /** Webhook attempts one account may have under way at once, over all instances. */
  WEBHOOK_CONCURRENCY_PER_ACCOUNT: z.coerce.number().int().min(1).max(1000).default(4),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** An endpoint failing without a success for this long is disabled. */
  WEBHOOK_DISABLE_AFTER_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(5 * 24 * 3_600_000),
  /** Encrypts webhook and request-signing secrets at rest: 32 random bytes in base64 (`openssl rand -base64 32`). */
  SECRETS_KEY: z
    .string()
    .optional()
    .transform((text, context) => {
      if (text === undefined || text === '') return undefined;
      const key = Buffer.from(text, 'base64');
      if (key.length !== secretsKeyBytes || key.toString('base64') !== text.trim()) {
        context.addIssue({ code: 'custom', message: `must be ${secretsKeyBytes} random bytes in base64 (openssl rand -base64 32)` });
        return z.NEVER;
      }
      return key;
    }),
  /** Largest accepted request body in bytes. */
  MAX_BODY_BYTES: z.coerce.number().int().min(1024).default(1_000_000),
  /** A request (headers and body) must arrive whole within this; a client trickling it is cut off with 408. */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).max(300_000).default(30_000),
  /**
   * How long a connection may wait idle between requests. Longer than the idle timeout of the load
   * balancers in front (60 s for most): were the server to close first, a request the balancer sends
   * on the closing connection would fail with 502.
   */
  KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(65_000),
  /**
   * A GraphQL query still running after this is stopped and answered 400 query_too_complex. Longer
   * by default than the database's deadlines together (a connection, then a statement and the wait
   * past it), so an outage is answered 503 by them, not as the query's fault.
   */
  GRAPHQL_TIME_BUDGET_MS: z.coerce.number().int().min(100).max(60_000).default(12_000),
  /** Record per-key usage (on unless set to 0 or false; the bench turns it off to measure its cost). */
  ANALYTICS_ENABLED: z
    .enum(['0', '1', 'true', 'false'])
    .default('1')
    .transform((value) => value === '1' || value === 'true'),
  /** How often in-memory usage buckets are written to the database. */
  ANALYTICS_FLUSH_MS: z.coerce.number().int().min(10).max(600_000).default(10_000),
  /**
   * Which fast paths run (src/fast-paths.ts): `off` is the plain Pothos + Yoga + Prisma app. Read from
   * the environment once when the code loads; unset here, the process's choice, and createApp refuses
   * any other.
   */
  HALLOWGATE_FAST_PATHS: z
    .string()
    .optional()
    .transform((text, context) => {
      const parsed = text === undefined ? fastPaths : parseFastPaths(text);
      if (!('error' in parsed)) return parsed;
      context.addIssue({ code: 'custom', message: parsed.error });
      return z.NEVER;
    }),
  ...tracingSettingsSchema,
});

export type Config = z.infer<typeof configSchema>;

export class ConfigurationError extends Error {
  override name = 'ConfigurationError';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const result = configSchema.safeParse(env);
  // Every bad setting at once, on one line: fixing them one start at a time is slow.
  const problems = result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`);
  try {
    parseDatabaseUrl(env['DATABASE_URL']);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.unshift(error.message);
  }
  if (!result.success || problems.length > 0) throw new ConfigurationError(problems.join('; '));
  return result.data;
}
