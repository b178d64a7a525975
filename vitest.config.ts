import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

/**
 * Test files that need a process of their own: they mock a module (vi.mock), choose the fast paths
 * in the environment before the schema loads, or set OpenTelemetry's process-wide context. Every
 * other file shares its worker's loaded modules with the files before it, which saves each one
 * seconds of loading the app; each still starts its own servers over its own databases.
 */
const ownProcess = ['test/events/webhook-guards.test.ts', 'test/graphql/fast-paths-off.test.ts', 'test/graphql/fast-paths-mixed.test.ts', 'test/tracing/*.test.ts'];

export default defineConfig({
  // Vite would pick graphql's ESM build while libraries loaded by Node get its CommonJS build; two
  // copies of graphql reject each other's schemas, so everything uses the one Node resolves.
  resolve: { alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }] },
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores run two files at a time.
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: ownProcess, isolate: false } },
      { extends: true, test: { name: 'own-process', include: ownProcess } },
    ],
  },
});
