import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest } from '../../src/access/signing.js';
import { randomSecretsKey } from '../../src/shared/secrets.js';
import { ServerExitedEarly, startServerProcess, type ServerProcess } from './processes.js';

const adminKey = 'key_keyfileoperator1.sk_a_long_enough_operator_secret_keyfile';
// No SECRETS_KEY: the embedded database keeps its own. The demo directory would only slow every first start.
const serverEnv = { SECRETS_KEY: '', ADMIN_API_KEY: adminKey, SEED_ON_START: 'never' };
const keyFilePath = '.data/secrets.key';
const graphqlBody = JSON.stringify({ query: '{ __typename }' });

function signedGraphQL(url: string, key: string, signingSecret: string) {
  return fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...signRequest({ signingSecret, method: 'POST', url: '/graphql', body: graphqlBody }) },
    body: graphqlBody,
  });
}

async function admin(url: string, path: string, body: unknown) {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status, path).toBe(201);
  return response.json();
}

/** The key file's text, mode and modification time: unchanged if nothing wrote it. */
async function keyFileOf(cwd: string) {
  const file = join(cwd, keyFilePath);
  const { mode, mtimeMs } = await stat(file);
  return { text: await readFile(file, 'utf8'), mode: mode & 0o777, mtimeMs };
}

describe('the embedded database keeps its secrets key in ./.data/secrets.key', () => {
  let cwd: string;
  const running: ServerProcess[] = [];

  async function startServer(): Promise<ServerProcess> {
    const server = await startServerProcess(serverEnv, { cwd });
    running.push(server);
    return server;
  }

  beforeAll(async () => {
    cwd = await mkdtemp(join(tmpdir(), 'hallowgate-secrets-key-'));
  });
  afterAll(async () => {
    await Promise.all(running.map((server) => server.stop()));
    if (cwd) await rm(cwd, { recursive: true, force: true });
  });

  it('makes a random 32-byte key on first start, readable by its owner only, and reuses it after a restart', async () => {
    const first = await startServer();
    const made = await keyFileOf(cwd);
    expect(made.mode).toBe(0o600);
    expect(made.text).toMatch(/^[A-Za-z0-9+/]{43}=\n$/);
    expect(Buffer.from(made.text, 'base64')).toHaveLength(32);

    // A secret stored under that key: the signing secret of a key that must sign its requests.
    const account = await admin(first.url, '/v1/admin/accounts', { name: 'Key Keeper' });
    const issued = await admin(first.url, '/v1/admin/api_keys', { account_id: account.id, plan: 'enterprise', scopes: ['bookings:read'], require_signature: true });
    expect(issued.signing_secret).toMatch(/^hs_/);
    expect((await signedGraphQL(first.url, issued.key, issued.signing_secret)).status).toBe(200);
    await first.stop();

    const second = await startServer();
    expect((await signedGraphQL(second.url, issued.key, issued.signing_secret)).status).toBe(200);
    // The signature is still checked: it is the stored secret that opened, not a check that let it by.
    expect((await signedGraphQL(second.url, issued.key, `hs_${randomSecretsKey().toString('base64url')}`)).status).toBe(401);
    expect(await keyFileOf(cwd)).toEqual(made);
    await second.stop();
  });

  it('ends start-up with one line and exit code 1 when the file holds no 32-byte key, and leaves the file alone', async () => {
    // The same directory (its database already made), so only the key is at fault.
    await mkdir(join(cwd, '.data'), { recursive: true });
    await writeFile(join(cwd, keyFilePath), `${randomSecretsKey().subarray(0, 16).toString('base64')}\n`, { mode: 0o600 });
    const before = await keyFileOf(cwd);

    const failure = await startServer().then(
      () => {
        throw new Error('the server started with a 16-byte key');
      },
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ServerExitedEarly);
    const refused = failure as ServerExitedEarly;
    expect(refused.code).toBe(1);
    expect(refused.stderr.trimEnd().split('\n')).toEqual(['hallowgate: ./.data/secrets.key does not hold a 32-byte key in base64']);
    expect(await keyFileOf(cwd)).toEqual(before);
  });
});
