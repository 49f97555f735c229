import { ExampleFixtures, LiveFixtures } from "../../cli/conformance/fixtures.js";
import { createClient } from "../../sdk/src/index.js";
import type { Signer } from "../../server/keys/ed25519.js";
import { createLogger } from "../../server/logger.js";
import { devIssuer } from "../../server/vault/fees/dev-issuer.js";
import { stubCalendar } from "../anchors/stub-calendar.js";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
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
  /** The server's MAX_UPLOAD_BYTES, for the 413 cases. */
  uploadLimit: number;
  /** A fetch to observe the traffic with (the proxy run records Prism's verdicts). */
  fetch?: typeof globalThis.fetch;
}

/** Tags what the contract runs create (vault metadata, documents), as a conformance run id would. */
export const CONTRACT_RUN = "contract";
/** How long a stamp may take to be confirmed: the contract servers batch every 50 ms. */
const CONFIRM_SECONDS = 5;

/** 1 MiB, so that the 413 cases are cheap to provoke. */
const UPLOAD_LIMIT = 1024 * 1024;

/** The real server of the contract runs, with two accounts' keys and the fee issuer it trusts. */
export async function startContractServer(): Promise<{
  svc: RunningService;
  accounts: Omit<RealTargetOptions, "baseUrl" | "fetch">;
}> {
  // Batches every 50 ms, so the proof operations find a confirmed stamp quickly; a stand-in
  // OpenTimestamps calendar answers at once, so the bitcoin anchor's .ots is there too.
  const calendar = await stubCalendar();
  const started = await startService({
    MAX_UPLOAD_BYTES: String(UPLOAD_LIMIT),
    BATCH_INTERVAL_MS: "50",
    OTS_CALENDAR_URLS: calendar.url,
  });
  const svc = {
    ...started,
    close: async () => {
      await started.close();
      await calendar.close();
    },
  };
  const [owner, other] = [
    await issueKey(svc, { tier: "internal" }),
    await issueKey(svc, { tier: "internal" }),
  ];
  const issuer = devIssuer(svc.dataDir, createLogger(svc.config));
  return { svc, accounts: { ownerKey: owner.key, otherKey: other.key, issuer, uploadLimit: UPLOAD_LIMIT } };
}

/** Clients and fixtures for a contract run against a real server (directly or through Prism). */
export function realTarget(options: RealTargetOptions): ContractTarget {
  const make = (apiKey?: string) => createClient({ baseUrl: options.baseUrl, apiKey, fetch: options.fetch });
  const client = make(options.ownerKey);
  const other = make(options.otherKey);
  const common = {
    mock: false,
    write: true,
    client,
    anonymous: make(),
    other: () => other,
    runId: CONTRACT_RUN,
    uploadLimit: options.uploadLimit,
  };
  return {
    ctx: { ...common, fx: new LiveFixtures(client, CONTRACT_RUN, options.issuer, CONFIRM_SECONDS) },
    exampleCtx: { ...common, fx: new ExampleFixtures(CONTRACT_RUN) },
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
