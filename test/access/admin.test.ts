import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureOperatorKey } from '../../src/access/provisioning.js';
import { openSocket } from './connections.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { bearer, postGraphQL } from './requests.js';
import { cursorParamOf } from '../support/http.js';

let server: TestServer;
let adminKey: string;

beforeAll(async () => {
  server = await startTestServer();
  adminKey = (await server.createKey({ scopes: ['admin'], plan: 'enterprise' })).key;
});
afterAll(() => server.close());

function admin(method: string, path: string, body?: unknown, key = adminKey) {
  return fetch(`${server.url}${path}`, {
    method,
    headers: bearer(key, body === undefined ? {} : { 'content-type': 'application/json' }),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function newAccount(): Promise<string> {
  const response = await admin('POST', '/v1/admin/accounts', { name: 'Haunted Acres' });
  expect(response.status).toBe(201);
  return (await response.json()).id;
}

const viewerQuery = '{ viewer { accountId scopes } }';

describe('the operator key (ADMIN_API_KEY)', () => {
  it('opens the routes of the instance started with it alone: one an earlier start left in the database opens nothing', async () => {
    const first = 'key_opsfirst.sk_the_first_operator_secret_000001';
    const second = 'key_opssecond.sk_the_second_operator_secret_00002';
    // Both were made to exist by earlier starts, as ADMIN_API_KEY=… npm start does.
    await ensureOperatorKey(server.prisma, first);
    await ensureOperatorKey(server.prisma, second);
    // The test server was started without ADMIN_API_KEY, as `npm start` is.
    expect((await admin('GET', '/v1/admin/accounts', undefined, first)).status).toBe(401);

    const startedWithFirst = server.sibling(undefined, { ADMIN_API_KEY: first });
    try {
      const url = await startedWithFirst.listen(0, '127.0.0.1');
      const accounts = (key: string) => fetch(`${url}/v1/admin/accounts`, { headers: bearer(key) });
      expect((await accounts(first)).status).toBe(200);
      const refused = await accounts(second);
      expect(refused.status).toBe(401);
      // As any key that is not one: nothing tells an operator key from a made-up one.
      expect(await refused.json()).toMatchObject({ code: 'unauthenticated', detail: 'The API key is not valid.' });
    } finally {
      await startedWithFirst.close();
    }
  });
});

describe('two instances started with two ADMIN_API_KEY values under one id, as a rolling rotation leaves them', () => {
  it('each take the key they were started with, whichever start wrote the database last', async () => {
    const old = 'key_opsrolling.sk_the_old_operator_secret_0000001';
    const renewed = 'key_opsrolling.sk_the_new_operator_secret_0000002';
    await ensureOperatorKey(server.prisma, old);
    const startedWithOld = server.sibling(undefined, { ADMIN_API_KEY: old });
    // The second instance's start writes the new value's hash over the old one.
    await ensureOperatorKey(server.prisma, renewed);
    const startedWithNew = server.sibling(undefined, { ADMIN_API_KEY: renewed });
    try {
      const oldUrl = await startedWithOld.listen(0, '127.0.0.1');
      const newUrl = await startedWithNew.listen(0, '127.0.0.1');
      const statuses = async (url: string) => {
        const status = async (key: string) => (await fetch(`${url}/v1/admin/accounts`, { headers: bearer(key) })).status;
        return { old: await status(old), renewed: await status(renewed) };
      };
      expect(await statuses(oldUrl)).toEqual({ old: 200, renewed: 401 });
      expect(await statuses(newUrl)).toEqual({ old: 401, renewed: 200 });
      // A socket opened with the old value after the rotation runs its operations too.
      const socket = await openSocket(oldUrl, old);
      const accounts = await new Promise<unknown>((resolve, reject) => {
        socket.client.subscribe({ query: '{ viewer { scopes } }' }, { next: resolve, error: reject, complete: () => undefined });
      });
      expect(accounts).toEqual({ data: { viewer: { scopes: ['admin'] } } });
      expect(socket.closeCode).toBeUndefined();
      await socket.client.dispose();
    } finally {
      await startedWithOld.close();
      await startedWithNew.close();
    }
  });
});

describe('an ADMIN_API_KEY whose id names a customer’s key', () => {
  it('is refused at start, and that key stays as it was: neither an operator’s nor brought back from revocation', async () => {
    const customer = await server.createKey({ scopes: ['bookings:read'] });
    const revoked = await server.createKey({ scopes: ['bookings:read'] });
    await server.prisma.apiKey.update({ where: { id: revoked.keyId }, data: { revokedAt: new Date() } });
    const keysBefore = await server.prisma.apiKey.findMany({ where: { id: { in: [customer.keyId, revoked.keyId] } }, orderBy: { id: 'asc' } });
    for (const pasted of [customer.key, `${revoked.keyId}.sk_any_secret_at_all_0000000001`]) {
      await expect(ensureOperatorKey(server.prisma, pasted)).rejects.toThrow(/^ADMIN_API_KEY's id key_\w+ names a key of another account, not an operator key/);
    }
    expect(await server.prisma.apiKey.findMany({ where: { id: { in: [customer.keyId, revoked.keyId] } }, orderBy: { id: 'asc' } })).toEqual(keysBefore);
  });
});

describe('the operator account', () => {
  it('gets no keys but ADMIN_API_KEY’s, and that one is not rotated through the API', async () => {
    const operatorKey = 'key_opsthird.sk_the_third_operator_secret_0000003';
    await ensureOperatorKey(server.prisma, operatorKey);
    const operatorKeys = () => server.prisma.apiKey.findMany({ where: { accountId: 'acct_operator' }, select: { id: true, secretHash: true } });
    const before = await operatorKeys();
    const issued = await admin('POST', '/v1/admin/api_keys', { account_id: 'acct_operator', plan: 'business', scopes: ['admin'] });
    expect(issued.status).toBe(422);
    expect((await issued.json()).errors).toEqual([expect.objectContaining({ field: 'account_id', code: 'operator_account' })]);
    const rotated = await admin('POST', '/v1/admin/api_keys/key_opsthird/rotate');
    expect(rotated.status).toBe(400);
    expect((await rotated.json()).detail).toMatch(/is ADMIN_API_KEY: change it by starting the server with another value/);
    expect(await operatorKeys()).toEqual(before);
  });
});

describe('operator routes (/v1/admin)', () => {
  it('creates accounts: 201 { id, name }', async () => {
    const response = await admin('POST', '/v1/admin/accounts', { name: 'Haunted Acres' });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ id: expect.stringMatching(/^acct_/), name: 'Haunted Acres' });
  });

  it('creates a key that works at once and is shown only then; only its hash is stored', async () => {
    const accountId = await newAccount();
    const response = await admin('POST', '/v1/admin/api_keys', { account_id: accountId, plan: 'pro', scopes: ['directory:read'] });
    expect(response.status).toBe(201);
    const created = await response.json();
    expect(created).toMatchObject({
      id: expect.stringMatching(/^key_/),
      key: expect.stringMatching(/^key_\w+\.sk_\w+$/),
      account_id: accountId,
      plan: 'pro',
      scopes: ['directory:read'],
      signing_secret: null,
      revoked_at: null,
    });
    expect(created.key.startsWith(`${created.id}.`)).toBe(true);

    const viewer = await postGraphQL(server.url, created.key, viewerQuery);
    expect((await viewer.json()).data.viewer).toEqual({ accountId, scopes: ['directory:read'] });

    const stored = await server.prisma.apiKey.findUniqueOrThrow({ where: { id: created.id } });
    const secret = created.key.slice(created.id.length + 1);
    expect(stored.secretHash).toBe(createHash('sha256').update(secret).digest('hex'));
    expect(JSON.stringify(stored)).not.toContain(secret);

    const listed = await (await admin('GET', `/v1/admin/api_keys?account_id=${accountId}`)).json();
    expect(listed).toMatchObject({ data: [{ id: created.id }], has_more: false, next_cursor: null });
    expect(JSON.stringify(listed)).not.toContain(secret);
    expect(listed.data[0]).not.toHaveProperty('key');
  });

  it('gives enterprise keys a signing secret and all the access settings', async () => {
    const accountId = await newAccount();
    const response = await admin('POST', '/v1/admin/api_keys', {
      account_id: accountId,
      plan: 'enterprise',
      scopes: ['bookings:read', 'bookings:write'],
      allowed_origins: ['https://shop.example/'],
      ip_allowlist: ['203.0.113.0/24', '2001:db8::/32'],
      promo: true,
      require_signature: true,
    });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({
      signing_secret: expect.stringMatching(/^hs_/),
      signing_enabled: true,
      allowed_origins: ['https://shop.example'],
      ip_allowlist: ['203.0.113.0/24', '2001:db8::/32'],
      promo: true,
      require_signature: true,
    });
  });

  it('answers 422 with snake_case field errors', async () => {
    const accountId = await newAccount();
    const body = { account_id: accountId, scopes: [], allowed_origins: ['not an origin'], ip_allowlist: ['10.0.0.0/33'], require_signature: true };
    // A value of the wrong type is refused by the schema, before any rule of the operation looks at the rest.
    const mistyped = await admin('POST', '/v1/admin/api_keys', { ...body, plan: 'gold' });
    expect(mistyped.status).toBe(422);
    expect((await mistyped.json()).errors).toEqual([{ field: 'plan', code: 'invalid', message: 'plan must be one of: business, enterprise, free, pro.' }]);

    const response = await admin('POST', '/v1/admin/api_keys', { ...body, plan: 'free' });
    expect(response.status).toBe(422);
    const problem = await response.json();
    expect(problem.code).toBe('validation_failed');
    expect(problem.errors.map((error: { field: string }) => error.field).sort()).toEqual(['allowed_origins.0', 'ip_allowlist.0', 'scopes'].sort());
    // Zero-padded IPv4 reads as octal to the address library (010.0.0.1 is 8.0.0.1): refused, not taken for another network.
    const padded = await admin('POST', '/v1/admin/api_keys', { account_id: accountId, plan: 'free', scopes: ['directory:read'], ip_allowlist: ['10.0.0.1', '010.000.000.001'] });
    expect(padded.status).toBe(422);
    expect((await padded.json()).errors).toEqual([expect.objectContaining({ field: 'ip_allowlist.1', code: 'invalid' })]);
    const mappedShort = await admin('POST', '/v1/admin/api_keys', { account_id: accountId, plan: 'free', scopes: ['directory:read'], ip_allowlist: ['::ffff:10.0.0.0/64'] });
    expect(mappedShort.status).toBe(422);
    expect((await mappedShort.json()).errors).toEqual([expect.objectContaining({ field: 'ip_allowlist.0', code: 'invalid' })]);

    const missing = await admin('POST', '/v1/admin/api_keys', { plan: 'free' });
    expect(missing.status).toBe(422);
    expect((await missing.json()).errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: 'account_id', code: 'required' }), expect.objectContaining({ field: 'scopes', code: 'required' })]),
    );

    const unknownAccount = await admin('POST', '/v1/admin/api_keys', { account_id: 'acct_nope', plan: 'free', scopes: ['admin'] });
    expect(unknownAccount.status).toBe(422);
    expect((await unknownAccount.json()).errors).toEqual([expect.objectContaining({ field: 'account_id', code: 'not_found' })]);

    const signingOffPlan = await admin('POST', '/v1/admin/api_keys', { account_id: accountId, plan: 'pro', scopes: ['admin'], require_signature: true });
    expect((await signingOffPlan.json()).errors).toEqual([expect.objectContaining({ field: 'require_signature' })]);
  });

  it('stores a repeated scope, origin or address once', async () => {
    const accountId = await newAccount();
    const response = await admin('POST', '/v1/admin/api_keys', {
      account_id: accountId,
      plan: 'pro',
      scopes: ['bookings:read', 'directory:read', 'bookings:read'],
      allowed_origins: ['https://shop.example', 'https://SHOP.example/'],
      ip_allowlist: ['203.0.113.0/24', '203.0.113.0/24'],
    });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ scopes: ['bookings:read', 'directory:read'], allowed_origins: ['https://shop.example'], ip_allowlist: ['203.0.113.0/24'] });
    const token = await admin('POST', '/v1/admin/widget_tokens', { account_id: accountId, allowed_origins: ['https://shop.example', 'https://shop.example'] });
    expect(token.status).toBe(201);
    expect((await token.json()).allowed_origins).toEqual(['https://shop.example']);
  });

  it('revokes: the key stops working at once; repeating gives 200 and changes nothing', async () => {
    const { key, keyId } = await server.createKey();
    expect((await postGraphQL(server.url, key, viewerQuery)).status).toBe(200);
    const revoked = await admin('DELETE', `/v1/admin/api_keys/${keyId}`);
    expect(revoked.status).toBe(200);
    const revokedAt = (await revoked.json()).revoked_at;
    expect(revokedAt).toMatch(/Z$/);

    const refused = await postGraphQL(server.url, key, viewerQuery);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/);

    const again = await admin('DELETE', `/v1/admin/api_keys/${keyId}`);
    expect((await again.json()).revoked_at).toBe(revokedAt);
    expect((await admin('DELETE', '/v1/admin/api_keys/key_doesnotexist')).status).toBe(404);
  });

  it('rotates: a new secret shown once, the old one refused; revoked keys cannot be rotated', async () => {
    const { key, keyId } = await server.createKey({ plan: 'enterprise' });
    const rotated = await admin('POST', `/v1/admin/api_keys/${keyId}/rotate`);
    expect(rotated.status).toBe(200);
    const body = await rotated.json();
    expect(body).toMatchObject({ id: keyId, key: expect.stringMatching(new RegExp(`^${keyId}\\.sk_`)), signing_secret: expect.stringMatching(/^hs_/) });
    expect(body.key).not.toBe(key);
    expect((await postGraphQL(server.url, key, viewerQuery)).status).toBe(401);
    expect((await postGraphQL(server.url, body.key, viewerQuery)).status).toBe(200);

    await admin('DELETE', `/v1/admin/api_keys/${keyId}`);
    const refused = await admin('POST', `/v1/admin/api_keys/${keyId}/rotate`);
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ code: 'key_revoked' });
  });

  it('creates, lists and revokes widget tokens', async () => {
    const accountId = await newAccount();
    const created = await admin('POST', '/v1/admin/widget_tokens', { account_id: accountId, allowed_origins: ['https://blog.example'], rate_limit_per_minute: 120 });
    expect(created.status).toBe(201);
    const token = await created.json();
    expect(token).toMatchObject({ id: expect.stringMatching(/^wt_/), allowed_origins: ['https://blog.example'], rate_limit_per_minute: 120 });
    expect(token.token).toBe(token.id);

    const listed = await (await admin('GET', `/v1/admin/widget_tokens?account_id=${accountId}`)).json();
    expect(listed.data.map((item: { id: string }) => item.id)).toEqual([token.id]);

    const noOrigins = await admin('POST', '/v1/admin/widget_tokens', { account_id: accountId, allowed_origins: [] });
    expect(noOrigins.status).toBe(422);

    expect((await admin('DELETE', `/v1/admin/widget_tokens/${token.id}`)).status).toBe(200);
    const afterRevoke = await postGraphQL(server.url, token.id, viewerQuery, { headers: { origin: 'https://blog.example' } });
    expect(afterRevoke.status).toBe(401);
  });

  it('pages lists with limit and cursor, and a Link header', async () => {
    const accountId = await newAccount();
    for (let index = 0; index < 3; index++) await server.createKey({ accountId });
    const first = await admin('GET', `/v1/admin/api_keys?account_id=${accountId}&limit=2`);
    const page = await first.json();
    expect(page.data).toHaveLength(2);
    expect(page.has_more).toBe(true);
    expect(first.headers.get('link')).toContain('rel="next"');
    const second = await (await admin('GET', `/v1/admin/api_keys?account_id=${accountId}&limit=2&cursor=${encodeURIComponent(page.next_cursor)}`)).json();
    expect(second).toMatchObject({ has_more: false, next_cursor: null });
    expect(second.data).toHaveLength(1);
    expect((await admin('GET', '/v1/admin/api_keys?limit=101')).status).toBe(400);
    // In id order: the two pages are the account's keys, each once.
    const ids = [...page.data, ...second.data].map((key: { id: string }) => key.id);
    expect(ids).toEqual([...ids].sort());
    expect(new Set(ids).size).toBe(3);
  });

  it('refuses a cursor naming no record with 400 on cursor, on every operator list and on services', async () => {
    for (const path of [
      `/v1/admin/accounts?cursor=${cursorParamOf('acct_0000000000doesnotexist')}`,
      `/v1/admin/api_keys?cursor=${cursorParamOf('key_0000000000doesnotexist')}`,
      `/v1/admin/widget_tokens?cursor=${cursorParamOf('wt_0000000000doesnotexist')}`,
      `/v1/services?cursor=${cursorParamOf('svc_0000000000doesnotexist')}`,
    ]) {
      const refused = await admin('GET', path);
      const body = await refused.json();
      expect([path, refused.status, body.code, body.errors?.[0]?.field]).toEqual([path, 400, 'invalid_parameter', 'cursor']);
    }
    // A record of another list: another account's key.
    const [mine, theirs] = [await newAccount(), await newAccount()];
    await server.createKey({ accountId: mine });
    const theirKey = await server.createKey({ accountId: theirs });
    const refused = await admin('GET', `/v1/admin/api_keys?account_id=${mine}&cursor=${cursorParamOf(theirKey.keyId)}`);
    expect([refused.status, (await refused.json()).errors?.[0]?.field]).toEqual([400, 'cursor']);
  });

  it('needs the admin scope: 403 insufficient_scope before looking at the body', async () => {
    const { key } = await server.createKey({ scopes: ['bookings:read', 'bookings:write', 'webhooks:manage', 'directory:read', 'analytics:read'] });
    for (const [method, path, body] of [
      ['POST', '/v1/admin/accounts', { name: '' }],
      ['POST', '/v1/admin/api_keys', {}],
      ['GET', '/v1/admin/api_keys', undefined],
      ['DELETE', '/v1/admin/api_keys/key_any', undefined],
      ['POST', '/v1/admin/api_keys/key_any/rotate', undefined],
      ['POST', '/v1/admin/widget_tokens', {}],
    ] as const) {
      const response = await admin(method, path, body, key);
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(await response.json()).toMatchObject({ code: 'insufficient_scope' });
    }
    expect((await admin('GET', '/v1/admin/api_keys', undefined, 'key_nope0000.sk_nopenopenopenope')).status).toBe(401);
  });
});

