import { defineConfig } from 'prisma/config';

// Migrations run in-process over the WASM schema engine (src/db/migrator.ts);
// the CLI is only used for `prisma generate`.
export default defineConfig({
  schema: 'prisma/schema.prisma',
});
