#!/usr/bin/env node
// Runs the compiled CLI (build/cli/index.js, made by `npm run build`, part of `npm install`) with
// plain node. When there is no build, or a file under src/ changed after it, it runs the TypeScript
// sources through tsx instead, so a developer's edits take effect without rebuilding.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const builtCli = join(root, 'build/cli/index.js');
const buildStamp = join(root, 'build/.built');

function buildIsCurrent() {
  if (!existsSync(builtCli) || !existsSync(buildStamp)) return false;
  const builtAt = statSync(buildStamp).mtimeMs;
  const src = join(root, 'src');
  for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && statSync(join(entry.parentPath, entry.name)).mtimeMs > builtAt) return false;
  }
  return true;
}

if (buildIsCurrent()) {
  await import(builtCli);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/index.ts');
}
