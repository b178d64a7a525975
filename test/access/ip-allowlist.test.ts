import ipaddr from 'ipaddr.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientBlockOf, createClientAddressResolver, isInRanges, parseRange, parseRanges } from '../../src/access/network.js';
import { forgetCredential } from '../../src/access/credential-cache.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { postGraphQL } from './requests.js';

const typename = '{ __typename }';

async function statusOf(server: TestServer, key: string, forwardedFor?: string) {
  const response = await postGraphQL(server.url, key, typename, { headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} });
  const body = await response.json();
  return { status: response.status, code: body.errors?.[0]?.extensions?.code as string | undefined };
}

describe('IP allowlist, no trusted proxy', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('admits a caller inside an IPv4 CIDR and refuses one outside with 403 ip_not_allowed', async () => {
    const inside = await server.createKey({ ipAllowlist: ['10.0.0.0/8', '127.0.0.0/8'] });
    const outside = await server.createKey({ ipAllowlist: ['10.0.0.0/8', '2001:db8::/32'] });
    expect(await statusOf(server, inside.key)).toEqual({ status: 200, code: undefined });
    expect(await statusOf(server, outside.key)).toEqual({ status: 403, code: 'ip_not_allowed' });
  });

  it('answers REST with problem+json ip_not_allowed', async () => {
    const { key } = await server.createKey({ ipAllowlist: ['192.0.2.1'] });
    const response = await fetch(`${server.url}/v1/no_such_route`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ status: 403, code: 'ip_not_allowed' });
  });

  it('ignores X-Forwarded-For from an untrusted peer, so a client cannot claim an allowed address', async () => {
    const { key } = await server.createKey({ ipAllowlist: ['203.0.113.0/24'] });
    expect(await statusOf(server, key, '203.0.113.9')).toEqual({ status: 403, code: 'ip_not_allowed' });
  });

  it('refuses every address to a key whose stored allowlist entries can no longer be read (written before the plain-form rule)', async () => {
    const { key, keyId } = await server.createKey({ ipAllowlist: ['127.0.0.1'] });
    await server.prisma.apiKey.update({ where: { id: keyId }, data: { ipAllowlist: ['0177.0.0.1'] } });
    forgetCredential(keyId);
    expect(await statusOf(server, key)).toEqual({ status: 403, code: 'ip_not_allowed' });
  });

  it('lets keys without an allowlist in from anywhere', async () => {
    const { key } = await server.createKey();
    expect((await statusOf(server, key, '198.51.100.1')).status).toBe(200);
  });
});

describe('IP allowlist behind a trusted proxy (TRUSTED_PROXIES)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ config: { TRUSTED_PROXIES: '127.0.0.1/32, ::1' } });
  });
  afterAll(() => server.close());

  it('takes the client address from X-Forwarded-For sent by the proxy (IPv4)', async () => {
    const { key } = await server.createKey({ ipAllowlist: ['203.0.113.0/24'] });
    expect(await statusOf(server, key, '203.0.113.9')).toEqual({ status: 200, code: undefined });
    expect(await statusOf(server, key, '198.51.100.9')).toEqual({ status: 403, code: 'ip_not_allowed' });
  });

  it('takes the client address from X-Forwarded-For sent by the proxy (IPv6)', async () => {
    const { key } = await server.createKey({ ipAllowlist: ['2001:db8:1::/48'] });
    expect(await statusOf(server, key, '2001:db8:1::42')).toEqual({ status: 200, code: undefined });
    expect(await statusOf(server, key, '2001:db8:2::42')).toEqual({ status: 403, code: 'ip_not_allowed' });
  });

  it('believes only the hops added by trusted proxies: the rightmost untrusted address is the client', async () => {
    const { key } = await server.createKey({ ipAllowlist: ['203.0.113.0/24'] });
    // The client forged "203.0.113.9"; the proxy appended the address it really saw.
    expect(await statusOf(server, key, '203.0.113.9, 198.51.100.9')).toEqual({ status: 403, code: 'ip_not_allowed' });
    expect(await statusOf(server, key, '198.51.100.9, 203.0.113.9')).toEqual({ status: 200, code: undefined });
  });

  it('refuses an unreadable forwarded address for a key with an allowlist', async () => {
    const { key } = await server.createKey({ ipAllowlist: ['0.0.0.0/0', '::/0'] });
    expect(await statusOf(server, key, 'not-an-address')).toEqual({ status: 403, code: 'ip_not_allowed' });
  });
});

