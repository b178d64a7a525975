import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectPath } from '../shared/project-root.js';
import { openDatabase } from './connection.js';

/**
 * The seeded starter: an embedded database migrated and seeded with the demo directory, dumped by
 * `npm run build:starter` (part of `npm install`). A first embedded start loads it (about a second)
 * instead of creating, migrating and seeding a database (about six). It holds no account and no
 * secret: the demo account is made on that first start. Migrations added after it was built are
 * applied on top as usual.
 */
export const starterPath = projectPath('build/starter/pglite.tar.gz');

/** The starter, or undefined when it was not built: the database is then created and seeded in place. */
export async function loadStarter(): Promise<Blob | undefined> {
  if (!existsSync(starterPath)) return undefined;
  return new Blob([await readFile(starterPath)]);
}

export async function buildStarter(): Promise<void> {
  const [{ applyMigrations }, { seedDatabase }] = await Promise.all([import('./migrator.js'), import('./seed.js')]);
  const database = await openDatabase({ kind: 'pglite', dataDir: undefined });
  try {
    await applyMigrations(database);
    await seedDatabase(database.prisma, { log: () => undefined });
    const dump = await database.pglite!.dumpDataDir('gzip');
    await mkdir(dirname(starterPath), { recursive: true });
    // Written whole, then moved into place: a start never finds half a file.
    await writeFile(`${starterPath}.partial`, Buffer.from(await dump.arrayBuffer()));
    await rename(`${starterPath}.partial`, starterPath);
  } finally {
    await database.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await buildStarter();
