import { createHash } from "node:crypto";
import { expect } from "vitest";
import type { RequestOptions, Schemas, StampdClient } from "../../sdk/src/index.js";
import type { OperationId } from "../../server/contract/openapi.js";
import type { Fixtures } from "./fixtures.js";

/** What a contract case runs with. */
export interface Ctx {
  mode: "mock" | "real";
  /** Authenticated as the fixtures' account. */
  client: StampdClient;
  /** No key. */
  anonymous: StampdClient;
  /** Authenticated as a second account. */
  other: StampdClient;
  fx: Fixtures;
}

/** An error answer a real server gives to a request made for that purpose. */
export interface RealError {
  name: string;
  status: number;
  code?: string;
  /**
   * The request breaks the contract on purpose (invalid input, missing key). Prism answers such a
   * request itself instead of forwarding it, so the proxy run leaves these out.
   */
  invalidRequest?: boolean;
  provoke(ctx: Ctx): PromiseLike<unknown>;
}

/** One operation: a valid call through the SDK, checks of its answer, and its real error cases. */
export interface OperationContract<T = unknown> {
  call(ctx: Ctx, options?: RequestOptions): PromiseLike<T>;
  /** Checks beyond the types; `ctx.mode` tells whether the answer is the spec's example or real. */
  check?(body: T, ctx: Ctx): void | Promise<void>;
  errors?: RealError[];
}

const op = <T>(contract: OperationContract<T>) => contract as OperationContract<unknown>;

const UNKNOWN_STAMP = "stp_00000000000000000000000000";
const UNKNOWN_VAULT = "vlt_00000000000000000000000000";
const MIRROR = "ar://bNbA3TEQVL60xlgCcqdz4ZPHFZ711cZ3hmkpGttDt_U";
const hex = (algorithm: string, data: Blob) =>
  data.arrayBuffer().then((b) => createHash(algorithm).update(Buffer.from(b)).digest("hex"));
/** Over the 1 MiB MAX_UPLOAD_BYTES the real server of the contract tests runs with. */
const tooLarge = () => new Blob([new Uint8Array(1024 * 1024 + 1)]);
const real = (ctx: Ctx) => ctx.mode === "real";

const missingKey = (provoke: (c: Ctx) => PromiseLike<unknown>): RealError => ({
  name: "without a key",
  status: 401,
  code: "missing_api_key",
  invalidRequest: true,
  provoke,
});

/** A tile the real server's small log lacks: its NotFoundError; the mock answers the example. */
const tileOrMissing = (c: Ctx, path: string, o?: RequestOptions): Promise<unknown> => {
  const call = c.client.log.tile(path, o);
  return real(c)
    ? call.then(
        () => expect.unreachable(`${path} exists`),
        (err: { status?: number }) => {
          if (err.status !== 404) throw err;
          return err;
        },
      )
    : call;
};
const missingWhenReal = (b: unknown, c: Ctx) => {
  if (real(c)) expect(b).toMatchObject({ status: 404 });
};

