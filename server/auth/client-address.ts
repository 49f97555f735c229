import ipaddr from "ipaddr.js";
import { LRUCache } from "lru-cache";
import type { PrincipalRequest } from "./principal.js";

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Range = [Address, number];

// proxy-addr (express's) was passed over: it reads a node request object and ignores X-Real-IP.
/**
 * Finds the client's address behind trusted proxies and turns it into a rate-limit identity.
 * Forwarding headers are believed only from a trusted peer, since anyone else can write them.
 */
export class ClientAddresses {
  private readonly trusted: Range[];

  /**
   * @param trustedProxies IPs or CIDRs (`TRUSTED_PROXIES`), validated by the configuration schema.
   * @param ipv6PrefixLength how many leading bits identify an IPv6 client (`IPV6_PREFIX_LENGTH`).
   */
  constructor(
    trustedProxies: string[],
    private readonly ipv6PrefixLength: number,
  ) {
    this.trusted = trustedProxies.map(parseRange);
  }

  /** `ip:<address>` for IPv4, `ip:<network>/<prefix>` for IPv6, `ip:unknown` without a peer. */
  clientKey(req: PrincipalRequest): string {
    const address = this.clientAddress(req);
    if (!address) return "ip:unknown";
    if (address.kind() === "ipv4") return `ip:${address.toString()}`;
    // One end site usually holds a whole /56 (RFC 6177), so a single address would be too fine a key.
    const plain = new ipaddr.IPv6(address.toByteArray()).toString();
    const network = ipaddr.IPv6.networkAddressFromCIDR(`${plain}/${this.ipv6PrefixLength}`);
    return `ip:${network.toString()}/${this.ipv6PrefixLength}`;
  }

  /** The client's address, or undefined when the peer's address is unknown. */
  clientAddress(req: PrincipalRequest): Address | undefined {
    const peer = parseAddress(req.peerAddress);
    if (!peer || !this.isTrusted(peer)) return peer;
    return this.fromForwardedFor(req.forwardedFor) ?? parseAddress(req.realIp) ?? peer;
  }

  /**
   * Reads X-Forwarded-For right to left: each trusted proxy appended the address it saw, so the
   * first untrusted one is the client. Entries left of it were written by the client and are
   * ignored; a malformed entry ends the walk at the last trusted hop before it.
   */
  private fromForwardedFor(header: string | undefined): Address | undefined {
    const hops = (header ?? "").split(",").map((hop) => hop.trim());
    let client: Address | undefined;
    for (const hop of hops.reverse()) {
      const address = parseAddress(hop);
      if (!address) break;
      client = address;
      if (!this.isTrusted(address)) break;
    }
    return client;
  }

  /** Whether the peer `text` is a trusted proxy (the per-client connection cap spares it). */
  isTrustedPeer(text: string | undefined): boolean {
    const peer = parseAddress(text);
    return peer !== undefined && this.isTrusted(peer);
  }

  private isTrusted(address: Address): boolean {
    return this.trusted.some(([net, bits]) => address.kind() === net.kind() && address.match(net, bits));
  }
}

// Parsing an address costs more than the rest of a small request's auth (about 6 % of a
// GET /stamps/{id} here), and clients come back with the same few peers and proxies; address
// objects are never changed, so one may serve every request from its text. Only texts as short
// as addresses are kept (a forged header's long entries are parsed and forgotten).
const parsed = new LRUCache<string, { address: Address | undefined }>({ max: 10_000 });
const CACHED_LENGTH = 64;

/** A plain IPv4 (dotted quad) or IPv6 address, IPv4-mapped IPv6 turned into IPv4; else undefined. */
function parseAddress(text: string | undefined): Address | undefined {
  const value = text?.trim() ?? "";
  const cached = parsed.get(value);
  if (cached) return cached.address;
  const valid = ipaddr.IPv4.isValidFourPartDecimal(value) || ipaddr.IPv6.isValid(value);
  const address = valid ? ipaddr.process(value) : undefined;
  if (value.length <= CACHED_LENGTH) parsed.set(value, { address });
  return address;
}

/** The start-up log line saying whose forwarding headers are believed. */
export function trustedProxiesLine(trustedProxies: string[]): string {
  if (trustedProxies.length === 0) {
    return "trusted proxies: none (X-Forwarded-For and X-Real-IP are ignored; TRUSTED_PROXIES names a proxy)";
  }
  return `trusted proxies: ${trustedProxies.join(", ")} (X-Forwarded-For and X-Real-IP believed from these peers only)`;
}

/** Whether a `TRUSTED_PROXIES` entry is an IP or a CIDR; used by the configuration schema. */
export function isAddressOrRange(text: string): boolean {
  return ipaddr.isValidCIDR(text) || ipaddr.isValid(text);
}

function parseRange(text: string): Range {
  if (ipaddr.isValidCIDR(text)) {
    const [net, bits] = ipaddr.parseCIDR(text);
    // A mapped IPv4 range (::ffff:10.0.0.0/104) must match the IPv4 addresses parseAddress yields.
    if (net.kind() === "ipv6" && (net as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
      return [(net as ipaddr.IPv6).toIPv4Address(), bits - 96];
    }
    return [net, bits];
  }
  const address = ipaddr.process(text);
  return [address, address.kind() === "ipv4" ? 32 : 128];
}
