import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
export type AddressRange = [Address, number];

/**
 * Whether an IPv4 address, alone or at the end of an IPv6 one, is four decimal numbers without
 * leading zeros. ipaddr.js also reads octal (010.0.0.1 is 8.0.0.1), hexadecimal and shortened forms,
 * so an allowlist entry would name another network than it seems to: those are refused.
 */
function inPlainForm(text: string): boolean {
  if (!text.includes(':')) return ipaddr.IPv4.isValidFourPartDecimal(text);
  const embedded = text.slice(text.lastIndexOf(':') + 1);
  if (!embedded.includes('.')) return true;
  if (!ipaddr.IPv4.isValidFourPartDecimal(embedded)) return false;
  // ipaddr.js reads the deprecated IPv4-compatible form (::10.0.0.1, which is ::a00:1) as IPv4-mapped,
  // so as 10.0.0.1: a dotted tail that it reads as mapped must be written as mapped (::ffff:10.0.0.1).
  return /:ffff:[^:]*$/i.test(text) || !ipaddr.IPv6.isValid(text) || !ipaddr.IPv6.parse(text).isIPv4MappedAddress();
}

/** Reads an address, treating IPv4-mapped IPv6 (::ffff:10.0.0.1, as Node reports it) as the IPv4 it carries. */
function parseAddress(text: string): Address | null {
  const trimmed = text.trim();
  if (!inPlainForm(trimmed)) return null;
  try {
    return ipaddr.process(trimmed);
  } catch {
    return null;
  }
}

/** Reads `10.0.0.0/8`, `2001:db8::/32`, or a single address (a /32 or /128); null when malformed. */
export function parseRange(text: string): AddressRange | null {
  const trimmed = text.trim();
  if (trimmed.includes('/')) {
    if (!ipaddr.isValidCIDR(trimmed) || !inPlainForm(trimmed.slice(0, trimmed.indexOf('/')))) return null;
    const [address, bits] = ipaddr.parseCIDR(trimmed);
    if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
      // Shorter than /96 the range leaves the mapped addresses for ::/n, loopback included: not what was meant.
      return bits >= 96 ? [(address as ipaddr.IPv6).toIPv4Address(), bits - 96] : null;
    }
    return [address, bits];
  }
  const address = parseAddress(trimmed);
  return address ? [address, address.kind() === 'ipv4' ? 32 : 128] : null;
}

export function parseRanges(texts: readonly string[]): AddressRange[] {
  return texts.map(parseRange).filter((range): range is AddressRange => range !== null);
}

export function isInRanges(addressText: string, ranges: readonly AddressRange[]): boolean {
  const address = parseAddress(addressText);
  if (!address) return false;
  return ranges.some(([network, bits]) => network.kind() === address.kind() && address.match(network, bits));
}

/**
 * What limits per client count under: an IPv4 address, or the /64 of an IPv6 one (the block one site
 * or device is given), so a client cannot dodge a limit by moving through its own addresses.
 */
export function clientBlockOf(addressText: string): string {
  const address = parseAddress(addressText);
  if (address?.kind() !== 'ipv6') return address?.toString() ?? addressText;
  const network = (address as ipaddr.IPv6).parts.slice(0, 4).concat([0, 0, 0, 0]);
  return `${new ipaddr.IPv6(network).toString()}/64`;
}

/**
 * The calling client's address. X-Forwarded-For is believed only hop by hop from the right, and only
 * while each hop that reported it is a trusted proxy, so a client cannot forge its address by
 * sending the header itself.
 */
export function createClientAddressResolver(trustedProxies: readonly AddressRange[]) {
  return function clientAddress(remoteAddress: string, forwardedFor: string | undefined): string {
    let client = remoteAddress;
    const hops = (forwardedFor ?? '')
      .split(',')
      .map((hop) => hop.trim())
      .filter(Boolean);
    while (hops.length > 0 && isInRanges(client, trustedProxies)) client = withoutPort(hops.pop()!);
    return client;
  };
}

/** A forwarded address as some proxies write it, `[2001:db8::1]`, `[2001:db8::1]:443` or `192.0.2.1:5678`, as the bare address. */
function withoutPort(hop: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(hop);
  if (bracketed) return bracketed[1]!;
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(hop);
  return withPort ? withPort[1]! : hop;
}
