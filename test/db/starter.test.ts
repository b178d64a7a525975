import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServerProcess } from '../access/processes.js';

const directory = mkdtempSync(join(tmpdir(), 'hallowgate-starter-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const demoKeyOf = (output: string) => /demo API key: (key_\w+\.sk_[\w-]+)/.exec(output)?.[1];
const operatorKey = 'key_ops.123e4567-e89b-12d3-a456-426614174000';

describe('a first embedded start (npm start on a fresh clone)', () => {
  it('makes the database from the seeded starter, with a demo key of its own that reads the directory, and keeps it across a restart', async () => {
    // The embedded database in ./.data of an empty directory, as after `git clone && npm install && npm start`.
    const first = await startServerProcess({ DATABASE_URL: '' }, { cwd: directory, built: true });
    let key: string | undefined;
    try {
      expect(first.startupOutput).toContain('database made from the seeded starter');
      key = demoKeyOf(first.startupOutput);
      expect(key).toMatch(/^key_\w+\.sk_/);
      const events = await fetch(`${first.url}/api/v1/events?city=Salem&limit=5`, { headers: { authorization: `Bearer ${key}` } });
      expect(events.status).toBe(200);
      expect(((await events.json()) as { data: unknown[] }).data).toHaveLength(5);
    } finally {
      await first.stop();
    }

    const second = await startServerProcess({ DATABASE_URL: '' }, { cwd: directory, built: true });
    try {
      expect(second.startupOutput).not.toContain('seeded starter');
      expect(demoKeyOf(second.startupOutput)).toBe(key);
      const bookings = await fetch(`${second.url}/v1/services?limit=1`, { headers: { authorization: `Bearer ${key}` } });
      expect(bookings.status).toBe(200);
    } finally {
      await second.stop();
    }
  });

  it('gives each new database its own demo secrets: the starter holds none', async () => {
    const other = mkdtempSync(join(tmpdir(), 'hallowgate-starter-'));
    try {
      const server = await startServerProcess({ DATABASE_URL: '' }, { cwd: other, built: true });
      const key = demoKeyOf(server.startupOutput);
      await server.stop();
      const first = await startServerProcess({ DATABASE_URL: '' }, { cwd: directory, built: true });
      const firstKey = demoKeyOf(first.startupOutput);
      await first.stop();
      expect(key).toBeDefined();
      expect(key).not.toBe(firstKey);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('makes a database that is not to be seeded from the migrated starter: the schema, no directory, no demo account', async () => {
    const other = mkdtempSync(join(tmpdir(), 'hallowgate-starter-'));
    try {
      const server = await startServerProcess({ DATABASE_URL: '', SEED_ON_START: 'never', ADMIN_API_KEY: operatorKey }, { cwd: other });
      try {
        expect(server.startupOutput).toContain('database made from the migrated starter (build/starter/pglite-migrated.tar.gz)');
        expect(demoKeyOf(server.startupOutput)).toBeUndefined();
        // Migrated: the operators' routes read their tables; not seeded: no account but the operator's own, so no demo.
        const accounts = await fetch(`${server.url}/v1/admin/accounts`, { headers: { authorization: `Bearer ${operatorKey}` } });
        expect(accounts.status).toBe(200);
        expect(((await accounts.json()) as { data: { id: string }[] }).data.map((account) => account.id)).toEqual(['acct_operator']);
      } finally {
        await server.stop();
      }
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
