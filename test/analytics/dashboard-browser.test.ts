import type { Duplex } from 'node:stream';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildDashboard } from '../../src/analytics/dashboard/build.js';
import { answerDeadlineMs } from '../../src/analytics/dashboard/client/api.js';
import { launchChromium } from '../support/browser.js';
import { apiClient, futureSlot, type ApiCall } from '../support/http.js';
import { subscriptionsActive } from '../support/metrics.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { openService } from '../support/bookable.js';

let server: TestServer;
let browser: Browser;
let key: string;
let keyId: string;
let call: ApiCall;
let serviceId: string;
const pages: Page[] = [];
/** Every upgraded (WebSocket) connection, so a test can cut them as a network failure would. */
const upgraded = new Set<Duplex>();

beforeAll(async () => {
  await buildDashboard();
  [server, browser] = await Promise.all([startTestServer({ seed: true, config: { ANALYTICS_FLUSH_MS: 100 } }), launchChromium()]);
  server.app.server.on('upgrade', (_request, socket: Duplex) => {
    upgraded.add(socket);
    socket.once('close', () => upgraded.delete(socket));
  });
  ({ key, keyId } = await server.createKey({ plan: 'free' }));
  call = apiClient(server.url, key);
  serviceId = await openService(server.prisma);

  // Usage to chart: successes and errors on two routes, and an alert that fires on them.
  const rule = await call('POST', '/graphql', { query: 'mutation { createAlertRule(input: { metric: DAILY_REQUESTS, threshold: 5 }) { id } }' });
  expect(rule.body.errors).toBeUndefined();
  for (let index = 0; index < 8; index++) await call('GET', '/api/v1/categories');
  for (let index = 0; index < 4; index++) await call('GET', '/v1/bookings/bk_missing');
});

