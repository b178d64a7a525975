import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Names the database state tests start from, so templates are rebuilt whenever migrations or the seed change. */
export function fixtureVersion(): string {
  const hash = createHash('sha256');
  const migrations = 'prisma/migrations';
  for (const entry of readdirSync(migrations).sort()) {
    if (entry.endsWith('.toml')) continue;
    hash.update(entry).update(readFileSync(join(migrations, entry, 'migration.sql')));
  }
  for (const file of ['src/db/seed.ts', ...readdirSync('src/db/seed-data').map((name) => `src/db/seed-data/${name}`)]) {
    hash.update(readFileSync(file));
  }
  return hash.digest('hex').slice(0, 12);
}

export function templateDatabaseName(seeded: boolean): string {
  return `hallowgate_template_${seeded ? 'seeded' : 'empty'}_${fixtureVersion()}`;
}

export function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Paths of PGlite data-dir dumps: as created (before any migration), migrated, and migrated + seeded. */
export interface PgliteSnapshots {
  pristine: string;
  empty: string;
  seeded: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteSnapshots: PgliteSnapshots;
  }
}
