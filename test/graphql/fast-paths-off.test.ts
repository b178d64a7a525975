import { vi } from 'vitest';
import { describeFastPaths } from '../support/fast-paths.js';

// Before the imports load the schema: two fast paths are installed then or never. Each test file
// runs in a process of its own, so the others keep theirs.
vi.hoisted(() => {
  process.env['HALLOWGATE_FAST_PATHS'] = 'off';
});

describeFastPaths();
