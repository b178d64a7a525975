import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWidget, type WidgetBuild } from '../../src/widget/build.js';
import { startTestServer, type TestServer } from '../support/server.js';

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A request without fetch's automatic decompression, so the bytes on the wire can be checked. */
function raw(url: string, method = 'GET', headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

let api: TestServer;
let built: WidgetBuild;

beforeAll(async () => {
  built = await buildWidget();
  api = await startTestServer();
});

afterAll(async () => {
  await api?.close();
});

describe('GET /widget.v1.js', () => {
  it('serves the built script to anyone, cacheable for a day and then revalidated', async () => {
    const response = await raw(`${api.url}/widget.v1.js`);
    expect(response.status).toBe(200);
    expect(response.headers).toMatchObject({
      'content-type': 'application/javascript; charset=utf-8',
      'cache-control': 'public, max-age=86400, stale-while-revalidate=604800',
      'access-control-allow-origin': '*',
      'x-content-type-options': 'nosniff',
      vary: 'Accept-Encoding',
    });
    expect(response.headers['etag']).toMatch(/^"[\w-]+"$/);
    expect(response.body.length).toBe(built.bytes);
    expect(response.body.toString()).toContain('HalloweenEvents');
    // One self-contained IIFE: nothing else is loaded at run time.
    expect(response.body.toString()).not.toMatch(/\bimport\s*\(|\brequire\(|<script/);
  });

  it('compresses with br or gzip, each encoding with its own strong tag, and stays under 15 KB gzipped', async () => {
    const plain = await raw(`${api.url}/widget.v1.js`);
    const gzip = await raw(`${api.url}/widget.v1.js`, 'GET', { 'accept-encoding': 'gzip' });
    const brotli = await raw(`${api.url}/widget.v1.js`, 'GET', { 'accept-encoding': 'gzip;q=0.5, br' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(gunzipSync(gzip.body)).toEqual(plain.body);
    expect(brotliDecompressSync(brotli.body)).toEqual(plain.body);
    expect(new Set([plain.headers['etag'], gzip.headers['etag'], brotli.headers['etag']]).size).toBe(3);
    expect(gzip.body.length).toBeLessThan(15 * 1024);
    expect((await raw(`${api.url}/widget.v1.js`, 'GET', { 'accept-encoding': 'gzip;q=0' })).headers['content-encoding']).toBeUndefined();
  });

  it('answers 304 with no body to a matching If-None-Match, also a weakened one', async () => {
    const first = await raw(`${api.url}/widget.v1.js`, 'GET', { 'accept-encoding': 'gzip' });
    const etag = String(first.headers['etag']);
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`]) {
      const again = await raw(`${api.url}/widget.v1.js`, 'GET', { 'accept-encoding': 'gzip', 'if-none-match': ifNoneMatch });
      expect(again.status).toBe(304);
      expect(again.body.length).toBe(0);
      expect(again.headers['etag']).toBe(etag);
      expect(again.headers['cache-control']).toBe(first.headers['cache-control']);
    }
    expect((await raw(`${api.url}/widget.v1.js`, 'GET', { 'if-none-match': '"stale"' })).status).toBe(200);
  });

  it('answers HEAD without a body and refuses other methods with 405 and Allow', async () => {
    const head = await raw(`${api.url}/widget.v1.js`, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-length']).toBe(String(built.bytes));
    const post = await raw(`${api.url}/widget.v1.js`, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers['allow']).toBe('GET, HEAD');
    expect(JSON.parse(post.body.toString())).toMatchObject({ code: 'method_not_allowed', status: 405 });
  });
});

describe('GET /widget/demo', () => {
  it('shows the snippet for the given token and settings, with a strict Content-Security-Policy', async () => {
    const response = await raw(`${api.url}/widget/demo?token=wt_demoToken123&city=Sleepy%20Hollow&category=corn-maze&theme=classic`);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    const policy = String(response.headers['content-security-policy']);
    expect(policy).toMatch(/script-src 'self' 'nonce-[\w+/=]+'/);
    expect(policy).not.toContain('unsafe-inline');
    const html = response.body.toString();
    const host = new URL(api.url).host;
    expect(html).toContain(`&#60;script async src=&#34;http://${host}/widget.v1.js&#34;&#62;&#60;/script&#62;`);
    expect(html).toContain('token: "wt_demoToken123"');
    expect(html).toContain('city: "Sleepy Hollow"');
    expect(html).toContain('theme: "classic"');
  });

  it('counts places in the window given (from and to), for a season other than tonight’s', async () => {
    const html = (await raw(`${api.url}/widget/demo?token=wt_demoToken123&city=Salem&places=6&from=2027-10-30T22:00:00Z&to=2027-10-31T04:00:00Z`)).body.toString();
    expect(html).toContain('places: 6');
    expect(html).toContain('window: {"from":"2027-10-30T22:00:00Z","to":"2027-10-31T04:00:00Z"}');
    expect(html).toContain('name="from" value="2027-10-30T22:00:00Z"');
  });

  it('says where to get a token when none is given, and never lets the query write markup', async () => {
    const hostile = '"></script><script>alert(1)</script>';
    const html = (await raw(`${api.url}/widget/demo?city=${encodeURIComponent(hostile)}`)).body.toString();
    expect(html).toContain('Enter a widget token');
    expect(html).not.toContain('<script>alert(1)');
    expect(html).toContain('\\u003c/script>\\u003cscript>alert(1)\\u003c/script>');
  });
});
