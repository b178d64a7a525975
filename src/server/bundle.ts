import { build } from 'esbuild';
import { projectPath } from '../shared/project-root.js';

/**
 * `npm run build`'s last step: bundles build/main.js (tsc's output) and its imports into
 * build/bundle/main.js, what `npm start` runs. Node loads one file in a fraction of the time it takes
 * to resolve and load the ~1,000 modules behind it. Code imported on demand (the migrator, the seed
 * data) becomes chunks of its own, loaded when used. Left as packages: those that find files beside
 * their own code (WASM, workers) and the large ones loaded only on demand. The code is not minified, so
 * stack traces name functions; `NODE_OPTIONS=--enable-source-maps` maps them to src/, at a memory cost (BENCHMARKS.md).
 */
export const serverEntry = projectPath('build/bundle/main.js');

await build({
  entryPoints: { main: projectPath('build/main.js') },
  outdir: projectPath('build/bundle'),
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
  external: ['@electric-sql/pglite', 'pglite-prisma-adapter', '@prisma/schema-engine-wasm', 'pino', '@faker-js/faker', '@graphql-yoga/render-graphiql'],
  // CommonJS packages inside an ES module bundle still call require() for Node's built-ins.
  banner: { js: "import { createRequire as createRequireForBundle } from 'node:module'; const require = createRequireForBundle(import.meta.url);" },
});
