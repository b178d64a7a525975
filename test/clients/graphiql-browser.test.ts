import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { graphiqlContentSecurityPolicy } from '../../src/server/graphiql.js';
import { launchChromium } from '../support/browser.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
let browser: Browser;
let key: string;
let accountId: string;
const pages: Page[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchChromium()]);
  ({ key, accountId } = await server.createKey({ scopes: ['directory:read'] }));
});
afterEach(async () => {
  await Promise.all(pages.splice(0).map((page) => page.close()));
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** A page that can reach this machine only: every request elsewhere fails, as it would offline. */
async function offlinePage() {
  const page = await browser.newPage();
  pages.push(page);
  const blocked: string[] = [];
  const refused: string[] = [];
  await page.route('**/*', (route) => {
    const { hostname, protocol } = new URL(route.request().url());
    if (protocol === 'data:' || protocol === 'blob:' || hostname === '127.0.0.1' || hostname === 'localhost') return route.continue();
    blocked.push(route.request().url());
    return route.abort('internetdisconnected');
  });
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
  });
  return { page, blocked, refused };
}

describe('GraphiQL at /graphql', () => {
  it('renders and runs a query with no network but this machine, under a policy that admits only this origin', async () => {
    const { page, blocked, refused } = await offlinePage();
    const response = await page.goto(`${server.url}/graphql`);
    expect(response!.status()).toBe(200);
    expect(response!.headers()['content-security-policy']).toBe(graphiqlContentSecurityPolicy);
    await expect(page.title()).resolves.toBe('hallowgate');

    // The headers editor holds a placeholder Authorization header: replace it with the key.
    await page.getByText('Headers', { exact: true }).click();
    const headers = page.locator('.graphiql-editor-tool .monaco-editor').last();
    await headers.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.insertText(JSON.stringify({ Authorization: `Bearer ${key}` }));
    // The editor closes brackets and quotes as they are typed: drop what it added after the cursor.
    await page.keyboard.press('Shift+ControlOrMeta+End');
    await page.keyboard.press('Delete');
    await page.getByRole('button', { name: /Execute query/i }).click();

    const result = page.locator('.graphiql-response');
    await expect.poll(() => result.innerText(), { timeout: 20_000 }).toContain(accountId);
    expect(blocked).toEqual([]);
    expect(refused).toEqual([]);
  });
});
