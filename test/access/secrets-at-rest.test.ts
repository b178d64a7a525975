import { pino } from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/access/keys.js';
import { signRequest } from '../../src/access/signing.js';
import { createApp } from '../../src/app.js';
import { prepareDatabase } from '../../src/bootstrap.js';
import { loadConfig } from '../../src/config.js';
import { newId } from '../../src/shared/ids.js';
import { createSecretBox, randomSecretsKey, sealedPrefix } from '../../src/shared/secrets.js';
import { openTestDatabase } from '../support/database.js';
import { apiClient, futureSlot } from '../support/http.js';
import { startReceiver } from '../support/receiver.js';
import { testSecretsKey } from '../support/secrets.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { requireService } from '../support/services.js';
import { runCli, startServerProcess } from './processes.js';
import { openService } from '../support/bookable.js';

const postgresUrl = await requireService('postgres');
const customer = { name: 'Secret Keeper', email: 'secrets@example.com' };
const graphqlBody = JSON.stringify({ query: '{ __typename }' });

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ seed: true, config: { WEBHOOK_POLL_MS: 25 } });
});
afterAll(() => server?.close());

function signedGraphQL(url: string, key: string, signingSecret: string) {
  return fetch(`${url}/graphql`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      ...signRequest({ signingSecret, method: 'POST', url: '/graphql', body: graphqlBody }),
    },
    body: graphqlBody,
  });
}

describe('secrets at rest', () => {
  it('stores webhook secrets (current and previous) and signing secrets encrypted; deliveries and signed requests still verify', async () => {
    const { key, keyId, signingSecret } = await server.createKey({ plan: 'enterprise', requireSignature: true });
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          ...signRequest({ signingSecret: signingSecret!, method, url: path, body: body === undefined ? '' : JSON.stringify(body) }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }).then(async (response) => ({ status: response.status, body: await response.json() }));
    const receiver = await startReceiver();
    const created = await call('POST', '/v1/webhook_endpoints', { url: receiver.url, events: ['booking.created'] });
    expect(created.status).toBe(201);
    const rotated = await call('POST', `/v1/webhook_endpoints/${created.body.id}/rotate_secret`);
    expect(rotated.body.secret).toMatch(/^whsec_/);

    const [endpointRow] = await server.prisma.$queryRaw<
      { secret: string; previous_secret: string }[]
    >`SELECT secret, previous_secret FROM webhook_endpoints WHERE id = ${created.body.id}`;
    const [keyRow] = await server.prisma.$queryRaw<{ signing_secret: string }[]>`SELECT signing_secret FROM api_keys WHERE id = ${keyId}`;
    for (const [stored, shown] of [
      [endpointRow!.secret, rotated.body.secret],
      [endpointRow!.previous_secret, created.body.secret],
      [keyRow!.signing_secret, signingSecret!],
    ] as const) {
      expect(stored.startsWith(sealedPrefix)).toBe(true);
      expect(stored).not.toContain(shown);
      expect(stored).not.toContain(shown.replace(/^(whsec|hs)_/, ''));
    }

    const service = { id: await openService(server.prisma) };
    expect((await call('POST', '/v1/bookings', { service_id: service.id, start_time: futureSlot(80), customer })).status).toBe(201);
    const [webhook] = await receiver.waitFor(1);
    for (const secret of [created.body.secret, rotated.body.secret]) {
      expect(() => new Webhook(secret).verify(webhook!.body, webhook!.headers as Record<string, string>)).not.toThrow();
    }
    expect((await signedGraphQL(server.url, key, signingSecret!)).status).toBe(200);
    await receiver.close();
  });

  it.skipIf(!postgresUrl)('fails start-up with one line when a PostgreSQL DATABASE_URL comes without SECRETS_KEY', async () => {
    const failure = await startServerProcess({ DATABASE_URL: postgresUrl!, SECRETS_KEY: '' }).then(
      async (started) => {
        await started.stop();
        throw new Error('the server started');
      },
      (error: Error) => error.message,
    );
    const output = failure.split('\n').slice(1).filter(Boolean);
    expect(output).toEqual([expect.stringMatching(/^hallowgate: SECRETS_KEY is required with a PostgreSQL DATABASE_URL/)]);
  });
});

