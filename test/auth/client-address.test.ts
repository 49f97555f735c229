import { describe, expect, it } from "vitest";
import { ClientAddresses, isAddressOrRange } from "../../server/auth/client-address.js";
import type { PrincipalRequest } from "../../server/auth/principal.js";

const loopbackOnly = new ClientAddresses(["127.0.0.1/8", "::1"], 56);
const behindLoadBalancer = new ClientAddresses(
  ["127.0.0.1/8", "::1", "10.0.0.0/8", "2001:db8:ffff::/48"],
  56,
);

const cases: [string, { addresses: ClientAddresses; given: PrincipalRequest; want: string }][] = [
  [
    "no forwarding headers: the peer",
    { addresses: loopbackOnly, given: { peerAddress: "203.0.113.9" }, want: "ip:203.0.113.9" },
  ],
  [
    "X-Forwarded-For from an untrusted peer is ignored",
    {
      addresses: loopbackOnly,
      given: { peerAddress: "203.0.113.9", forwardedFor: "198.51.100.1", realIp: "198.51.100.2" },
      want: "ip:203.0.113.9",
    },
  ],
  [
    "X-Forwarded-For from a trusted peer: its last hop",
    {
      addresses: loopbackOnly,
      given: { peerAddress: "127.0.0.1", forwardedFor: "198.51.100.1" },
      want: "ip:198.51.100.1",
    },
  ],
  [
    "read right to left, skipping trusted hops; what the client wrote on the left is ignored",
    {
      addresses: behindLoadBalancer,
      given: { peerAddress: "10.0.0.2", forwardedFor: "6.6.6.6, 198.51.100.7, 10.1.2.3, 10.0.0.5" },
      want: "ip:198.51.100.7",
    },
  ],
  [
    "every hop trusted: the furthest one",
    {
      addresses: behindLoadBalancer,
      given: { peerAddress: "10.0.0.2", forwardedFor: "10.9.9.9, 10.0.0.5" },
      want: "ip:10.9.9.9",
    },
  ],
  [
    "a malformed hop ends the walk at the trusted hop before it",
    {
      addresses: behindLoadBalancer,
      given: { peerAddress: "10.0.0.2", forwardedFor: "198.51.100.1, not-an-ip, 10.0.0.5" },
      want: "ip:10.0.0.5",
    },
  ],
  [
    "X-Forwarded-For wins over X-Real-IP",
    {
      addresses: loopbackOnly,
      given: { peerAddress: "127.0.0.1", forwardedFor: "198.51.100.1", realIp: "198.51.100.2" },
      want: "ip:198.51.100.1",
    },
  ],
  [
    "X-Real-IP from a trusted peer when there is no usable X-Forwarded-For",
    {
      addresses: loopbackOnly,
      given: { peerAddress: "::1", forwardedFor: "garbage", realIp: "198.51.100.2" },
      want: "ip:198.51.100.2",
    },
  ],
  [
    "an IPv4-mapped IPv6 peer is its IPv4 address, and is trusted as such",
    {
      addresses: loopbackOnly,
      given: { peerAddress: "::ffff:127.0.0.1", forwardedFor: "::ffff:198.51.100.4" },
      want: "ip:198.51.100.4",
    },
  ],
  [
    "an IPv6 client is keyed by its /56",
    {
      addresses: loopbackOnly,
      given: { peerAddress: "2001:db8:abcd:12ff:1:2:3:4" },
      want: "ip:2001:db8:abcd:1200::/56",
    },
  ],
  [
    "a forwarded IPv6 client is keyed by its /56 too",
    {
      addresses: behindLoadBalancer,
      given: { peerAddress: "2001:db8:ffff::1", forwardedFor: "2001:db8:1:2::99" },
      want: "ip:2001:db8:1::/56",
    },
  ],
  ["no peer address", { addresses: loopbackOnly, given: { peerAddress: undefined }, want: "ip:unknown" }],
];

describe("client address", () => {
  it.each(cases)("%s", (_name, { addresses, given, want }) => {
    expect(addresses.clientKey(given)).toBe(want);
  });

  it("groups two addresses of one /56 together and keeps neighbouring /56s apart", () => {
    const key = (peerAddress: string) => loopbackOnly.clientKey({ peerAddress });
    expect(key("2001:db8:0:ff::1")).toBe(key("2001:db8:0:1::abcd"));
    expect(key("2001:db8:0:100::1")).not.toBe(key("2001:db8:0:ff::1"));
  });

  it("uses the configured IPv6 prefix length", () => {
    const per64 = new ClientAddresses([], 64);
    expect(per64.clientKey({ peerAddress: "2001:db8:0:ff::1" })).toBe("ip:2001:db8:0:ff::/64");
  });

  it("trusts nobody's headers when no proxies are configured", () => {
    const none = new ClientAddresses([], 56);
    expect(none.clientKey({ peerAddress: "127.0.0.1", forwardedFor: "198.51.100.1" })).toBe("ip:127.0.0.1");
  });

  it.each([
    ["127.0.0.1/8", true],
    ["::1", true],
    ["10.0.0.7", true],
    ["2001:db8::/32", true],
    ["10.0.0.0/33", false],
    ["localhost", false],
  ])("accepts %s as a TRUSTED_PROXIES entry: %s", (entry, ok) => {
    expect(isAddressOrRange(entry)).toBe(ok);
  });
});
