import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { graphiqlContentSecurityPolicy } from '../../src/server/graphiql.js';
import { openService } from '../support/bookable.js';
import { launchChromium } from '../support/browser.js';
import { apiClient, futureSlot, type ApiCall } from '../support/http.js';
import { subscriptionsActive } from '../support/metrics.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
let browser: Browser;
let key: string;
let accountId: string;
let directoryOnlyKey: string;
let serviceId: string;
let call: ApiCall;
const pages: Page[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer({ seed: true }), launchChromium()]);
  ({ key, accountId } = await server.createKey({ scopes: ['bookings:read', 'bookings:write', 'directory:read'] }));
  ({ key: directoryOnlyKey } = await server.createKey({ scopes: ['directory:read'] }));
  serviceId = await openService(server.prisma);
  call = apiClient(server.url, key);
});
afterEach(async () => {
  await Promise.all(pages.splice(0).map((page) => page.close()));
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** GraphiQL on a page that can reach this machine only: every request elsewhere fails, as it would offline. */
async function openGraphiQL(onRequest: (request: Request) => void = () => undefined) {
  const page = await browser.newPage();
  pages.push(page);
  const blocked: string[] = [];
  const refused: string[] = [];
  await page.route('**/*', (route) => {
    onRequest(route.request());
    const { hostname, protocol } = new URL(route.request().url());
    if (protocol === 'data:' || protocol === 'blob:' || hostname === '127.0.0.1' || hostname === 'localhost') return route.continue();
    blocked.push(route.request().url());
    return route.abort('internetdisconnected');
  });
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
  });
  const response = await page.goto(`${server.url}/graphql`);
  expect(response!.status()).toBe(200);
  expect(response!.headers()['content-security-policy']).toBe(graphiqlContentSecurityPolicy);
  await expect(page.title()).resolves.toBe('hallowgate');
  await page.getByText('Headers', { exact: true }).click();
  return { page, blocked, refused };
}

/** Replaces an editor's text as a user would: select all, type. */
async function typeInto(page: Page, editor: 'query' | 'headers', text: string) {
  const selector = editor === 'query' ? '.graphiql-query-editor .monaco-editor' : '.graphiql-editor-tool .monaco-editor';
  await page.locator(selector).last().click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.insertText(text);
  // The editor closes brackets and quotes as they are typed: drop what it added after the cursor.
  await page.keyboard.press('Shift+ControlOrMeta+End');
  await page.keyboard.press('Delete');
}

const useKey = (page: Page, apiKey: string) => typeInto(page, 'headers', JSON.stringify({ Authorization: `Bearer ${apiKey}` }));

async function run(page: Page, operation: string) {
  await typeInto(page, 'query', operation);
  // GraphiQL takes in an edit a moment later (then it shows the query in the address): run only then,
  // or it runs the operation name of the text before
  // (the editor re-indents what is typed, so compare the words alone).
  const words = (text: string | null) => text?.split(/\s+/).join(' ').trim();
  await expect.poll(() => words(new URL(page.url()).searchParams.get('query')), { timeout: 10_000 }).toBe(words(operation));
  await page.getByRole('button', { name: /Execute query/i }).click();
}

/** The result pane's text (the editor draws spaces as no-break spaces). */
const response = (page: Page) => async () => (await page.locator('.graphiql-response').innerText()).replaceAll('\u00a0', ' ');

/** Whether GraphiQL shows an operation in progress (its stop button) rather than the run button. */
const isRunning = (page: Page) => page.getByRole('button', { name: /Stop query/i }).isVisible();

const dashboard = 'subscription Dashboard {\n  bookingEvents(types: [CREATED, CANCELLED]) { id event created data booking { id status } }\n}';

describe('GraphiQL at /graphql, with the key typed under Headers', () => {
  it('runs a query, a mutation and a subscription that receives a booking made over REST, with no network but this machine', async () => {
    const { page, blocked, refused } = await openGraphiQL();
    await useKey(page, key);

    await run(page, '{\n  viewer { accountId scopes }\n}');
    await expect.poll(response(page), { timeout: 20_000 }).toContain(accountId);

    await run(
      page,
      `mutation Book {\n  createBooking(input: { serviceId: "${serviceId}", startTime: "${futureSlot(30)}", partySize: 3, customer: { name: "Ada", email: "ada@example.com" } }, idempotencyKey: "graphiql-book") {\n    booking { id status }\n  }\n}`,
    );
    await expect.poll(response(page), { timeout: 20_000 }).toContain('"status": "CONFIRMED"');
    const [, bookingId] = /"id": "(bk_[^"]+)"/.exec(await response(page)())!;
    expect((await call('GET', `/v1/bookings/${bookingId}`)).body).toMatchObject({ id: bookingId, party_size: 3, status: 'confirmed' });

    // A stream without a resumption point starts where the log is when the server subscribes, which
    // is after GraphiQL shows the request as running: book only once the server counts the stream.
    const streamsBefore = await subscriptionsActive(server.url);
    await run(page, dashboard);
    await expect.poll(() => isRunning(page), { timeout: 20_000 }).toBe(true);
    await expect.poll(() => subscriptionsActive(server.url), { timeout: 20_000 }).toBe(streamsBefore + 1);
    const booked = await call('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(31), customer: { name: 'Sub', email: 'sub@example.com' } });
    expect(booked.status).toBe(201);
    await expect.poll(response(page), { timeout: 20_000 }).toContain(booked.body.id);
    expect(await response(page)()).toContain('"event": "booking.created"');

    expect(blocked).toEqual([]);
    expect(refused).toEqual([]);
  });

  it('shows why a subscription is refused, for a key without the scope and for a key that is not valid', async () => {
    const { page } = await openGraphiQL();
    await useKey(page, directoryOnlyKey);
    await run(page, dashboard);
    await expect.poll(response(page), { timeout: 20_000 }).toContain('"message": "This needs the bookings:read scope."');
    await expect.poll(() => isRunning(page), { timeout: 5_000 }).toBe(false);

    // The right shape, the wrong secret.
    await useKey(page, key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A'));
    await run(page, dashboard);
    await expect.poll(response(page), { timeout: 20_000 }).toContain('"message": "The API key is not valid."');
    await expect.poll(() => isRunning(page), { timeout: 5_000 }).toBe(false);
  });

  it('shows Docs before a key is typed, sends nothing to /graphql until an operation is run, and then says what is wrong with the key', async () => {
    const sent: string[] = [];
    const { page } = await openGraphiQL((request) => {
      // The page itself is at /graphql too: only the operations' requests count.
      if (request.resourceType() === 'fetch' && new URL(request.url()).pathname === '/graphql') sent.push(request.url());
    });
    await page.getByRole('button', { name: /Show Documentation Explorer/i }).click();
    const docs = page.locator('.graphiql-doc-explorer');
    await expect.poll(() => docs.innerText(), { timeout: 20_000 }).toContain('Root Types');
    await docs.getByText('Query', { exact: true }).click();
    await expect.poll(() => docs.innerText(), { timeout: 20_000 }).toContain('attractions');
    expect(await response(page)()).toBe('');
    expect(sent).toEqual([]);

    // The page's own placeholder, still under Headers: the gateway's answer names the form a key has.
    await run(page, '{\n  viewer { accountId }\n}');
    await expect.poll(response(page), { timeout: 20_000 }).toContain('"code": "unauthenticated"');
    // The editor wraps long lines where it likes: the text without its breaks.
    expect((await response(page)()).replace(/\s+/g, '')).toContain('TheAPIkeyismalformed;expected<KEY_ID>.<SECRET>.');
    expect(sent).toHaveLength(1);
  });
});
