import { createClient, type Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { maxAlertRulesPerKey } from '../../src/analytics/alerts.js';
import { newId } from '../../src/shared/ids.js';
import { apiClient } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { requireService } from '../support/services.js';

const postgresUrl = await requireService('postgres');

let server: TestServer;
/** The server's clock; tests move it from minute to minute. */
let now = new Date('2026-10-31T18:30:10Z');

beforeAll(async () => {
  server = await startTestServer({ clock: () => now, config: { ANALYTICS_FLUSH_MS: 50 } });
});
afterAll(() => server?.close());

async function graphql(key: string, query: string, variables: Record<string, unknown> = {}) {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return response.json();
}

const createRule = `mutation ($input: AlertRuleInput!) { createAlertRule(input: $input) { id metric threshold windowMinutes } }`;

async function addRule(key: string, input: Record<string, unknown>): Promise<string> {
  const result = await graphql(key, createRule, { input });
  expect(result.errors).toBeUndefined();
  return result.data.createAlertRule.id;
}

async function requests(key: string, path: string, count: number) {
  const call = apiClient(server.url, key);
  for (let index = 0; index < count; index++) await call('GET', path);
}

/** Polls until the key has `count` alerts (no timing is asserted). */
async function alertsOf(apiKeyId: string, count: number) {
  for (;;) {
    const alerts = await server.prisma.usageAlert.findMany({ where: { apiKeyId }, orderBy: { windowStart: 'asc' } });
    if (alerts.length >= count) return alerts;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function subscribeToAlerts(key: string) {
  const client: Client = createClient({
    url: `${server.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${key}` },
    retryAttempts: 0,
  });
  const received: Array<{ ruleId: string; metric: string; windowStart: string; value: number }> = [];
  const waiters: Array<() => void> = [];
  const subscribed = new Promise<void>((resolve) => {
    client.on('connected', () => resolve());
  });
  client.subscribe(
    { query: 'subscription { usageAlerts { ruleId metric windowStart value } }' },
    {
      next: (message) => {
        received.push((message.data as { usageAlerts: (typeof received)[number] }).usageAlerts);
        waiters.splice(0).forEach((wake) => wake());
      },
      error: () => undefined,
      complete: () => undefined,
    },
  );
  return {
    subscribed,
    async nextCount(count: number) {
      while (received.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
      return received;
    },
    dispose: () => client.dispose(),
  };
}

describe('rate_limit_share alerts', () => {
  it('fire once per minute window and reach the account’s subscription', async () => {
    // Free plan: 100 requests a minute; the rule fires at 5.
    const { key, keyId } = await server.createKey({ plan: 'free' });
    const subscription = subscribeToAlerts(key);
    try {
      await subscription.subscribed;
      const ruleId = await addRule(key, { metric: 'RATE_LIMIT_SHARE', threshold: 0.05 });
      await requests(key, '/api/v1/categories', 10);
      const [first] = await subscription.nextCount(1);
      expect(first).toMatchObject({ ruleId, metric: 'RATE_LIMIT_SHARE', windowStart: '2026-10-31T18:30:00Z' });
      expect(first!.value).toBeGreaterThanOrEqual(0.05);

      // More in the same minute: no second alert for it. The next minute has its own window.
      await requests(key, '/api/v1/categories', 10);
      now = new Date('2026-10-31T18:31:10Z');
      await requests(key, '/api/v1/categories', 10);
      const received = await subscription.nextCount(2);
      expect(received.map((alert) => alert.windowStart)).toEqual(['2026-10-31T18:30:00Z', '2026-10-31T18:31:00Z']);
      expect((await alertsOf(keyId, 2)).map((alert) => alert.windowStart.toISOString())).toEqual(['2026-10-31T18:30:00.000Z', '2026-10-31T18:31:00.000Z']);
    } finally {
      await subscription.dispose();
    }
  });

  it("reach only the subscription of the key they watch, not its account's other keys'", async () => {
    const watched = await server.createKey({ plan: 'free' });
    const sibling = await server.createKey({ plan: 'free', accountId: watched.accountId });
    const siblingSubscription = subscribeToAlerts(sibling.key);
    const watchedSubscription = subscribeToAlerts(watched.key);
    try {
      await Promise.all([siblingSubscription.subscribed, watchedSubscription.subscribed]);
      const watchedRule = await addRule(watched.key, { metric: 'RATE_LIMIT_SHARE', threshold: 0.05 });
      await requests(watched.key, '/api/v1/categories', 10);
      expect((await watchedSubscription.nextCount(1)).map((alert) => alert.ruleId)).toEqual([watchedRule]);
      // Announced in order on the account's channel: the sibling's own alert comes after the other would have.
      const siblingRule = await addRule(sibling.key, { metric: 'RATE_LIMIT_SHARE', threshold: 0.05 });
      await requests(sibling.key, '/api/v1/categories', 10);
      expect((await siblingSubscription.nextCount(1)).map((alert) => alert.ruleId)).toEqual([siblingRule]);
    } finally {
      await Promise.all([siblingSubscription.dispose(), watchedSubscription.dispose()]);
    }
  });

  it('stop at the whole limit: the requests refused past it are counted, the share is at most 1', async () => {
    const { key, keyId } = await server.createKey({ plan: 'free' });
    // 110 in one minute: 100 answered, 10 refused 429, all counted once flushed.
    await requests(key, '/api/v1/categories', 110);
    for (;;) {
      const counted = await server.prisma.usageBucket.aggregate({ where: { apiKeyId: keyId }, _sum: { requests: true } });
      if ((counted._sum.requests ?? 0) >= 110) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Written straight in: the key, over its limit, is refused the mutation too.
    await server.prisma.alertRule.create({ data: { id: newId('alertRule'), apiKeyId: keyId, metric: 'rate_limit_share', threshold: 0.99 } });
    await requests(key, '/api/v1/categories', 1);
    const [alert] = await alertsOf(keyId, 1);
    expect(alert!.value).toBe(1);
  });

  it('never reach another account’s subscription', async () => {
    const { key: otherKey, keyId: otherKeyId } = await server.createKey();
    const other = subscribeToAlerts(otherKey);
    await other.subscribed;
    const { key, keyId } = await server.createKey({ plan: 'free' });
    await addRule(key, { metric: 'RATE_LIMIT_SHARE', threshold: 0.01 });
    await requests(key, '/api/v1/categories', 2);
    await alertsOf(keyId, 1);
    // A later alert of the other account's own key arrives, and it is the first the socket got.
    await addRule(otherKey, { metric: 'DAILY_REQUESTS', threshold: 1 });
    await requests(otherKey, '/api/v1/categories', 1);
    const received = await other.nextCount(1);
    expect(received).toHaveLength(1);
    expect(received[0]!.metric).toBe('DAILY_REQUESTS');
    expect((await alertsOf(otherKeyId, 1))[0]!.metric).toBe('daily_requests');
    await other.dispose();
  });
});

describe('daily_requests and error_rate alerts', () => {
  it('fire on a day’s request count and on a window’s error share, and are listed on Viewer', async () => {
    const { key, keyId } = await server.createKey();
    const dailyRule = await addRule(key, { metric: 'DAILY_REQUESTS', threshold: 25 });
    const errorRule = await addRule(key, { metric: 'ERROR_RATE', threshold: 0.5, windowMinutes: 15 });
    // With the two rule creations: 16 successes, then 12 answers of 404 — over 25 requests today, and
    // never more than 12 of 28 (43 %) errors. Only the next ten 404s (22 of 38) pass 50 %.
    await requests(key, '/api/v1/categories', 14);
    await requests(key, '/v1/bookings/bk_missing', 12);
    const [daily] = await alertsOf(keyId, 1);
    expect(daily).toMatchObject({ ruleId: dailyRule, metric: 'daily_requests' });
    expect(daily!.windowStart.toISOString()).toBe('2026-10-31T00:00:00.000Z');
    expect(daily!.windowEnd.toISOString()).toBe('2026-11-01T00:00:00.000Z');

    await requests(key, '/v1/bookings/bk_missing', 10);
    const alerts = await alertsOf(keyId, 2);
    const errorAlert = alerts.find((alert) => alert.ruleId === errorRule)!;
    expect(errorAlert.value).toBeGreaterThanOrEqual(0.5);
    expect(errorAlert.windowStart.toISOString()).toBe('2026-10-31T18:30:00.000Z');
    expect(errorAlert.windowEnd.toISOString()).toBe('2026-10-31T18:45:00.000Z');

    const listed = await graphql(key, '{ viewer { alertRules { id metric windowMinutes } usageAlerts { ruleId metric threshold windowStart windowEnd } } }');
    expect(listed.data.viewer.alertRules.map((rule: { id: string }) => rule.id)).toEqual([dailyRule, errorRule]);
    // Each rule's window as it is watched: the UTC day, and the chosen 15 minutes.
    expect(listed.data.viewer.alertRules.map((rule: { windowMinutes: number }) => rule.windowMinutes)).toEqual([1440, 15]);
    expect(listed.data.viewer.usageAlerts.map((alert: { ruleId: string }) => alert.ruleId).sort()).toEqual([dailyRule, errorRule].sort());
  });
});

describe('alert rules', () => {
  it(`allows ${maxAlertRulesPerKey} rules per key; the next is too_many_alert_rules, and a deleted one frees its place`, async () => {
    const { key, accountId } = await server.createKey();
    const ruleIds: string[] = [];
    for (let index = 0; index < maxAlertRulesPerKey; index++) ruleIds.push(await addRule(key, { metric: 'DAILY_REQUESTS', threshold: 1000 + index }));
    const refused = await graphql(key, createRule, { input: { metric: 'DAILY_REQUESTS', threshold: 1 } });
    expect(refused.data).toBeNull();
    expect(refused.errors[0].extensions.code).toBe('too_many_alert_rules');
    // The cap is the key's, not the account's.
    const { key: sibling } = await server.createKey({ accountId });
    await addRule(sibling, { metric: 'DAILY_REQUESTS', threshold: 1 });

    await graphql(key, 'mutation ($id: ID!) { deleteAlertRule(id: $id) { id } }', { id: ruleIds[0] });
    await addRule(key, { metric: 'DAILY_REQUESTS', threshold: 1 });
    expect((await graphql(key, '{ viewer { alertRules { id } } }')).data.viewer.alertRules).toHaveLength(maxAlertRulesPerKey);
  });

  it.skipIf(!postgresUrl)('lets only one of several concurrent creations take the last place (PostgreSQL)', async () => {
    const shared = await startTestServer({ postgresUrl: postgresUrl! });
    try {
      const { key } = await shared.createKey();
      const create = (threshold: number) =>
        fetch(`${shared.url}/graphql`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ query: createRule, variables: { input: { metric: 'DAILY_REQUESTS', threshold } } }),
        }).then((response) => response.json());
      for (let index = 0; index < maxAlertRulesPerKey - 1; index++) expect((await create(index + 1)).errors).toBeUndefined();
      const racing = await Promise.all(Array.from({ length: 6 }, (_, index) => create(100 + index)));
      expect(racing.map((result) => result.errors?.[0].extensions.code ?? 'created').sort()).toEqual(['created', ...Array(5).fill('too_many_alert_rules')]);
      expect(await shared.prisma.alertRule.count()).toBe(maxAlertRulesPerKey);
    } finally {
      await shared.close();
    }
  });

  it('are validated, and deleted only by their own key', async () => {
    const { key } = await server.createKey();
    const tooHigh = await graphql(key, createRule, { input: { metric: 'ERROR_RATE', threshold: 2 } });
    expect(tooHigh.errors[0].extensions.code).toBe('validation_failed');
    const windowed = await graphql(key, createRule, { input: { metric: 'DAILY_REQUESTS', threshold: 100, windowMinutes: 5 } });
    expect(windowed.errors[0].extensions.code).toBe('validation_failed');
    const halfARequest = await graphql(key, createRule, { input: { metric: 'DAILY_REQUESTS', threshold: 0.5 } });
    expect(halfARequest.errors[0].extensions).toMatchObject({ code: 'validation_failed', errors: [{ field: 'threshold' }] });

    const ruleId = await addRule(key, { metric: 'DAILY_REQUESTS', threshold: 100 });
    const deleteRule = `mutation ($id: ID!) { deleteAlertRule(id: $id) { id } }`;
    const { key: stranger } = await server.createKey();
    expect((await graphql(stranger, deleteRule, { id: ruleId })).errors[0].extensions.code).toBe('not_found');
    expect((await graphql(key, deleteRule, { id: ruleId })).data.deleteAlertRule.id).toBe(ruleId);
    expect((await graphql(key, '{ viewer { alertRules { id } } }')).data.viewer.alertRules).toEqual([]);

    const { key: noScope } = await server.createKey({ scopes: ['directory:read'] });
    expect((await graphql(noScope, createRule, { input: { metric: 'DAILY_REQUESTS', threshold: 1 } })).errors[0].extensions.code).toBe('insufficient_scope');
  });
});
