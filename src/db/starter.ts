import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectPath } from '../shared/project-root.js';
import { openDatabase } from './connection.js';

/**
 * The starters: embedded databases dumped by `npm run build:starter` (part of `npm install`), one
 * migrated, one migrated and seeded with the demo directory. A new embedded database (in memory, or
 * in a data directory without one yet) loads the one it needs in about a second instead of creating
 * (initdb), migrating and seeding one (about six). They hold no account and no secret: the demo
 * account is made on a first seeded start. Migrations added after they were built are applied on top
 * as usual.
 */
export const starterPaths = { migrated: projectPath('build/starter/pglite-migrated.tar.gz'), seeded: projectPath('build/starter/pglite.tar.gz') };

export type StarterKind = keyof typeof starterPaths;

/** A starter, or undefined when it was not built: the database is then created (and seeded) in place. */
export async function loadStarter(kind: StarterKind): Promise<Blob | undefined> {
  const path = starterPaths[kind];
  if (!existsSync(path)) return undefined;
  return new Blob([await readFile(path)]);
}

export async function buildStarter(): Promise<void> {
  const [{ applyMigrations }, { seedDatabase }] = await Promise.all([import('./migrator.js'), import('./seed.js')]);
  const database = await openDatabase({ kind: 'pglite', dataDir: undefined });
  const dumpAs = async (kind: StarterKind) => {
    const dump = await database.pglite!.dumpDataDir('gzip');
    await mkdir(dirname(starterPaths[kind]), { recursive: true });
    // Written whole, then moved into place: a start never finds half a file.
    await writeFile(`${starterPaths[kind]}.partial`, Buffer.from(await dump.arrayBuffer()));
    await rename(`${starterPaths[kind]}.partial`, starterPaths[kind]);
  };
  try {
    await applyMigrations(database);
    await dumpAs('migrated');
    await seedDatabase(database.prisma, { log: () => undefined });
    await dumpAs('seeded');
  } finally {
    await database.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await buildStarter();