describe('address matching', () => {
  it('reads IPv4-mapped IPv6 peers (as dual-stack sockets report them) as IPv4', () => {
    expect(isInRanges('::ffff:10.1.2.3', parseRanges(['10.0.0.0/8']))).toBe(true);
    expect(isInRanges('::ffff:10.1.2.3', parseRanges(['::ffff:10.0.0.0/104']))).toBe(true);
    expect(isInRanges('10.1.2.3', parseRanges(['2001:db8::/32']))).toBe(false);
    expect(isInRanges('2001:db8::5', parseRanges(['2001:db8::5']))).toBe(true);
  });

  it('reads IPv4 only as four decimal numbers: octal, hexadecimal and shortened forms (which ipaddr.js reads as other addresses) are refused', () => {
    for (const text of ['010.000.000.001', '192.168.010.0/24', '10.1', '0x0a010203', '167837187', '10.0.0.01', '::ffff:010.0.0.1', '::ffff:010.0.0.0/104']) {
      expect(parseRange(text), text).toBeNull();
      expect(isInRanges(text.split('/')[0]!, parseRanges(['0.0.0.0/0', '::/0'])), text).toBe(false);
    }
    for (const text of ['10.0.0.1', '192.168.10.0/24', '0.0.0.0/0', '::ffff:10.0.0.1', '2001:db8::/32', '::1']) expect(parseRange(text), text).not.toBeNull();
    expect(isInRanges('192.168.10.5', parseRanges(['192.168.10.0/24']))).toBe(true);
  });

  it('refuses an IPv4-mapped range shorter than /96, which would name IPv6 addresses (::1 among them) rather than IPv4 ones', () => {
    expect(isInRanges('::1', [[...(ipaddr.parseCIDR('::ffff:10.0.0.0/64') as [ipaddr.IPv6, number])]])).toBe(true);
    for (const text of ['::ffff:10.0.0.0/64', '::ffff:10.0.0.0/95']) expect(parseRange(text), text).toBeNull();
    expect(parseRange('::ffff:10.0.0.0/96')).not.toBeNull();
    expect(isInRanges('10.9.9.9', parseRanges(['::ffff:10.0.0.0/104']))).toBe(true);
  });

  it('refuses the IPv4-compatible form (::10.9.8.7 is the IPv6 address ::a09:807), which ipaddr.js reads as the IPv4 address', () => {
    for (const text of ['::10.9.8.7', '::10.0.0.0/104', '::127.0.0.1']) {
      expect(parseRange(text), text).toBeNull();
      expect(isInRanges(text.split('/')[0]!, parseRanges(['0.0.0.0/0', '::/0'])), text).toBe(false);
    }
    for (const text of ['::ffff:10.9.8.7', '::FFFF:10.9.8.7', '64:ff9b::10.9.8.7', '::a09:807']) expect(parseRange(text), text).not.toBeNull();
    expect(isInRanges('::a09:807', parseRanges(['::a09:807']))).toBe(true);
    expect(isInRanges('10.9.8.7', parseRanges(['::a09:807']))).toBe(false);
    // Where ipaddr.js reads it right, it is the IPv6 address it names.
    expect(isInRanges('::a09:807', parseRanges(['0::10.9.8.7']))).toBe(true);
    expect(isInRanges('10.9.8.7', parseRanges(['0::10.9.8.7']))).toBe(false);
  });

  it('counts an IPv6 client by its /64 and an IPv4 one by its address', () => {
    expect(clientBlockOf('2001:db8:1:2::5')).toBe('2001:db8:1:2::/64');
    expect(clientBlockOf('2001:db8:1:2:ffff:1:2:3')).toBe('2001:db8:1:2::/64');
    expect(clientBlockOf('2001:db8:1:3::5')).toBe('2001:db8:1:3::/64');
    expect(clientBlockOf('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(clientBlockOf('10.1.2.3')).toBe('10.1.2.3');
    expect(clientBlockOf('not an address')).toBe('not an address');
  });

  it('walks X-Forwarded-For from the right through trusted proxies only', () => {
    const clientAddress = createClientAddressResolver(parseRanges(['10.0.0.0/8']));
    expect(clientAddress('10.0.0.2', '198.51.100.1, 10.0.0.1')).toBe('198.51.100.1');
    expect(clientAddress('192.0.2.1', '198.51.100.1')).toBe('192.0.2.1');
    expect(clientAddress('10.0.0.2', undefined)).toBe('10.0.0.2');
    // With the port or brackets some proxies add: the bare address, so allowlists and per-client limits see one client.
    for (const hop of ['[2001:db8::1]', '[2001:db8::1]:443']) expect(clientAddress('10.0.0.2', hop)).toBe('2001:db8::1');
    expect(clientAddress('10.0.0.2', '198.51.100.1:5678')).toBe('198.51.100.1');
  });
});