describe('operator operations in GraphQL', () => {
  const createKeyMutation = `mutation ($input: CreateApiKeyInput!) {
    createApiKey(input: $input) { key signingSecret apiKey { id plan scopes } }
  }`;

  it('runs the same operations as mutations', async () => {
    const account = await postGraphQL(server.url, adminKey, 'mutation { createAccount(input: { name: "Spooky LLC" }) { id name } }');
    const accountId = (await account.json()).data.createAccount.id;
    const created = await postGraphQL(server.url, adminKey, createKeyMutation, {
      variables: { input: { accountId, plan: 'FREE', scopes: ['directory:read'] } },
    });
    const { data } = await created.json();
    expect(data.createApiKey).toMatchObject({ signingSecret: null, apiKey: { plan: 'FREE', scopes: ['directory:read'] } });

    const revoked = await postGraphQL(server.url, adminKey, 'mutation ($id: ID!) { revokeApiKey(id: $id) { revokedAt } }', {
      variables: { id: data.createApiKey.apiKey.id },
    });
    expect((await revoked.json()).data.revokeApiKey.revokedAt).toMatch(/Z$/);

    const listed = await postGraphQL(server.url, adminKey, `{ apiKeys(accountId: "${accountId}") { edges { node { id revokedAt } } } }`);
    expect((await listed.json()).data.apiKeys.edges).toHaveLength(1);
  });

  it('refuses non-operators with insufficient_scope', async () => {
    const { key, accountId } = await server.createKey({ scopes: ['bookings:read'] });
    const response = await postGraphQL(server.url, key, createKeyMutation, { variables: { input: { accountId, plan: 'ENTERPRISE', scopes: ['admin'] } } });
    const body = await response.json();
    expect(body.errors[0].extensions.code).toBe('insufficient_scope');
    expect(body.data?.createApiKey ?? null).toBeNull();
    const list = await postGraphQL(server.url, key, '{ apiKeys { edges { node { id } } } }');
    expect((await list.json()).errors[0].extensions.code).toBe('insufficient_scope');
  });

  it('answers invalid input with validation_failed and field errors', async () => {
    const accountId = await newAccount();
    const response = await postGraphQL(server.url, adminKey, createKeyMutation, {
      variables: { input: { accountId, plan: 'FREE', scopes: ['root'] } },
    });
    const error = (await response.json()).errors[0];
    expect(error.extensions.code).toBe('validation_failed');
    expect(error.extensions.errors[0].field).toBe('scopes.0');
  });
});
