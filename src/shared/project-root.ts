import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The directory holding hallowgate's package.json. Sources run from src/ and compiled code from
 * build/, at different depths, so runtime files (migrations, OpenAPI documents, browser bundles) are
 * found from here rather than relative to the importing module.
 */
export const projectRoot = findProjectRoot(dirname(fileURLToPath(import.meta.url)));

function findProjectRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${start}`);
  }
}

/** `segments` joined onto the project root. */
export function projectPath(...segments: string[]): string {
  return join(projectRoot, ...segments);
}
