#!/usr/bin/env node
// Runs the TypeScript CLI (src/cli/index.ts) through tsx, so `npx hallowgate …` needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/index.ts');
