import { vi } from 'vitest';
import { describeFastPaths } from '../support/fast-paths.js';

// Each path switches alone: cached responses found by Yoga's plugin (no JSON POST path), kept plans over
// Prisma's own reads. Set before the imports load the schema, in a process of this file's own
// (vitest.config.ts, ownProcess), so the files that share modules keep theirs.
vi.hoisted(() => {
  process.env['HALLOWGATE_FAST_PATHS'] = '-json-post,-direct-reads,-node-ids';
});

describeFastPaths();
