#!/usr/bin/env node
// Runs the compiled CLI (build/cli/index.js, made by `npm run build`, part of `npm install`) with
// plain node. When there is no build, or a file under src/ changed after it, it says so in one line
// and runs the TypeScript sources through tsx: the command then does what the sources say, as the
// operator who changed them expects, where an old build would silently do something else; tsx is
// only slower, which the line explains.
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOutdatedBy } from './build-stamp.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const builtCli = join(root, 'build/cli/index.js');
const outdatedBy = existsSync(builtCli) ? buildOutdatedBy(root) : builtCli;

if (outdatedBy === undefined) {
  await import(builtCli);
} else {
  const why = outdatedBy.startsWith(join(root, 'src')) ? `build/ is older than ${relative(root, outdatedBy)}` : `${relative(root, outdatedBy)} is missing`;
  process.stderr.write(`hallowgate: ${why}: run npm run build to start in a second; running the sources through tsx meanwhile (slower)\n`);
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/index.ts');
}
