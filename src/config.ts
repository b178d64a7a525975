import { z } from 'zod';
import { apiKeyPattern, apiKeyRule } from './access/key-format.js';
import { secretsKeyBytes } from './shared/secrets.js';

const booleanFlag = z
  .enum(['0', '1', 'true', 'false', ''])
  .optional()
  .transform((value) => value === '1' || value === 'true');

const configSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
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
  /** Record per-key usage (on unless set to 0 or false; the bench turns it off to measure its cost). */
  ANALYTICS_ENABLED: z
    .enum(['0', '1', 'true', 'false'])
    .default('1')
    .transform((value) => value === '1' || value === 'true'),
  /** How often in-memory usage buckets are written to the database. */
  ANALYTICS_FLUSH_MS: z.coerce.number().int().min(10).max(600_000).default(10_000),
});

export type Config = z.infer<typeof configSchema>;

export class ConfigurationError extends Error {
  override name = 'ConfigurationError';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const result = configSchema.safeParse(env);
  if (!result.success) {
    // Every bad setting at once, on one line: fixing them one start at a time is slow.
    throw new ConfigurationError(result.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`).join('; '));
  }
  return result.data;
}