describe.skipIf(!postgresUrl)('rows written in plain text before encryption (PostgreSQL)', () => {
  it('are encrypted by the start-up migration, once, and still sign; another key is refused at start-up', async () => {
    const database = await openTestDatabase({ seeded: true, postgresUrl: postgresUrl! });
    if (database.config.kind !== 'postgres') throw new Error('expected PostgreSQL');
    const config = loadConfig({
      DATABASE_URL: database.config.url,
      SECRETS_KEY: testSecretsKey,
      SEED_ON_START: 'never',
      LOG_LEVEL: 'silent',
      WEBHOOK_ALLOW_PRIVATE: '1',
      WEBHOOK_POLL_MS: '25',
    });
    const receiver = await startReceiver();
    const account = await database.prisma.account.create({ data: { id: newId('account'), name: 'From before' } });
    const { key, record, signingSecret } = await createApiKey(database.prisma, createSecretBox(config.SECRETS_KEY!), {
      accountId: account.id,
      plan: 'enterprise',
      scopes: ['bookings:read', 'bookings:write', 'webhooks:manage'],
    });
    const webhookSecret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const endpointId = newId('webhookEndpoint');
    await database.prisma.$executeRaw`UPDATE api_keys SET signing_secret = ${signingSecret} WHERE id = ${record.id}`;
    await database.prisma.$executeRaw`
      INSERT INTO webhook_endpoints (id, account_id, url, events, secret, previous_secret, previous_secret_expires_at, updated_at)
      VALUES (${endpointId}, ${account.id}, ${receiver.url}, ARRAY['booking.created'], ${webhookSecret}, 'whsec_b2xkb2xkb2xkb2xkb2xkb2xkb2xk', ${new Date(Date.now() + 3_600_000)}, now())`;
    const readStored = async () => {
      const [endpoint] = await database.prisma.$queryRaw<
        { secret: string; previous_secret: string }[]
      >`SELECT secret, previous_secret FROM webhook_endpoints WHERE id = ${endpointId}`;
      const [apiKey] = await database.prisma.$queryRaw<{ signing_secret: string }[]>`SELECT signing_secret FROM api_keys WHERE id = ${record.id}`;
      return [endpoint!.secret, endpoint!.previous_secret, apiKey!.signing_secret];
    };

    const prepared = await prepareDatabase(config, () => undefined);
    const app = createApp({ config, database: prepared, secrets: prepared.secrets, logger: pino({ level: 'silent' }) });
    try {
      const encrypted = await readStored();
      expect(encrypted.every((value) => value.startsWith(sealedPrefix))).toBe(true);
      const again = await prepareDatabase(config, () => undefined);
      await again.close();
      expect(await readStored()).toEqual(encrypted);
      const otherSecretsKey = randomSecretsKey().toString('base64');
      const otherKey = loadConfig({ DATABASE_URL: database.config.url, SECRETS_KEY: otherSecretsKey, SEED_ON_START: 'never' });
      await expect(prepareDatabase(otherKey, () => undefined)).rejects.toThrow(/SECRETS_KEY does not decrypt the secrets stored/);
      // The CLI straight on the database, too, before it writes a secret no server could open.
      const keysBefore = await database.prisma.apiKey.count({ where: { accountId: account.id } });
      const cli = await runCli(['keys', 'create', '--account', account.id, '--plan', 'enterprise', '--scopes', 'bookings:read', '--require-signature'], {
        DATABASE_URL: database.config.url,
        SECRETS_KEY: otherSecretsKey,
      });
      expect([cli.code, cli.stderr.trim().split('\n')]).toEqual([2, [expect.stringMatching(/^hallowgate: SECRETS_KEY does not decrypt the secrets stored in the database/)]]);
      expect(await database.prisma.apiKey.count({ where: { accountId: account.id } })).toBe(keysBefore);

      const url = await app.listen(0, '127.0.0.1');
      const service = { id: await openService(database.prisma) };
      expect((await apiClient(url, key)('POST', '/v1/bookings', { service_id: service.id, start_time: futureSlot(81), customer })).status).toBe(201);
      const [webhook] = await receiver.waitFor(1);
      expect(() => new Webhook(webhookSecret).verify(webhook!.body, webhook!.headers as Record<string, string>)).not.toThrow();
      expect((await signedGraphQL(url, key, signingSecret!)).status).toBe(200);
    } finally {
      await app.close();
      await prepared.close();
      await receiver.close();
      await database.close();
    }
  });
});
