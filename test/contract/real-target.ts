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
    badKey: make(UNKNOWN_KEY),
  };
}
