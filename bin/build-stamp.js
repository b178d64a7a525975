// Whether `npm run build` ran after the last change under src/: its stamp, build/.built, is newer
// than every file there. Plain JavaScript, as bin/hallowgate.js runs before anything is built.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** What makes build/ out of date under `root`: the missing stamp, or a file under src/ newer than it; undefined when it is current. */
export function buildOutdatedBy(root) {
  const stamp = join(root, 'build/.built');
  if (!existsSync(stamp)) return stamp;
  const builtAt = statSync(stamp).mtimeMs;
  for (const entry of readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isFile() && statSync(path).mtimeMs > builtAt) return path;
  }
  return undefined;
}
