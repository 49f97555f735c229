import { LiveFixtures } from "../../../cli/conformance/fixtures.js";
import { createClient, type Schemas } from "../../../sdk/src/index.js";
import type { Signer } from "../../../server/keys/ed25519.js";
import { createLogger } from "../../../server/logger.js";
import { devIssuer } from "../../../server/vault/fees/dev-issuer.js";
import { issueKey } from "../../helpers/keys.js";
import type { RunningService } from "../../helpers/service.js";

/** Keys the fuzzer rotates through, so no one rate-limit bucket runs dry during a long run. */
const KEYS_PER_ACCOUNT = 24;
/** Single-use fee receipts; a valid heartbeat or vault creation uses one up. */
const RECEIPTS = 120;
/**
 * Amounts the receipts are signed for, in turn: half generous, the rest at and past the spec's
 * bounds (below 10^15, at most 18 decimals) and around the fees, so every path of the amount
 * check is taken by receipts the server trusts. Past the bounds is a 422, never a 5xx.
 */
const AMOUNTS = [
  "1000000.00",
  "999999999999999.999999999999999999",
  "1000000.00",
  "0.50",
  "1000000.00",
  "0.45",
  "1000000.00",
  "0.000000000000000001",
  "1000000.00",
  "1000000000000000",
  "1000000.00",
  "999999999999999999999999999999.999999999999999999",
  "1000000.00",
  "1.0000000000000000001",
  "1000000.00",
  "0000000000000000.5",
];
/**
 * Receipts the trusted issuer signed that the server must still refuse with a 4xx (issue #35):
 * issued a day in the future, issued long before FEE_RECEIPT_MAX_AGE_SECONDS, and a payload naming
 * `amount` twice (a reader keeping the first member would see a generous amount, JSON.parse the
 * last). Mixed into the pool, they reach every operation that takes a receipt.
 */
async function hostileReceipts(live: LiveFixtures, issuer: Signer): Promise<string[]> {
  const day = 86_400_000;
  const fromTheFuture = await live.receipt("1000000.00", new Date(Date.now() + day));
  const ancient = await live.receipt("1000000.00", new Date(Date.now() - 400 * day));
  const [, payload] = (await live.receipt("0.01")).split(".");
  const text = Buffer.from(payload!, "base64url").toString("utf8");
  const repeated = Buffer.from(`{"amount":"1000000.00",${text.slice(1)}`);
  const signature = Buffer.from(issuer.sign(repeated), "hex").toString("base64url");
  return [fromTheFuture, ancient, `rcpt1.${repeated.toString("base64url")}.${signature}`];
}

/** Requests at once in each burst on one vault (contention.ts). */
export const BURST = 12;

/**
 * Live resources a "valid" request can name so that it reaches the success paths, not only 404:
 * stamps in every state, fingerprints, identities and vaults of two accounts, fee receipts the
 * server trusts and retrieval proofs. Made once per run, before the first fuzzed request.
 */
export interface FuzzFixtures {
  /** Internal-tier keys of the account that owns the vaults and identities below. */
  ownerKeys: string[];
  /** Internal-tier keys of a second account (its requests on the owner's vaults must get 404). */
  otherKeys: string[];
  stampIds: string[];
  stampDocuments: unknown[];
  fingerprints: Schemas["FingerprintDocument"][];
  identityIds: string[];
  vaultIds: string[];
  receipts: string[];
  retrieveProofs: Map<string, Schemas["RetrieveRequest"]>;
  /** For the bursts on one vault: generous receipts, and proofs of `released[0]` signed at distinct times. */
  burst: { receipts: string[]; proofs: Schemas["RetrieveRequest"][]; releasedId: string };
  vaultRequest: Schemas["CreateVaultRequest"];
  /** Entries in the transparency log (the pipeline does not run during a fuzz run). */
  logSize: number;
}

export async function makeFixtures(svc: RunningService): Promise<FuzzFixtures> {
  const owner = await issueKey(svc, { tier: "internal" });
  const other = await issueKey(svc, { tier: "internal" });
  const more = async (accountId: string) =>
    Promise.all(
      Array.from(
        { length: KEYS_PER_ACCOUNT - 1 },
        async () => (await issueKey(svc, { tier: "internal", accountId })).key,
      ),
    );
  const client = createClient({ baseUrl: svc.baseUrl, apiKey: owner.key });
  const otherClient = createClient({ baseUrl: svc.baseUrl, apiKey: other.key });
  const issuer = devIssuer(svc.dataDir, createLogger(svc.config));
  // No stamp is confirmed through them (the pipeline is ticked by hand), so no wait is needed.
  const live = new LiveFixtures(client, "fuzz", issuer, 0);
  const otherLive = new LiveFixtures(otherClient, "fuzz", issuer, 0);

  const document = new Blob(["# fuzz\n\nA document for the fuzzer.\f\nSecond section.\n"]);
  const stamps = [
    await client.stamps.create({ file: document, filename: "a.txt", preset: "standard" }),
    await client.stamps.create({ file: document, filename: "b.txt", generate_fp: true }),
    await client.stamps.create({ file: document, filename: "c.txt", anchors: "log" }),
  ];
  await svc.service.proofs.pipeline.tick();
  await client.stamps.create({ file: document, filename: "d.txt" });
  await svc.service.proofs.pipeline.tick();
  const pending = await client.stamps.create({ file: document, filename: "e.txt" });
  const allStamps = [...stamps, pending];

  const vaultIds = [await live.newVault(), await live.newVault(), await live.newVault()];
  const released = [await live.releasedVault(), await live.releasedVault()];
  const strangers = [await otherLive.newVault()];
  const retrieveProofs = new Map<string, Schemas["RetrieveRequest"]>();
  for (const id of released) retrieveProofs.set(id, await live.retrieveProof(id));

  return {
    ownerKeys: [owner.key, ...(await more(owner.accountId))],
    otherKeys: [other.key, ...(await more(other.accountId))],
    stampIds: allStamps.map((s) => s.stamp_id),
    stampDocuments: allStamps.map((s) => s.stamp_json),
    fingerprints: [await live.fingerprint()],
    identityIds: [await live.identityId(), await otherLive.identityId()],
    vaultIds: [...vaultIds, ...released, ...strangers],
    receipts: [
      ...(await Promise.all(
        Array.from({ length: RECEIPTS }, (_, i) => live.receipt(AMOUNTS[i % AMOUNTS.length]!)),
      )),
      ...(await hostileReceipts(live, issuer)),
    ],
    retrieveProofs,
    burst: {
      receipts: await Promise.all(Array.from({ length: 3 * BURST }, () => live.receipt("1000000.00"))),
      proofs: await Promise.all(
        Array.from({ length: BURST }, (_, i) =>
          live.retrieveProof(released[0]!, new Date(Date.now() - i * 1000).toISOString()),
        ),
      ),
      releasedId: released[0]!,
    },
    vaultRequest: await live.vaultRequest(),
    logSize: (await client.log.info()).tree_size,
  };
}
