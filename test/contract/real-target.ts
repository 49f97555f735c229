import { createClient } from "../../sdk/src/index.js";
import type { Signer } from "../../server/keys/ed25519.js";
import { ExampleFixtures, LiveFixtures } from "./fixtures.js";
import type { ContractTarget } from "./suite.js";

/** A key in the right format that no server issued. */
export const UNKNOWN_KEY = `svc_test_${"A".repeat(43)}`;

export interface RealTargetOptions {
  baseUrl: string;
  /** Keys of two accounts: the fixtures' owner and a stranger. */
  ownerKey: string;
  otherKey: string;
  /** A fee issuer the server trusts. */
  issuer: Signer;
  /** A fetch to observe the traffic with (the proxy run records Prism's verdicts). */
  fetch?: typeof globalThis.fetch;
}

/** Clients and fixtures for a contract run against a real server (directly or through Prism). */
export function realTarget(options: RealTargetOptions): ContractTarget {
  const make = (apiKey?: string) => createClient({ baseUrl: options.baseUrl, apiKey, fetch: options.fetch });
  const client = make(options.ownerKey);
  const clients = { client, anonymous: make(), other: make(options.otherKey) };
  return {
    ctx: { mode: "real", ...clients, fx: new LiveFixtures(client, options.issuer) },
    exampleCtx: { mode: "real", ...clients, fx: new ExampleFixtures() },
    // Refused keys are charged to their address (server/ratelimit/failed-auth.ts): each bad-key
    // call speaks for an address of its own, so the suite's many refusals are not throttled.
    badKey: createClient({
      baseUrl: options.baseUrl,
      apiKey: UNKNOWN_KEY,
      fetch: fromFreshAddresses(options.fetch ?? globalThis.fetch),
    }),
  };
}

/** Sends each request with another X-Forwarded-For (believed from loopback, a trusted proxy). */
function fromFreshAddresses(base: typeof globalThis.fetch): typeof globalThis.fetch {
  let n = 0;
  return (input, init) => {
    const request = new Request(input, init);
    request.headers.set("x-forwarded-for", `198.51.100.${(n++ % 250) + 1}`);
    return base(request);
  };
}
