import dns, { type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { createSecureContext, type SecureContext } from 'node:tls';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector } from 'undici';

/** Why an address is not a webhook target. Only global unicast addresses are allowed. */
export type RefusedKind =
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'carrier-grade NAT'
  | 'unspecified'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'metadata';

/** Cloud instance-metadata endpoints reachable from inside a VM (AWS/GCP/Azure/Oracle, AWS IPv6, Azure wire server). */
const METADATA = ['169.254.169.254', 'fd00:ec2::254', '168.63.129.16'].map((a) => ipaddr.parse(a));

const V4_KINDS: Partial<Record<string, RefusedKind>> = {
  loopback: 'loopback',
  private: 'private',
  linkLocal: 'link-local',
  carrierGradeNat: 'carrier-grade NAT',
  unspecified: 'unspecified',
  multicast: 'multicast',
  broadcast: 'broadcast',
};
const V6_KINDS: Partial<Record<string, RefusedKind>> = {
  loopback: 'loopback',
  uniqueLocal: 'private',
  deprecatedSiteLocal: 'private',
  linkLocal: 'link-local',
  unspecified: 'unspecified',
  multicast: 'multicast',
};
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');
const IANA_RESERVED_V6 = ipaddr.parseCIDR('::/8');

/**
 * Classifies an IP address (v4, v6, IPv4-mapped v6): `null` when it is a public unicast address
 * a webhook may be sent to, otherwise why it is refused. Anything that is not an IP address is `reserved`.
 */
export function classifyAddress(address: string): RefusedKind | null {
  if (isIP(address) === 0) return 'reserved';
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  if (METADATA.some((m) => m.kind() === ip.kind() && ip.match(m, ip.kind() === 'ipv4' ? 32 : 128))) return 'metadata';
  if (ip.kind() === 'ipv4') {
    const range = (ip as ipaddr.IPv4).range();
    return range === 'unicast' ? null : (V4_KINDS[range] ?? 'reserved');
  }
  const v6 = ip as ipaddr.IPv6;
  const range = v6.range();
  // Ranges that carry an IPv4 address a translator may forward to: judge the embedded address.
  if (range === 'rfc6145' || (range === 'rfc6052' && v6.match(NAT64)))
    return classifyEmbedded(v6.parts[6]!, v6.parts[7]!);
  if (range === '6to4') return classifyEmbedded(v6.parts[1]!, v6.parts[2]!);
  if (range === 'unicast') return v6.match(IANA_RESERVED_V6) ? 'reserved' : null;
  return V6_KINDS[range] ?? 'reserved';
}

function classifyEmbedded(high: number, low: number): RefusedKind | null {
  return classifyAddress(new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]).toString());
}

const ARTICLE: Partial<Record<RefusedKind, string>> = { unspecified: 'an' };
const LABEL: Partial<Record<RefusedKind, string>> = { metadata: 'cloud metadata' };

/** The reason recorded on a refused delivery, naming the address and how to allow it. */
export function refusalReason(address: string, kind: RefusedKind, hostname?: string): string {
  const what = hostname && hostname !== address ? `${hostname} resolves to ${address}, which` : address;
  return `refused: ${what} is ${ARTICLE[kind] ?? 'a'} ${LABEL[kind] ?? kind} address (set WEBHOOK_ALLOW_PRIVATE=true to allow)`;
}

/** A connection the SSRF guard stopped; `message` is the reason to record. */
export class RefusedAddressError extends Error {
  readonly code = 'ERR_WEBHOOK_ADDRESS_REFUSED';
  constructor(
    readonly address: string,
    readonly kind: RefusedKind,
    hostname?: string,
  ) {
    super(refusalReason(address, kind, hostname));
    this.name = 'RefusedAddressError';
  }
}

