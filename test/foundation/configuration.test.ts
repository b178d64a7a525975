import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { projectRoot } from '../access/processes.js';

/** The README's Configuration table: each variable with the default it states, where it states one as a value (`10000`). */
function documentedDefaults(): Map<string, string> {
  const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Configuration'), readme.indexOf('\n## ', readme.indexOf('\n## Configuration') + 1));
  const rows = [...section.matchAll(/^\| `([A-Z0-9_]+)` \| `([^`]+)` \|/gm)];
  return new Map(rows.map(([, name, value]) => [name!, value!]));
}

describe('the README’s Configuration table', () => {
  it('states the defaults the server takes', () => {
    const defaults = loadConfig({}) as unknown as Record<string, unknown>;
    const documented = documentedDefaults();
    expect(documented.size).toBeGreaterThan(20);
    const compared = [...documented].filter(([name]) => typeof defaults[name] === 'number' || typeof defaults[name] === 'string');
    expect(compared.length).toBeGreaterThan(15);
    for (const [name, value] of compared) expect(String(defaults[name]), name).toBe(value);
  });
});
