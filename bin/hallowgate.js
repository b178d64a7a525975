#!/usr/bin/env node
// Runs the compiled CLI (build/cli/index.js, made by `npm run build`, part of `npm install`) with
// plain node. When there is no build, or a file under src/ changed after it, it runs the TypeScript
// sources through tsx instead, so a developer's edits take effect without rebuilding.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOutdatedBy } from './build-stamp.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const builtCli = join(root, 'build/cli/index.js');

if (existsSync(builtCli) && buildOutdatedBy(root) === undefined) {
  await import(builtCli);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/index.ts');
}
