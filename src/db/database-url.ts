import { ConfigError } from './config-error.js';

export type DatabaseConfig = { kind: 'pglite'; dataDir: string | undefined; loadDataDir?: Blob } | { kind: 'postgres'; url: string };

export const defaultDataDir = './.data/pglite';

/** DATABASE_URL: unset → embedded PGlite on disk, `pglite:memory`, or a PostgreSQL URL. */
export function parseDatabaseUrl(raw: string | undefined): DatabaseConfig {
  if (raw === undefined || raw === '') return { kind: 'pglite', dataDir: defaultDataDir };
  if (raw === 'pglite:memory') return { kind: 'pglite', dataDir: undefined };
  if (/^postgres(ql)?:\/\//.test(raw)) {
    try {
      const url = new URL(raw);
      if (!url.hostname) throw new Error('no host');
    } catch {
      throw new ConfigError(`DATABASE_URL is not a valid PostgreSQL URL: "${raw}"`);
    }
    return { kind: 'postgres', url: raw };
  }
  throw new ConfigError(`DATABASE_URL must be unset, "pglite:memory" or a postgres:// URL; got "${raw}"`);
}
