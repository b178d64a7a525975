import { pino } from 'pino';
import { ConfigError, openDatabase, parseDatabaseUrl } from './connection.js';
import { applyMigrations, createMigration, pendingSchemaChanges } from './migrator.js';

const usage = 'usage: tsx src/db/cli.ts migrate | new <name> | drift | seed';

async function run(command: string | undefined, argument: string | undefined): Promise<number> {
  switch (command) {
    case 'migrate': {
      const database = await openDatabase(parseDatabaseUrl(process.env['DATABASE_URL']), { poolSize: 2 });
      try {
        await database.ping();
        const applied = await applyMigrations(database);
        console.log(applied.length ? `applied ${applied.join(', ')}` : 'the database is up to date');
      } finally {
        await database.close();
      }
      return 0;
    }
    case 'new': {
      if (!argument) throw new ConfigError('name the migration: npm run db:migration -- <name>');
      const directory = await createMigration(argument);
      console.log(directory ? `wrote ${directory}/migration.sql` : 'No schema changes.');
      return 0;
    }
    case 'drift': {
      const missing = await pendingSchemaChanges();
      if (!missing.trim()) {
        console.log('prisma/migrations matches prisma/schema.prisma');
        return 0;
      }
      console.error('prisma/schema.prisma has changes no migration holds; run npm run db:migration -- <name>. Missing SQL:');
      console.error(missing);
      return 1;
    }
    case 'seed': {
      const { seedDatabase } = await import('./seed.js');
      const database = await openDatabase(parseDatabaseUrl(process.env['DATABASE_URL']), { poolSize: 4 });
      const logger = pino();
      try {
        await database.ping();
        await seedDatabase(database.prisma, { log: (line) => logger.info(line) });
      } finally {
        await database.close();
      }
      return 0;
    }
    default:
      console.error(usage);
      return 2;
  }
}

run(process.argv[2], process.argv[3]).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`hallowgate db: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
