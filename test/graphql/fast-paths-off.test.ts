import { vi } from 'vitest';
import { describeFastPaths } from '../support/fast-paths.js';

// Before the imports load the schema: two fast paths are installed then or never. This file runs in
// a process of its own (vitest.config.ts, ownProcess), so the files that share modules keep theirs.
vi.hoisted(() => {
  process.env['HALLOWGATE_FAST_PATHS'] = 'off';
});

describeFastPaths();
