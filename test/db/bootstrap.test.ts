import { afterAll, describe, expect, it } from 'vitest';
import { prepareDatabase } from '../../src/bootstrap.js';
import { loadConfig } from '../../src/config.js';
import type { Database } from '../../src/db/connection.js';
import { openTestDatabase } from '../support/database.js';
import { testSecretsKey } from '../support/secrets.js';
import { requireService } from '../support/services.js';

const postgresUrl = await requireService('postgres');
const opened: Database[] = [];
afterAll(async () => {
  for (const database of opened.reverse()) await database.close();
});

describe.skipIf(!postgresUrl)('instances starting together on an empty PostgreSQL database', () => {
  it('seed it once: the second waits for the first and finds it seeded', async () => {
    const empty = await openTestDatabase({ seeded: false, postgresUrl: postgresUrl! });
    opened.push(empty);
    if (empty.config.kind !== 'postgres') throw new Error('expected PostgreSQL');
    const config = loadConfig({
      DATABASE_URL: empty.config.url,
      SEED_ON_START: 'always',
      SECRETS_KEY: testSecretsKey,
      ADMIN_API_KEY: 'key_operator0001.sk_a_long_enough_operator_secret_0001',
    });
    const lines: string[] = [];
    const instances = await Promise.all([prepareDatabase(config, (line) => lines.push(line)), prepareDatabase(config, (line) => lines.push(line))]);
    opened.push(...instances);

    expect(await empty.prisma.category.count()).toBe(8);
    expect(await empty.prisma.account.count({ where: { name: { contains: 'Demo' } } })).toBe(1);
    expect(lines.filter((line) => line.startsWith('demo API key: key_'))).toHaveLength(1);
    expect(lines.filter((line) => /^widget demo: http:\/\/localhost:\d+\/widget\/demo\?token=wt_/.test(line))).toHaveLength(1);
    expect(lines.filter((line) => line.includes('is ready (ADMIN_API_KEY)'))).toHaveLength(2);
    expect(await empty.prisma.apiKey.count({ where: { id: 'key_operator0001' } })).toBe(1);
  });
});