afterEach(async () => {
  await Promise.all(pages.splice(0).map((page) => page.close()));
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function signIn(withKey: string): Promise<Page> {
  const page = await browser.newPage();
  pages.push(page);
  await page.goto(`${server.url}/dashboard`);
  await page.getByLabel('API key').fill(withKey);
  await page.getByRole('button', { name: 'Show usage' }).click();
  return page;
}

const book = async (days: number) =>
  (await call('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(days), customer: { name: 'Dash', email: 'dash@example.com' } })).body.id as string;

describe('the dashboard', () => {
  it('works in a browser whose language is not a valid locale tag (en-US@posix, as LANG=C.UTF-8 gives)', async () => {
    const context = await browser.newContext({ locale: 'en-US@posix' });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    try {
      await page.goto(`${server.url}/dashboard`);
      expect(await page.evaluate(() => navigator.language)).toBe('en-US@posix');
      await page.getByLabel('API key').fill(key);
      await page.getByRole('button', { name: 'Show usage' }).click();
      await page.locator('#dashboard').waitFor({ timeout: 10_000 });
      await page.locator('#usage-chart canvas').waitFor();
      expect(await page.locator('#rate-limit').textContent()).toMatch(/requests used this minute/);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('charts the key’s usage and shows its rate-limit state, routes and alerts', async () => {
    await expect.poll(() => server.prisma.usageAlert.count({ where: { apiKeyId: keyId } }), { timeout: 10_000 }).toBeGreaterThan(0);
    const page = await signIn(key);
    await page.locator('#dashboard').waitFor();
    const chart = page.locator('#usage-chart');
    await chart.locator('canvas').waitFor();
    expect(Number(await chart.getAttribute('data-total'))).toBeGreaterThanOrEqual(12);
    expect(await chart.getAttribute('aria-label')).toMatch(/^Requests per minute: \d+ in the range, 4 errors\.$/);
    expect(await page.locator('#rate-limit').textContent()).toMatch(/^\d+ of 100 requests used this minute \(\d+ left, resets in \d+ s\)\.$/);
    expect(await page.locator('#rate-meter').isVisible()).toBe(true);
    const routes = await page.locator('#routes tr').allTextContents();
    expect(routes.some((row) => row.startsWith('GET /api/v1/categories8'))).toBe(true);
    expect(routes.some((row) => row.startsWith('GET /v1/bookings/:id44'))).toBe(true);
    expect(await page.locator('#alerts li').first().textContent()).toMatch(/requests on the day \(threshold 5\)$/);

    await page.getByLabel('per hour').check();
    await expect.poll(() => chart.getAttribute('aria-label'), { timeout: 10_000 }).toMatch(/^Requests per hour/);
    await page.screenshot({ path: 'test-results/dashboard.png', fullPage: true });
  });

  it('says so when the server does not answer within its deadline, instead of waiting for ever', async () => {
    const page = await browser.newPage();
    pages.push(page);
    await page.clock.install();
    // A server that takes the request and never answers, as a hung gateway or proxy would.
    await page.route('**/graphql', () => undefined);
    await page.goto(`${server.url}/dashboard`);
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Show usage' }).click();
    await page.clock.runFor(answerDeadlineMs - 1_000);
    expect(await page.locator('#login-error').textContent()).toBe('');
    await page.clock.runFor(1_000);
    await expect.poll(() => page.locator('#login-error').textContent()).toBe(`The server did not answer within ${answerDeadlineMs / 1000} s.`);
  });

  it('keeps the key out of storage, cookies, the URL and the form', async () => {
    const page = await signIn(key);
    await page.locator('#dashboard').waitFor();
    const traces = await page.evaluate(() => ({
      local: localStorage.length,
      session: sessionStorage.length,
      cookie: document.cookie,
      url: location.href,
      field: (document.getElementById('key') as HTMLInputElement).value,
    }));
    expect(traces).toEqual({ local: 0, session: 0, cookie: '', url: `${server.url}/dashboard`, field: '' });
  });

  it('says so when the key is refused, and stays on the sign-in form', async () => {
    const page = await signIn('key_nonexistent0000000000.sk_nonexistent00000000000000000');
    await expect.poll(() => page.locator('#login-error').textContent()).not.toBe('');
    expect(await page.locator('#dashboard').isHidden()).toBe(true);
    const { key: directoryOnly } = await server.createKey({ scopes: ['directory:read'] });
    const limited = await signIn(directoryOnly);
    await expect.poll(() => limited.locator('#login-error').textContent()).toBe('This key needs the analytics:read and bookings:read scopes.');
  });

  it('shows a booking created elsewhere within a second, and after a dropped connection what it missed, once', async () => {
    const subscribedBefore = await subscriptionsActive(server.url);
    const page = await signIn(key);
    await page.locator('#feed-status', { hasText: 'Live' }).waitFor();
    // "Live" shows once the socket is acknowledged; the feed's subscription starts just after.
    await expect.poll(() => subscriptionsActive(server.url)).toBeGreaterThan(subscribedBefore);
    const live = await book(70);
    await page.locator('#feed li', { hasText: live }).waitFor({ timeout: 1000 });

    for (const socket of upgraded) socket.destroy();
    await page.locator('#feed-status', { hasText: 'Reconnecting…' }).waitFor();
    const missed = await book(71);
    await call('DELETE', `/v1/bookings/${missed}`);
    await page.locator('#feed-status', { hasText: 'Live' }).waitFor();
    await page.locator('#feed li', { hasText: `booking.cancelled ${missed}` }).waitFor();
    const feed = await page.locator('#feed li').allTextContents();
    expect(feed.filter((entry) => entry.includes(missed))).toHaveLength(2);
    expect(feed.filter((entry) => entry.includes(live))).toHaveLength(1);
    // Newest first: the cancellation above the creation it follows.
    expect(feed.findIndex((entry) => entry.includes(`booking.cancelled ${missed}`))).toBeLessThan(feed.findIndex((entry) => entry.includes(`booking.created ${missed}`)));
  });

  it('shows a waitlist offer as whom it is for and the hold to book before it lapses', async () => {
    const page = await signIn(key);
    // Live or in the first page of the log, the line reads the same: what is tested here is how it reads.
    await page.locator('#feed-status', { hasText: 'Live' }).waitFor();
    const smallService = await openService(server.prisma, { capacity: 2 });
    const slot = futureSlot(72);
    const full = await call('POST', '/v1/bookings', { service_id: smallService, start_time: slot, party_size: 2, customer: { name: 'Dash', email: 'dash@example.com' } });
    expect(full.status).toBe(201);
    const joined = await call('POST', '/v1/waitlist_entries', {
      service_id: smallService,
      start_time: slot,
      party_size: 2,
      customer: { name: 'Wanda', email: 'wanda@example.com' },
    });
    expect(joined.body.status).toBe('waiting');
    // The cancellation frees both places: the entry is offered them, as a hold of its own.
    expect((await call('DELETE', `/v1/bookings/${full.body.id}`)).status).toBe(200);
    const entry = await call('GET', `/v1/waitlist_entries/${joined.body.id}`);
    expect(entry.body.status).toBe('offered');
    const holdId = entry.body.offer.hold_id as string;

    const line = page.locator('#feed li', { hasText: `waitlist.offered ${joined.body.id}` });
    await line.waitFor();
    expect(await line.textContent()).toMatch(new RegExp(`: waitlist\\.offered ${joined.body.id}, offer to Wanda \\(party of 2\\): ${holdId} until .+, starts .+$`));
    expect(await line.getAttribute('class')).toContain('waitlist-offered');
  });

  it('serves the page under a strict CSP and its script with validators', async () => {
    const page = await fetch(`${server.url}/dashboard`);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'; script-src 'nonce-[^']+'/);
    const script = await fetch(`${server.url}/dashboard.js`, { headers: { 'accept-encoding': 'gzip' } });
    expect(script.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toBe('public, max-age=300');
    const etag = script.headers.get('etag')!;
    const again = await fetch(`${server.url}/dashboard.js`, { headers: { 'accept-encoding': 'gzip', 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect((await fetch(`${server.url}/dashboard`, { method: 'POST' })).status).toBe(405);
  });
});
