import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/browser.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWidgetToken } from '../../src/access/admin.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** A page served from its own origin, for the browser to call the API from. */
async function startOriginServer(host: string): Promise<{ origin: string; server: Server }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end('<!doctype html><title>origin</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://${host}:${(server.address() as AddressInfo).port}`, server };
}

interface PageResult {
  status?: number;
  remaining?: string | null;
  typename?: string;
  code?: string;
  error?: string;
}

let api: TestServer;
let browser: Browser;
let allowed: { origin: string; server: Server };
let refused: { origin: string; server: Server };

beforeAll(async () => {
  [api, allowed, refused] = await Promise.all([startTestServer(), startOriginServer('127.0.0.1'), startOriginServer('localhost')]);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await Promise.all([allowed, refused].map(({ server }) => new Promise((resolve) => server.close(resolve))));
  await api?.close();
});

/** Opens a page on `origin` and calls POST /graphql from it with `credential`, as a site's script would. */
async function callFrom(origin: string, credential: string): Promise<PageResult> {
  const page = await browser.newPage();
  try {
    await page.goto(`${origin}/`);
    return await page.evaluate(
      async ({ url, credential }) => {
        try {
          const response = await fetch(`${url}/graphql`, {
            method: 'POST',
            headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json' },
            body: JSON.stringify({ query: '{ __typename }' }),
          });
          const body = (await response.json()) as { data?: { __typename?: string }; errors?: { extensions?: { code?: string } }[] };
          const result = { status: response.status, remaining: response.headers.get('x-ratelimit-remaining'), typename: body.data?.__typename };
          const code = body.errors?.[0]?.extensions?.code;
          return code === undefined ? result : { ...result, code };
        } catch (error) {
          return { error: String(error) };
        }
      },
      { url: api.url, credential },
    );
  } finally {
    await page.close();
  }
}

describe('CORS in a real browser (Chromium), from two origins', () => {
  it('lets a listed origin call with an API key and read the response and its rate-limit headers', async () => {
    const { key } = await api.createKey({ allowedOrigins: [allowed.origin] });
    expect(await callFrom(allowed.origin, key)).toEqual({ status: 200, remaining: expect.any(String), typename: 'Query' });
  });

  it('gives an origin the key does not list no CORS grant: the browser blocks the call', async () => {
    const { key } = await api.createKey({ allowedOrigins: [allowed.origin] });
    const result = await callFrom(refused.origin, key);
    expect(result.error).toMatch(/TypeError|Failed to fetch/);
  });

  it('binds widget tokens to their origins too, and lets the embedding page read why it was refused', async () => {
    const accountId = await api.createAccount();
    const token = await createWidgetToken(api.prisma, { accountId, allowedOrigins: [allowed.origin] });
    expect((await callFrom(allowed.origin, token.id)).status).toBe(200);
    // A widget token is public, so its refusal hides nothing: the page can show the site owner the reason.
    expect(await callFrom(refused.origin, token.id)).toEqual({ status: 403, remaining: null, typename: undefined, code: 'origin_not_allowed' });
  });
});
