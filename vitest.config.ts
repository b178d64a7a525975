import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  // Vite would pick graphql's ESM build while libraries loaded by Node get its CommonJS build; two
  // copies of graphql reject each other's schemas, so everything uses the one Node resolves.
  resolve: { alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }] },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Each file starts its own server and database; two cores run two files at a time.
    pool: 'forks',
    maxWorkers: 2,
  },
});
