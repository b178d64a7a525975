import { vi } from 'vitest';
import { describeFastPaths } from '../support/fast-paths.js';

// Each path switches alone: cached responses found by Yoga's plugin (no JSON POST path), kept plans over
// Prisma's own reads. Set before the imports load the schema; each test file has a process of its own.
vi.hoisted(() => {
  process.env['HALLOWGATE_FAST_PATHS'] = '-json-post,-direct-reads,-node-ids';
});

describeFastPaths();
