import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot, startServerProcess, type ServerProcess } from '../access/processes.js';
import { requireService } from '../support/services.js';

const run = promisify(execFile);
const redisUrl = await requireService('redis');
const operatorKey = 'key_buildtest0001.sk_built_bundle_operator_secret';
let server: ServerProcess;

// `npm run build` is incremental: after `npm install` (which builds) it only checks the sources again.
beforeAll(async () => {
  await run('npm', ['run', 'build'], { cwd: projectRoot, maxBuffer: 16 * 1024 * 1024 }).catch((error: Error & { stdout?: string }) => {
    throw new Error(`npm run build failed:\n${error.stdout ?? error.message}`);
  });
  server = await startServerProcess({ DATABASE_URL: 'pglite:memory', SEED_ON_START: 'never', ADMIN_API_KEY: operatorKey }, { built: true });
}, 240_000);
afterAll(() => server?.stop());

describe('the bundled server (npm start)', () => {
  it('runs with plain node and answers /healthz', async () => {
    const response = await fetch(`${server.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('migrates its database and answers through Prisma and the REST table: an operator creates and lists an account', async () => {
    const headers = { authorization: `Bearer ${operatorKey}`, 'content-type': 'application/json' };
    const created = await fetch(`${server.url}/v1/admin/accounts`, { method: 'POST', headers, body: JSON.stringify({ name: 'Bundled Haunts' }) });
    expect(created.status).toBe(201);
    const listed = await fetch(`${server.url}/v1/admin/accounts`, { headers });
    expect(((await listed.json()) as { data: { name: string }[] }).data.map((account) => account.name)).toContain('Bundled Haunts');
  });

  it('finds the files it serves from the project root: the OpenAPI document and the widget', async () => {
    const openapi = await fetch(`${server.url}/v1/openapi.json`);
    expect(openapi.status).toBe(200);
    expect(await openapi.json()).toMatchObject({ openapi: '3.1.0' });
    const widget = await fetch(`${server.url}/widget.v1.js`);
    expect(widget.status).toBe(200);
    expect(await widget.text()).toContain('widget.v1.js');
  });
});

describe.skipIf(!redisUrl)('the bundled server with REDIS_URL', () => {
  it('starts without a deprecation warning: ioredis, bundled, would read the URL with url.parse, which Node 24 warns about outside node_modules', async () => {
    const withRedis = await startServerProcess({ DATABASE_URL: 'pglite:memory', SEED_ON_START: 'never', REDIS_URL: redisUrl! }, { built: true });
    try {
      expect(withRedis.startupOutput).not.toContain('DeprecationWarning');
      expect((await fetch(`${withRedis.url}/readyz`)).status).toBe(200);
    } finally {
      await withRedis.stop();
    }
  });
});

describe('the compiled CLI', () => {
  it('runs with plain node', async () => {
    const { stdout } = await run(process.execPath, [join(projectRoot, 'build/cli/index.js'), '--help'], { cwd: projectRoot });
    expect(stdout).toMatch(/^Usage: hallowgate/);
  });

  it("runs through npx the first time without the project's install steps: npx links the project and runs its postinstall, which then does nothing", async () => {
    // A first npx: npm's cache holds no link to the project yet.
    const cache = await mkdtemp(join(tmpdir(), 'hallowgate-npx-'));
    const built = await stat(join(projectRoot, 'build/.built'));
    try {
      const { stdout, stderr } = await run('npx', ['--loglevel', 'info', 'hallowgate', '--help'], {
        cwd: projectRoot,
        env: { ...process.env, npm_config_cache: cache, npm_config_offline: 'true' },
        maxBuffer: 16 * 1024 * 1024,
      });
      expect(stdout).toMatch(/^Usage: hallowgate/m);
      expect(stderr).toMatch(/npm info run hallowgate@[\d.]+ postinstall \{ code: 0/);
      // Nothing was built again: the stamp the build leaves is the one it left.
      expect((await stat(join(projectRoot, 'build/.built'))).mtimeMs).toBe(built.mtimeMs);
      expect(stdout + stderr).not.toMatch(/> hallowgate@[\d.]+ (generate|build)\b/);
    } finally {
      await rm(cache, { recursive: true, force: true });
    }
  }, 120_000);
});