/** The guard's refusal somewhere in an error's chain (undici may wrap it, happy eyeballs may aggregate it). */
export function findRefusal(err: unknown, depth = 0): RefusedAddressError | undefined {
  if (err instanceof RefusedAddressError) return err;
  if (depth > 4 || typeof err !== 'object' || err === null) return undefined;
  if (err instanceof AggregateError) {
    for (const inner of err.errors) {
      const found = findRefusal(inner, depth + 1);
      if (found) return found;
    }
  }
  return findRefusal((err as { cause?: unknown }).cause, depth + 1);
}

/**
 * A `lookup` that resolves as `base` does, then fails with `RefusedAddressError` when any resolved
 * address is refused. Given to the socket itself, so the address checked is the address connected to.
 */
export function guardedLookup(base: LookupFunction = dns.lookup as unknown as LookupFunction): LookupFunction {
  return (hostname, options, callback) => {
    base(hostname, { ...options, all: true }, (err, result, family) => {
      if (err) return callback(err, '', undefined);
      const addresses: LookupAddress[] =
        typeof result === 'string' ? [{ address: result, family: family ?? isIP(result) }] : result;
      if (addresses.length === 0) {
        const notFound: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
        notFound.code = 'ENOTFOUND';
        return callback(notFound, '', undefined);
      }
      for (const { address } of addresses) {
        const kind = classifyAddress(address);
        if (kind) return callback(new RefusedAddressError(address, kind, hostname), '', undefined);
      }
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/**
 * Names reserved never to be real hosts (RFC 2606, RFC 6761): `*.invalid`, `*.example`, and `example.com|net|org`
 * with their subdomains. Deliveries to them fail before any connection or DNS query (`precheck` in send.ts): the
 * seeded webhooks use them, so every change would otherwise ask the resolver, and open a TLS socket, for nothing.
 */
const RESERVED_NAME = /(^|\.)(invalid|example|example\.com|example\.net|example\.org)\.?$/i;

export function isReservedName(hostname: string): boolean {
  return RESERVED_NAME.test(hostname);
}

export interface GuardOptions {
  /** Allow every address (`WEBHOOK_ALLOW_PRIVATE=true`). */
  allowPrivate: boolean;
  /** Name resolution; `dns.lookup` unless a test resolves names itself. */
  lookup?: LookupFunction;
  /** TCP (and TLS) connect timeout. */
  connectTimeoutMs: number;
}

/**
 * An undici connector that refuses non-public targets at connect time: IP literals are checked here
 * (sockets skip `lookup` for them), names through `guardedLookup` on the socket.
 */
export function guardedConnector({ allowPrivate, lookup, connectTimeoutMs }: GuardOptions): buildConnector.connector {
  const tlsOptions = { timeout: connectTimeoutMs, secureContext: sharedSecureContext() };
  if (allowPrivate) return buildConnector({ ...tlsOptions, ...(lookup ? { lookup } : {}) });
  const connect = buildConnector({ ...tlsOptions, lookup: guardedLookup(lookup) });
  return (options, callback) => {
    const host = options.hostname.replace(/^\[(.*)\]$/, '$1');
    const kind = isIP(host) ? classifyAddress(host) : null;
    if (kind) {
      const refused = new RefusedAddressError(host, kind);
      process.nextTick(() => callback(refused, null));
      return;
    }
    connect(options, callback);
  };
}

let secureContext: SecureContext | undefined;

/**
 * One TLS context (Node's default root certificates) for every https connection: made per connection, it was
 * most of a delivery's CPU (each new connection parsed the whole certificate store again).
 */
function sharedSecureContext(): SecureContext {
  return (secureContext ??= createSecureContext());
}

/** The undici agent webhook deliveries go through. */
export function createGuardedAgent(options: GuardOptions): Agent {
  // Idle keep-alive sockets are closed within a minute, whatever the receiver's Keep-Alive header asks.
  return new Agent({ connect: guardedConnector(options), keepAliveMaxTimeout: 60_000 });
}
