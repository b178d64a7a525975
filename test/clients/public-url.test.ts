import { request as httpRequest } from 'node:http';
import createClient from 'openapi-fetch';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openService } from '../support/bookable.js';
import { futureSlot } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';

interface Booking {
  id: string;
  status: string;
}

/** The server answers a Host of its own choosing: Node's fetch will not send another. */
function getWithHost(url: string, host: string, key: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { headers: { host, authorization: `Bearer ${key}` } }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('absolute URLs with no PUBLIC_URL: the request’s own origin', () => {
  let server: TestServer;
  let key: string;
  let serviceId: string;

  beforeAll(async () => {
    // An ephemeral port: never the documents' default 4000.
    server = await startTestServer({ seed: true });
    ({ key } = await server.createKey({ scopes: ['bookings:read', 'bookings:write'] }));
    serviceId = await openService(server.prisma);
  });
  afterAll(() => server?.close());

  it('serves the OpenAPI documents with this server in servers, and a client generated from them works against it', async () => {
    for (const path of ['/v1/openapi.json', '/api/v1/openapi.json']) {
      const document = await (await fetch(`${server.url}${path}`)).json();
      expect(document.servers).toEqual([{ url: server.url, description: 'This server' }]);
    }
    const types = astToString(await openapiTS(new URL(`${server.url}/v1/openapi.json`)));
    expect(types).toContain('"/v1/bookings": {');

    const document = await (await fetch(`${server.url}/v1/openapi.json`)).json();
    // The paths are the document's, so the base URL is the server's origin.
    const client = createClient<Record<string, Record<string, unknown>>>({ baseUrl: document.servers[0].url, headers: { authorization: `Bearer ${key}` } });
    const created = await client.POST(
      '/v1/bookings' as never,
      {
        body: { service_id: serviceId, start_time: futureSlot(80), customer: { name: 'Typed', email: 'typed@example.com' } },
      } as never,
    );
    expect(created.response.status).toBe(201);
    const booking = created.data as unknown as Booking;
    expect(created.response.headers.get('location')).toBe(`${server.url}/v1/bookings/${booking.id}`);
    const followed = await fetch(created.response.headers.get('location')!, { headers: { authorization: `Bearer ${key}` } });
    expect(((await followed.json()) as Booking).id).toBe(booking.id);
  });

  it('gives Link headers this server’s origin, and follows the Host the client used', async () => {
    for (const days of [81, 82]) {
      await fetch(`${server.url}/v1/bookings`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ service_id: serviceId, start_time: futureSlot(days), customer: { name: 'Paged', email: 'paged@example.com' } }),
      });
    }
    const first = await fetch(`${server.url}/v1/bookings?limit=1`, { headers: { authorization: `Bearer ${key}` } });
    const next = /^<([^>]+)>; rel="next"$/.exec(first.headers.get('link') ?? '')?.[1];
    expect(next).toMatch(new RegExp(`^${server.url}/v1/bookings\\?limit=1&cursor=`));
    expect((await fetch(next!, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);

    // The same page again through another name for this server: a cached response must not keep the first origin.
    const port = new URL(server.url).port;
    const viaName = await getWithHost(`${server.url}/v1/bookings?limit=1`, `localhost:${port}`, key);
    expect(viaName.headers['link']).toMatch(new RegExp(`^<http://localhost:${port}/v1/bookings\\?limit=1&cursor=`));
    const document = await getWithHost(`${server.url}/v1/openapi.json`, `gateway.test:${port}`, key);
    expect(JSON.parse(document.body).servers).toEqual([{ url: `http://gateway.test:${port}`, description: 'This server' }]);
  });
});

describe('absolute URLs under PUBLIC_URL', () => {
  let server: TestServer;
  let key: string;
  let serviceId: string;

  beforeAll(async () => {
    server = await startTestServer({ seed: true, config: { PUBLIC_URL: 'https://api.hallowgate.test' } });
    ({ key } = await server.createKey({ scopes: ['bookings:read', 'bookings:write'] }));
    serviceId = await openService(server.prisma);
  });
  afterAll(() => server?.close());

  it('name PUBLIC_URL in servers, Location and Link, whatever Host the request had', async () => {
    const document = await (await fetch(`${server.url}/api/v1/openapi.json`)).json();
    expect(document.servers).toEqual([{ url: 'https://api.hallowgate.test', description: 'This server' }]);
    const ids: string[] = [];
    for (const days of [83, 84]) {
      const created = await fetch(`${server.url}/v1/bookings`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ service_id: serviceId, start_time: futureSlot(days), customer: { name: 'Public', email: 'public@example.com' } }),
      });
      const { id } = (await created.json()) as Booking;
      ids.push(id);
      expect(created.headers.get('location')).toBe(`https://api.hallowgate.test/v1/bookings/${id}`);
    }
    const page = await fetch(`${server.url}/v1/bookings?limit=1`, { headers: { authorization: `Bearer ${key}` } });
    expect(page.headers.get('link')).toMatch(/^<https:\/\/api\.hallowgate\.test\/v1\/bookings\?limit=1&cursor=[^>]+>; rel="next"$/);
  });
});

describe('PUBLIC_URL', () => {
  it('is an http(s) origin, and nothing else', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://api.example.com/' }).PUBLIC_URL).toBe('https://api.example.com');
    expect(loadConfig({ PUBLIC_URL: 'http://localhost:8080' }).PUBLIC_URL).toBe('http://localhost:8080');
    for (const refused of ['api.example.com', 'ftp://api.example.com', 'https://api.example.com/gateway', 'https://api.example.com?x=1']) {
      expect(() => loadConfig({ PUBLIC_URL: refused })).toThrow(/PUBLIC_URL must be an http:\/\/ or https:\/\/ origin/);
    }
  });
});