/** Every REST operation of specs/openapi.yaml (the Record type makes the list complete). */
export const operations: Record<OperationId, OperationContract> = {
  getRoot: op({
    call: (c, o) => c.client.service.root(o),
    check: (b) => expect(b).toMatchObject({ name: "stampd", docs: "/docs", health: "/health" }),
  }),
  getHealth: op({
    call: (c, o) => c.client.service.health(o),
    check: (b) => expect(b.status).toBe("ok"),
  }),
  getReady: op({
    call: (c, o) => c.client.service.ready(o),
    check: (b) => expect(b.status).toBe("ready"),
  }),
  getMetrics: op({
    call: (c, o) => c.client.service.metrics(o),
    check: (b) => expect(b).toContain("stampd_stamps_created_total"),
  }),
  getOpenApi: op({
    call: (c, o) => c.client.service.openapi(o),
    check: (b) => expect(b.openapi).toMatch(/^3\.1\./),
  }),
  getDocs: op({ call: (c, o) => c.client.service.docsPage(o), check: (b) => expect(b).toMatch(/<html/i) }),
  getRedoc: op({ call: (c, o) => c.client.service.redocPage(o), check: (b) => expect(b).toMatch(/<html/i) }),
  getDashboard: op({
    call: (c, o) => c.client.service.dashboardPage(o),
    check: (b) => expect(b).toMatch(/<html/i),
  }),
  getDashboardStats: op({
    call: (c, o) => c.client.service.dashboardStats(o),
    check: (b) => expect(b.stamps.per_minute.counts).toHaveLength(60),
  }),

  createStamp: op({
    call: async (c, o) =>
      c.client.stamps.create({ file: c.fx.document, filename: "contract.txt", preset: "casual" }, o),
    check: async (b, c) => {
      expect(b.stamp_id).toMatch(/^stp_/);
      if (real(c)) expect(b.document_hash).toBe(await hex("sha3-256", c.fx.document));
    },
    errors: [
      {
        name: "an unknown anchor type",
        status: 400,
        code: "validation_failed",
        invalidRequest: true,
        provoke: (c) => c.client.stamps.create({ file: c.fx.document, anchors: "polygon" }),
      },
      {
        name: "an unknown identity",
        status: 404,
        code: "identity_not_found",
        provoke: (c) => c.client.stamps.create({ file: c.fx.document, identity_id: "0000000000000000" }),
      },
      {
        name: "another account's identity",
        status: 403,
        code: "identity_not_owned",
        provoke: async (c) =>
          c.other.stamps.create({ file: c.fx.document, identity_id: await c.fx.identityId() }),
      },
      {
        name: "a document over the limit",
        status: 413,
        code: "payload_too_large",
        provoke: (c) => c.client.stamps.create({ file: tooLarge() }),
      },
    ],
  }),
  searchStamps: op({
    call: async (c, o) => {
      const stamp = await c.fx.stamp();
      return c.client.stamps.search({ hash: `${stamp.hash_algorithm}:${stamp.document_hash}` }, o);
    },
    check: async (b, c) => {
      if (real(c)) expect(b.items.map((i) => i.stamp_id)).toContain((await c.fx.stamp()).stamp_id);
    },
    errors: [
      {
        name: "a malformed hash",
        status: 400,
        code: "validation_failed",
        invalidRequest: true,
        provoke: (c) => c.client.stamps.search({ hash: "md5:00" }),
      },
    ],
  }),
  getStamp: op({
    call: async (c, o) => c.client.stamps.get((await c.fx.stamp()).stamp_id, o),
    check: async (b, c) => expect(b.stamp_id).toBe((await c.fx.stamp()).stamp_id),
    errors: [
      {
        name: "an unknown stamp",
        status: 404,
        code: "stamp_not_found",
        provoke: (c) => c.client.stamps.get(UNKNOWN_STAMP),
      },
      {
        name: "a malformed id",
        status: 400,
        code: "validation_failed",
        invalidRequest: true,
        provoke: (c) => c.client.stamps.get("nope"),
      },
    ],
  }),
  verifyStamp: op({
    call: async (c, o) => c.client.verify.stamp((await c.fx.stamp()).stamp_id, { file: c.fx.document }, o),
    check: (b, c) => {
      if (real(c)) expect(b).toMatchObject({ is_valid: true, content_hash_valid: true });
    },
    errors: [
      {
        name: "an unknown stamp",
        status: 404,
        code: "stamp_not_found",
        provoke: (c) => c.client.verify.stamp(UNKNOWN_STAMP),
      },
    ],
  }),
  verifyStampJson: op({
    call: async (c, o) =>
      c.client.verify.document({ stamp_json: (await c.fx.stamp()).stamp_json, file: c.fx.document }, o),
    check: (b, c) => {
      if (real(c)) expect(b).toMatchObject({ is_valid: true, content_hash_valid: true });
    },
    errors: [
      {
        name: "a document over the limit",
        status: 413,
        code: "payload_too_large",
        provoke: async (c) =>
          c.client.verify.document({ stamp_json: (await c.fx.stamp()).stamp_json, file: tooLarge() }),
      },
    ],
  }),
  getVerifyPage: op({
    call: async (c, o) => c.client.verify.page((await c.fx.stamp()).stamp_id, o),
    check: (b) => expect(b).toMatch(/<html/i),
    errors: [
      {
        name: "an unknown stamp (HTML page)",
        status: 404,
        provoke: (c) => c.client.verify.page("no-such-stamp"),
      },
    ],
  }),

  createFingerprint: op({
    call: (c, o) =>
      c.client.fingerprints.create(
        { file: c.fx.document, filename: "contract.txt", method: "hierarchical" },
        o,
      ),
    check: (b) => expect(b.fingerprint_json.format).toBe("stampd.fingerprint/v1"),
    errors: [
      {
        name: "a document over the limit",
        status: 413,
        code: "payload_too_large",
        provoke: (c) => c.client.fingerprints.create({ file: tooLarge() }),
      },
    ],
  }),
  compareFingerprints: op({
    call: async (c, o) =>
      c.client.fingerprints.compare(
        { fingerprint1: await c.fx.fingerprint(), fingerprint2: await c.fx.fingerprint() },
        o,
      ),
    check: (b, c) => {
      if (real(c)) expect(b.overall_similarity).toBe(1);
    },
    errors: [
      {
        name: "a document that is not a fingerprint",
        status: 400,
        code: "validation_failed",
        invalidRequest: true,
        provoke: async (c) =>
          c.client.fingerprints.compare({
            fingerprint1: {} as Schemas["FingerprintDocument"],
            fingerprint2: await c.fx.fingerprint(),
          }),
      },
    ],
  }),
  createFingerprintProof: op({
    call: async (c, o) =>
      c.client.fingerprints.proof(
        { fingerprint_json: await c.fx.fingerprint(), proof_type: "existence", section_index: 0 },
        o,
      ),
    check: (b, c) => {
      if (real(c)) expect(b.proof_type).toBe("existence");
    },
    errors: [
      {
        name: "a section beyond the chunks",
        status: 400,
        code: "validation_failed",
        provoke: async (c) =>
          c.client.fingerprints.proof({
            fingerprint_json: await c.fx.fingerprint(),
            proof_type: "existence",
            section_index: 10_000,
          }),
      },
    ],
  }),
  getShadow: op({
    call: async (c, o) => c.client.fingerprints.shadow(await c.fx.fingerprintedStampId(), 7, o),
    check: (b) => expect(b).toMatchObject({ scale: 7, resolution: "14.29%" }),
    errors: [
      {
        name: "a stamp without a fingerprint",
        status: 404,
        code: "fingerprint_not_found",
        provoke: async (c) => c.client.fingerprints.shadow((await c.fx.stamp()).stamp_id, 7),
      },
      {
        name: "an unknown stamp",
        status: 404,
        code: "stamp_not_found",
        provoke: (c) => c.client.fingerprints.shadow(UNKNOWN_STAMP, 7),
      },
    ],
  }),

  createIdentity: op({
    call: (c, o) => c.client.identities.create(o),
    check: (b) => expect(b.public_key.slice(8, 24)).toBe(b.identity_id),
    errors: [missingKey((c) => c.anonymous.identities.create())],
  }),
  getIdentity: op({
    call: async (c, o) => c.client.identities.get(await c.fx.identityId(), o),
    check: async (b, c) => expect(b.identity_id).toBe(await c.fx.identityId()),
    errors: [
      {
        name: "an unknown identity",
        status: 404,
        code: "identity_not_found",
        provoke: (c) => c.client.identities.get("0000000000000000"),
      },
    ],
  }),
  listPresets: op({
    call: (c, o) => c.client.presets.list(o),
    check: (b) => expect(b.map((p) => p.name)).toEqual(["casual", "standard", "archival", "maximum"]),
  }),
  getPreset: op({
    call: (c, o) => c.client.presets.get("archival", o),
    check: (b) => expect(b).toMatchObject({ name: "archival", trust_threshold: 8 }),
    errors: [
      {
        name: "a name that is not a preset",
        status: 404,
        code: "preset_not_found",
        provoke: (c) => c.client.presets.get("gold"),
      },
    ],
  }),
  hashFile: op({
    call: (c, o) =>
      c.client.hash.create({ file: c.fx.document, filename: "contract.txt", algorithm: "sha256" }, o),
    check: async (b, c) => {
      if (real(c))
        expect(b).toEqual({
          filename: "contract.txt",
          size_bytes: c.fx.document.size,
          algorithm: "sha256",
          hash: await hex("sha256", c.fx.document),
        });
    },
    errors: [
      {
        name: "a document over the limit",
        status: 413,
        code: "payload_too_large",
        provoke: (c) => c.client.hash.create({ file: tooLarge() }),
      },
    ],
  }),

  createVault: op({
    call: async (c, o) => c.client.vault.create(await c.fx.vaultRequest(), o),
    check: (b) => expect(b.state).toBe("active"),
    errors: [
      missingKey(async (c) => c.anonymous.vault.create(await c.fx.vaultRequest())),
      {
        name: "a deadline under 60 s",
        status: 400,
        code: "validation_failed",
        invalidRequest: true,
        provoke: async (c) =>
          c.client.vault.create({ ...(await c.fx.vaultRequest()), heartbeat_deadline: 10 }),
      },
    ],
  }),
  heartbeatVault: op({
    call: async (c, o) =>
      c.client.vault.heartbeat(await c.fx.newVault(), { fee_receipt: await c.fx.receipt("0.50") }, o),
    check: (b) => expect(b.fee_currency).toBe("USDC"),
    errors: [
      {
        name: "an unknown vault",
        status: 404,
        code: "vault_not_found",
        provoke: async (c) =>
          c.client.vault.heartbeat(UNKNOWN_VAULT, { fee_receipt: await c.fx.receipt("0.50") }),
      },
      {
        name: "a released vault",
        status: 409,
        code: "vault_not_active",
        provoke: async (c) =>
          c.client.vault.heartbeat(await c.fx.releasedVault(), { fee_receipt: await c.fx.receipt("0.50") }),
      },
      {
        name: "a receipt used before",
        status: 409,
        code: "fee_receipt_used",
        provoke: async (c) => {
          const receipt = await c.fx.receipt("0.50");
          await c.client.vault.heartbeat(await c.fx.newVault(), { fee_receipt: receipt });
          return c.client.vault.heartbeat(await c.fx.newVault(), { fee_receipt: receipt });
        },
      },
      {
        name: "a receipt below the fee",
        status: 422,
        code: "fee_insufficient",
        provoke: async (c) =>
          c.client.vault.heartbeat(await c.fx.newVault(), { fee_receipt: await c.fx.receipt("0.01") }),
      },
    ],
  }),
  batchHeartbeat: op({
    call: async (c, o) =>
      c.client.vault.batchHeartbeat(
        {
          vault_ids: [await c.fx.newVault(), await c.fx.newVault()],
          fee_receipt: await c.fx.receipt("1.00"),
        },
        o,
      ),
    check: (b, c) => {
      if (real(c)) expect(b).toMatchObject({ renewed: 2, failed: 0 });
    },
    errors: [
      {
        name: "a receipt below the fee",
        status: 422,
        code: "fee_insufficient",
        provoke: async (c) =>
          c.client.vault.batchHeartbeat({
            vault_ids: [await c.fx.newVault()],
            fee_receipt: await c.fx.receipt("0.01"),
          }),
      },
    ],
  }),
  listVaults: op({
    call: (c, o) => c.client.vault.list({ limit: 2 }, o),
    check: (b, c) => expect(b.limit).toBe(real(c) ? 2 : 50),
    errors: [missingKey((c) => c.anonymous.vault.list())],
  }),
  createHeartbeatGroup: op({
    call: async (c, o) =>
      c.client.vault.createGroup({ name: "contract", vault_ids: [await c.fx.newVault()], interval: 3600 }, o),
    check: (b) => expect(b.id).toMatch(/^grp_/),
    errors: [
      {
        name: "an unknown vault",
        status: 404,
        code: "vault_not_found",
        provoke: (c) => c.client.vault.createGroup({ name: "x", vault_ids: [UNKNOWN_VAULT], interval: 3600 }),
      },
      {
        name: "a vault already in a group",
        status: 409,
        code: "vault_in_group",
        provoke: async (c) => {
          const id = await c.fx.newVault();
          await c.client.vault.createGroup({ name: "first", vault_ids: [id], interval: 3600 });
          return c.client.vault.createGroup({ name: "second", vault_ids: [id], interval: 3600 });
        },
      },
    ],
  }),
  getVaultFees: op({
    call: (c, o) => c.client.vault.fees(o),
    check: (b) => expect(b.heartbeat_fee).toBe("0.50"),
  }),
  getVault: op({
    call: async (c, o) => c.client.vault.get(await c.fx.newVault(), o),
    check: (b) => expect(b.state).toBe("active"),
    errors: [
      {
        name: "an unknown vault",
        status: 404,
        code: "vault_not_found",
        provoke: (c) => c.client.vault.get(UNKNOWN_VAULT),
      },
      {
        name: "another account's vault",
        status: 404,
        code: "vault_not_found",
        provoke: async (c) => c.other.vault.get(await c.fx.newVault()),
      },
    ],
  }),
  releaseVault: op({
    call: async (c, o) => c.client.vault.release(await c.fx.newVault(), { reason: "contract test" }, o),
    check: (b) => expect(b.released).toBe(true),
    errors: [
      {
        name: "a vault without manual release",
        status: 403,
        code: "manual_release_not_allowed",
        provoke: async (c) => {
          const vault = await c.client.vault.create({
            ...(await c.fx.vaultRequest()),
            allow_manual_release: false,
          });
          return c.client.vault.release(vault.id, { reason: "x" });
        },
      },
      {
        name: "a released vault",
        status: 409,
        code: "vault_not_active",
        provoke: async (c) => c.client.vault.release(await c.fx.releasedVault(), { reason: "x" }),
      },
    ],
  }),
  retrieveVaultKey: op({
    call: async (c, o) => {
      const id = await c.fx.releasedVault();
      return c.client.vault.retrieve(id, await c.fx.retrieveProof(id), o);
    },
    check: async (b, c) => {
      if (real(c)) expect(b.encrypted_key).toBe((await c.fx.vaultRequest()).encrypted_key);
    },
    errors: [
      {
        name: "an active vault",
        status: 409,
        code: "vault_not_retrievable",
        provoke: async (c) => {
          const id = await c.fx.newVault();
          return c.client.vault.retrieve(id, await c.fx.retrieveProof(id));
        },
      },
      {
        name: "a proof for another vault",
        status: 403,
        code: "invalid_proof_of_identity",
        provoke: async (c) =>
          c.client.vault.retrieve(await c.fx.releasedVault(), await c.fx.retrieveProof(UNKNOWN_VAULT)),
      },
    ],
  }),
  burnVault: op({
    call: async (c, o) => c.client.vault.burn(await c.fx.newVault(), { reason: "contract test" }, o),
    check: (b) => expect(b.burned).toBe(true),
    errors: [
      {
        name: "a burned vault",
        status: 409,
        code: "vault_burned",
        provoke: async (c) => {
          const id = await c.fx.newVault();
          await c.client.vault.burn(id, { reason: "first" });
          return c.client.vault.burn(id, { reason: "again" });
        },
      },
    ],
  }),
  addVaultMirror: op({
    call: async (c, o) => c.client.vault.addMirror(await c.fx.newVault(), { uri: MIRROR }, o),
    check: (b) => expect(b.content_uris).toContain(MIRROR),
    errors: [
      {
        name: "an unknown vault",
        status: 404,
        code: "vault_not_found",
        provoke: (c) => c.client.vault.addMirror(UNKNOWN_VAULT, { uri: MIRROR }),
      },
    ],
  }),

  listExplorerVaults: op({
    call: (c, o) => c.client.explorer.vaults({ limit: 2 }, o),
    check: (b) => expect(b.limit).toBe(2),
    errors: [
      {
        name: "a page size of 0",
        status: 400,
        code: "validation_failed",
        invalidRequest: true,
        provoke: (c) => c.client.explorer.vaults({ limit: 0 }),
      },
    ],
  }),
  getExplorerPage: op({
    call: (c, o) => c.client.explorer.page({ limit: 5 }, o),
    check: (b) => expect(b).toMatch(/<h1>Explorer<\/h1>/),
  }),
  getExplorerStats: op({
    call: (c, o) => c.client.explorer.stats(o),
    check: (b) => expect(b.total_vaults).toBeGreaterThanOrEqual(b.active_vaults),
  }),
  getWsStats: op({
    call: (c, o) => c.client.service.wsStats(o),
    check: (b) => expect(b.connections).toBeGreaterThanOrEqual(0),
  }),

  getStampProof: op({
    call: async (c, o) => c.client.stamps.proof(await c.fx.confirmedStampId(), o),
    check: (b) => expect(b.format).toBe("stampd.proof/v1"),
    // (409 for a pending stamp is test/proofs' business: here the server batches every 50 ms.)
    errors: [
      {
        name: "an unknown stamp",
        status: 404,
        code: "stamp_not_found",
        provoke: (c) => c.client.stamps.proof(UNKNOWN_STAMP),
      },
    ],
  }),
  getStampTimestamp: op({
    call: async (c, o) => c.client.stamps.timestamp(await c.fx.confirmedStampId(), o),
    check: (b, c) => {
      // A DER SEQUENCE; the mock serves the example's text.
      if (real(c)) expect(b[0]).toBe(0x30);
      else expect(b.length).toBeGreaterThan(0);
    },
    errors: [
      {
        name: "an unknown stamp",
        status: 404,
        code: "stamp_not_found",
        provoke: (c) => c.client.stamps.timestamp(UNKNOWN_STAMP),
      },
    ],
  }),
  getLogInfo: op({
    call: (c, o) => c.client.log.info(o),
    check: (b) => expect(b.verifier_key.startsWith(`${b.origin}+`)).toBe(true),
  }),
  getLogCheckpoint: op({
    call: (c, o) => c.client.log.checkpoint(o),
    check: (b) => expect(b).toMatch(/^\S+\n\d+\n[A-Za-z0-9+/]{43}=\n\n\u2014 /),
  }),
  getLogInclusion: op({
    call: async (c, o) => {
      await c.fx.confirmedStampId();
      return c.client.log.inclusion(0, 1, o);
    },
    check: (b) => expect(b.index).toBeLessThan(b.tree_size),
    errors: [
      {
        name: "an entry beyond the log",
        status: 400,
        code: "bad_request",
        provoke: (c) => c.client.log.inclusion(1_000_000, 1_000_001),
      },
    ],
  }),
  getLogConsistency: op({
    call: async (c, o) => {
      await c.fx.confirmedStampId();
      return c.client.log.consistency(0, 1, o);
    },
    check: (b) => expect(b.second).toBeGreaterThanOrEqual(b.first),
    errors: [
      {
        name: "a size beyond the log",
        status: 400,
        code: "bad_request",
        provoke: (c) => c.client.log.consistency(0, 1_000_000),
      },
    ],
  }),
  getLogTilesCheckpoint: op({
    call: (c, o) => c.client.log.tilesCheckpoint(o),
    check: (b) => expect(b).toMatch(/^\S+\n\d+\n[A-Za-z0-9+/]{43}=\n\n\u2014 /),
  }),
  // The contract server's log is small: it has partial tiles only (`000.p/<W>`, two segments).
  // The other forms answer the spec's 404 there; test/log/tiles.test.ts reads them from a log
  // grown to 70 000 entries.
  getLogTile: op({ call: (c, o) => tileOrMissing(c, "tile/0/000", o), check: missingWhenReal }),
  getLogTile2: op({
    call: async (c, o) => {
      if (!real(c)) return c.client.log.tile("tile/0/000.p/1", o);
      await c.fx.confirmedStampId();
      const size = Number((await c.client.log.tilesCheckpoint()).split("\n")[1]);
      return c.client.log.tile(`tile/0/000.p/${size}`, o);
    },
    check: (b, c) => {
      if (real(c)) expect((b as Uint8Array).length % 32).toBe(0);
    },
  }),
  getLogTile3: op({ call: (c, o) => tileOrMissing(c, "tile/0/x001/x000/000", o), check: missingWhenReal }),
  getLogTile4: op({
    call: (c, o) => tileOrMissing(c, "tile/0/x001/x000/x000/000", o),
    check: missingWhenReal,
  }),
  getKeyRing: op({
    call: (c, o) => c.client.log.keyRing(o),
    check: (b) => expect(b.keys.filter((k) => k.state === "active").map((k) => k.kind)).toContain("service"),
  }),
  getTsaCertificate: op({
    call: (c, o) => c.client.log.tsaCertificate(o),
    check: (b) => expect(b).toContain("-----BEGIN CERTIFICATE-----"),
  }),
};
