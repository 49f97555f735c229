import { createHash } from "node:crypto";
import type { Schemas } from "../../sdk/src/index.js";
import type { OperationId } from "../../server/contract/openapi.js";
import { expectThat, NotRun } from "./check.js";
import { logTileCases, stampLog } from "./log-tile-cases.js";
import type { Ctx, ErrorCase, OperationCases } from "./rest-recipe.js";

const op = <T>(cases: OperationCases<T>) => cases as OperationCases<unknown>;

const UNKNOWN_STAMP = "stp_00000000000000000000000000";
const UNKNOWN_VAULT = "vlt_00000000000000000000000000";
const MIRROR = "ar://bNbA3TEQVL60xlgCcqdz4ZPHFZ711cZ3hmkpGttDt_U";
const hex = (algorithm: string, data: Blob) =>
  data.arrayBuffer().then((b) => createHash(algorithm).update(Buffer.from(b)).digest("hex"));
const real = (c: Ctx) => !c.mock;
/** One byte over the target's upload limit. */
const tooLarge = (c: Ctx) => {
  if (!c.uploadLimit) throw new NotRun("needs --max-upload-bytes (the target's MAX_UPLOAD_BYTES)");
  return new Blob([new Uint8Array(c.uploadLimit + 1)]);
};
const overLimit = (provoke: (c: Ctx) => PromiseLike<unknown>): ErrorCase => ({
  name: "a document over the limit",
  status: 413,
  code: "payload_too_large",
  provoke,
});
const show = (value: unknown) => JSON.stringify(value)?.slice(0, 300) ?? String(value);

/** `actual` equals `expected` (compared as JSON). */
function same(what: string, actual: unknown, expected: unknown): void {
  expectThat(
    show(actual) === show(expected),
    `${what} = ${show(expected)}`,
    () => `${what} = ${show(actual)}`,
  );
}
function holds(what: string, ok: boolean, actual: () => unknown): void {
  expectThat(ok, what, () => show(actual()));
}
const isHtml = (b: string) => holds("an HTML page", /<html/i.test(b), () => b.slice(0, 80));
const isCheckpoint = (b: string) =>
  holds("a signed note (C2SP tlog-checkpoint)", /^\S+\n\d+\n[A-Za-z0-9+/]{43}=\n\n\u2014 /.test(b), () => b);

const reason = (c: Ctx) => `conformance ${c.runId}`;
const missingKey = (provoke: (c: Ctx) => PromiseLike<unknown>): ErrorCase => ({
  name: "without a key",
  status: 401,
  code: "missing_api_key",
  area: "auth",
  invalidRequest: true,
  provoke,
});
/** Another account's vault is answered as an unknown one (server/vault/access.ts: ids cannot be probed). */
const othersVault = (name: string, provoke: (c: Ctx, id: string) => PromiseLike<unknown>): ErrorCase => ({
  name: `another account's vault (${name})`,
  status: 404,
  code: "vault_not_found",
  area: "auth",
  provoke: async (c) => provoke(c, await c.fx.newVault()),
});

/**
 * Every REST operation of specs/openapi.yaml with its request recipe (the Record type makes the
 * list complete: a new operation does not compile without one). The kit runs them against any
 * target, and the repository's contract suite (test/contract/suite.ts) runs them through vitest
 * against the real server and the Prism mock.
 */
export const restCases: Record<OperationId, OperationCases> = {
  getRoot: op({
    call: (c, o) => c.client.service.root(o),
    check: (b) => same("name, docs, health", [b.name, b.docs, b.health], ["stampd", "/docs", "/health"]),
  }),
  getHealth: op({ call: (c, o) => c.client.service.health(o), check: (b) => same("status", b.status, "ok") }),
  getReady: op({
    call: (c, o) => c.client.service.ready(o),
    check: (b) => same("status", b.status, "ready"),
  }),
  getMetrics: op({
    call: (c, o) => c.client.service.metrics(o),
    check: (b) =>
      holds(
        "Prometheus text naming stampd_stamps_created_total",
        b.includes("stampd_stamps_created_total"),
        () => b.slice(0, 80),
      ),
  }),
  getOpenApi: op({
    call: (c, o) => c.client.service.openapi(o),
    check: (b) => holds("openapi 3.1.x", /^3\.1\./.test(String(b.openapi)), () => b.openapi),
  }),
  getDocs: op({ call: (c, o) => c.client.service.docsPage(o), check: isHtml }),
  getRedoc: op({ call: (c, o) => c.client.service.redocPage(o), check: isHtml }),
  getDashboard: op({ call: (c, o) => c.client.service.dashboardPage(o), check: isHtml }),
  getDashboardStats: op({
    call: (c, o) => c.client.service.dashboardStats(o),
    check: (b) => same("stamps.per_minute.counts length", b.stamps.per_minute.counts.length, 60),
  }),

  createStamp: op({
    call: (c, o) =>
      c.client.stamps.create({ file: c.fx.document, filename: c.fx.filename, preset: "casual" }, o),
    check: async (b, c) => {
      holds("a stamp_id stp_…", b.stamp_id.startsWith("stp_"), () => b.stamp_id);
      if (real(c)) same("document_hash", b.document_hash, await hex("sha3-256", c.fx.document));
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
        area: "auth",
        provoke: async (c) =>
          c.other().stamps.create({ file: c.fx.document, identity_id: await c.fx.identityId() }),
      },
      overLimit((c) => c.client.stamps.create({ file: tooLarge(c) })),
    ],
  }),
  searchStamps: op({
    call: async (c, o) => {
      const stamp = await c.fx.stamp();
      return c.client.stamps.search({ hash: `${stamp.hash_algorithm}:${stamp.document_hash}` }, o);
    },
    check: async (b, c) => {
      if (!real(c)) return;
      const id = (await c.fx.stamp()).stamp_id;
      holds(
        `the items include ${id}`,
        b.items.some((i) => i.stamp_id === id),
        () => b.items.map((i) => i.stamp_id),
      );
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
    check: async (b, c) => same("stamp_id", b.stamp_id, (await c.fx.stamp()).stamp_id),
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
      if (real(c)) same("is_valid, content_hash_valid", [b.is_valid, b.content_hash_valid], [true, true]);
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
      if (real(c)) same("is_valid, content_hash_valid", [b.is_valid, b.content_hash_valid], [true, true]);
    },
    errors: [
      overLimit(async (c) =>
        c.client.verify.document({ stamp_json: (await c.fx.stamp()).stamp_json, file: tooLarge(c) }),
      ),
    ],
  }),
  getVerifyPage: op({
    call: async (c, o) => c.client.verify.page((await c.fx.stamp()).stamp_id, o),
    check: isHtml,
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
        { file: c.fx.document, filename: c.fx.filename, method: "hierarchical" },
        o,
      ),
    check: (b) => same("fingerprint_json.format", b.fingerprint_json.format, "stampd.fingerprint/v1"),
    errors: [overLimit((c) => c.client.fingerprints.create({ file: tooLarge(c) }))],
  }),
  compareFingerprints: op({
    call: async (c, o) =>
      c.client.fingerprints.compare(
        { fingerprint1: await c.fx.fingerprint(), fingerprint2: await c.fx.fingerprint() },
        o,
      ),
    check: (b, c) => {
      if (real(c)) same("overall_similarity", b.overall_similarity, 1);
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
      if (real(c)) same("proof_type", b.proof_type, "existence");
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
    check: (b) => same("scale, resolution", [b.scale, b.resolution], [7, "14.29%"]),
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
    check: (b) => same("public_key[8:24]", b.public_key.slice(8, 24), b.identity_id),
    errors: [missingKey((c) => c.anonymous.identities.create())],
  }),
  getIdentity: op({
    call: async (c, o) => c.client.identities.get(await c.fx.identityId(), o),
    check: async (b, c) => same("identity_id", b.identity_id, await c.fx.identityId()),
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
    check: (b) =>
      same(
        "names",
        b.map((p) => p.name),
        ["casual", "standard", "archival", "maximum"],
      ),
  }),
  getPreset: op({
    call: (c, o) => c.client.presets.get("archival", o),
    check: (b) => same("name, trust_threshold", [b.name, b.trust_threshold], ["archival", 8]),
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
      c.client.hash.create({ file: c.fx.document, filename: c.fx.filename, algorithm: "sha256" }, o),
    check: async (b, c) => {
      if (!real(c)) return;
      const hash = await hex("sha256", c.fx.document);
      same("the answer", b, {
        filename: c.fx.filename,
        size_bytes: c.fx.document.size,
        algorithm: "sha256",
        hash,
      });
    },
    errors: [overLimit((c) => c.client.hash.create({ file: tooLarge(c) }))],
  }),

  createVault: op({
    call: async (c, o) => c.client.vault.create(await c.fx.vaultRequest(), o),
    check: (b, c) => {
      same("state", b.state, "active");
      if (real(c)) same("metadata", b.metadata, { conformance: c.runId });
    },
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
      c.client.vault.heartbeat(await c.fx.newVault(), { fee_receipt: await c.fx.heartbeatReceipt(1) }, o),
    check: async (b, c) => same("fee_currency", b.fee_currency, (await c.client.vault.fees()).currency),
    errors: [
      {
        name: "an unknown vault",
        status: 404,
        code: "vault_not_found",
        provoke: async (c) =>
          c.client.vault.heartbeat(UNKNOWN_VAULT, { fee_receipt: await c.fx.heartbeatReceipt(1) }),
      },
      {
        name: "a released vault",
        status: 409,
        code: "vault_not_active",
        provoke: async (c) =>
          c.client.vault.heartbeat(await c.fx.releasedVault(), {
            fee_receipt: await c.fx.heartbeatReceipt(1),
          }),
      },
      {
        name: "a receipt used before",
        status: 409,
        code: "fee_receipt_used",
        provoke: async (c) => {
          const receipt = await c.fx.heartbeatReceipt(1);
          await c.client.vault.heartbeat(await c.fx.newVault(), { fee_receipt: receipt });
          return c.client.vault.heartbeat(await c.fx.newVault(), { fee_receipt: receipt });
        },
      },
      {
        name: "a receipt below the fee",
        status: 422,
        code: "fee_insufficient",
        provoke: async (c) =>
          c.client.vault.heartbeat(await c.fx.newVault(), {
            fee_receipt: await c.fx.heartbeatReceipt(1, "short"),
          }),
      },
      othersVault("heartbeat", async (c, id) =>
        c.other().vault.heartbeat(id, { fee_receipt: await c.fx.heartbeatReceipt(1) }),
      ),
    ],
  }),
  batchHeartbeat: op({
    call: async (c, o) =>
      c.client.vault.batchHeartbeat(
        {
          vault_ids: [await c.fx.newVault(), await c.fx.newVault()],
          fee_receipt: await c.fx.heartbeatReceipt(2),
        },
        o,
      ),
    check: (b, c) => {
      if (real(c)) same("renewed, failed", [b.renewed, b.failed], [2, 0]);
    },
    errors: [
      {
        name: "a receipt below the fee",
        status: 422,
        code: "fee_insufficient",
        provoke: async (c) =>
          c.client.vault.batchHeartbeat({
            vault_ids: [await c.fx.newVault()],
            fee_receipt: await c.fx.heartbeatReceipt(1, "short"),
          }),
      },
    ],
  }),
  listVaults: op({
    call: (c, o) => c.client.vault.list({ limit: 2 }, o),
    // The mock answers the spec's example, a page of the default size.
    check: (b, c) => same("limit", b.limit, real(c) ? 2 : 50),
    errors: [missingKey((c) => c.anonymous.vault.list())],
  }),
  createHeartbeatGroup: op({
    call: async (c, o) =>
      c.client.vault.createGroup({ name: reason(c), vault_ids: [await c.fx.newVault()], interval: 3600 }, o),
    check: (b) => holds("an id grp_…", b.id.startsWith("grp_"), () => b.id),
    errors: [
      {
        name: "an unknown vault",
        status: 404,
        code: "vault_not_found",
        provoke: (c) =>
          c.client.vault.createGroup({ name: reason(c), vault_ids: [UNKNOWN_VAULT], interval: 3600 }),
      },
      {
        name: "a vault already in a group",
        status: 409,
        code: "vault_in_group",
        provoke: async (c) => {
          const id = await c.fx.newVault();
          await c.client.vault.createGroup({ name: reason(c), vault_ids: [id], interval: 3600 });
          return c.client.vault.createGroup({ name: reason(c), vault_ids: [id], interval: 3600 });
        },
      },
    ],
  }),
  getVaultFees: op({
    call: (c, o) => c.client.vault.fees(o),
    check: (b, c) => {
      holds("a currency", b.currency.length > 0, () => b.currency);
      // The spec's example; a deployment sets its own fee (the heartbeat cases read it here).
      if (!real(c)) same("heartbeat_fee", b.heartbeat_fee, "0.50");
    },
  }),
  getVault: op({
    call: async (c, o) => c.client.vault.get(await c.fx.newVault(), o),
    check: (b) => same("state", b.state, "active"),
    errors: [
      {
        name: "an unknown vault",
        status: 404,
        code: "vault_not_found",
        provoke: (c) => c.client.vault.get(UNKNOWN_VAULT),
      },
      othersVault("read", (c, id) => c.other().vault.get(id)),
    ],
  }),
  releaseVault: op({
    call: async (c, o) => c.client.vault.release(await c.fx.newVault(), { reason: reason(c) }, o),
    check: (b) => same("released", b.released, true),
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
          return c.client.vault.release(vault.id, { reason: reason(c) });
        },
      },
      {
        name: "a released vault",
        status: 409,
        code: "vault_not_active",
        provoke: async (c) => c.client.vault.release(await c.fx.releasedVault(), { reason: reason(c) }),
      },
      othersVault("release", (c, id) => c.other().vault.release(id, { reason: reason(c) })),
    ],
  }),
  retrieveVaultKey: op({
    call: async (c, o) => {
      const id = await c.fx.releasedVault();
      return c.client.vault.retrieve(id, await c.fx.retrieveProof(id), o);
    },
    check: async (b, c) => {
      if (real(c)) same("encrypted_key", b.encrypted_key, (await c.fx.vaultRequest()).encrypted_key);
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
    call: async (c, o) => c.client.vault.burn(await c.fx.newVault(), { reason: reason(c) }, o),
    check: (b) => same("burned", b.burned, true),
    errors: [
      {
        name: "a burned vault",
        status: 409,
        code: "vault_burned",
        provoke: async (c) => {
          const id = await c.fx.newVault();
          await c.client.vault.burn(id, { reason: reason(c) });
          return c.client.vault.burn(id, { reason: reason(c) });
        },
      },
      othersVault("burn", (c, id) => c.other().vault.burn(id, { reason: reason(c) })),
    ],
  }),
  addVaultMirror: op({
    call: async (c, o) => c.client.vault.addMirror(await c.fx.newVault(), { uri: MIRROR }, o),
    check: (b) =>
      holds(`content_uris include ${MIRROR}`, b.content_uris.includes(MIRROR), () => b.content_uris),
    errors: [
      {
        name: "an unknown vault",
        status: 404,
        code: "vault_not_found",
        provoke: (c) => c.client.vault.addMirror(UNKNOWN_VAULT, { uri: MIRROR }),
      },
      othersVault("add a mirror", (c, id) => c.other().vault.addMirror(id, { uri: MIRROR })),
    ],
  }),

  listExplorerVaults: op({
    call: (c, o) => c.client.explorer.vaults({ limit: 2 }, o),
    check: (b) => same("limit", b.limit, 2),
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
    check: (b) => holds("an <h1>Explorer</h1> page", b.includes("<h1>Explorer</h1>"), () => b.slice(0, 80)),
  }),
  getExplorerStats: op({
    call: (c, o) => c.client.explorer.stats(o),
    check: (b) => holds("total_vaults >= active_vaults", b.total_vaults >= b.active_vaults, () => b),
  }),
  getWsStats: op({
    call: (c, o) => c.client.service.wsStats(o),
    check: (b) => holds("connections >= 0", b.connections >= 0, () => b.connections),
  }),

  getStampProof: op({
    call: async (c, o) => c.client.stamps.proof(await c.fx.confirmedStampId(), o),
    check: (b) => same("format", b.format, "stampd.proof/v1"),
    errors: [
      {
        name: "an unknown stamp",
        status: 404,
        code: "stamp_not_found",
        provoke: (c) => c.client.stamps.proof(UNKNOWN_STAMP),
      },
    ],
  }),
  getStampSigstoreBundle: op({
    call: async (c, o) => c.client.stamps.sigstoreBundle(await c.fx.confirmedStampId(), o),
    check: (b) => same("mediaType", b.mediaType, "application/vnd.dev.sigstore.bundle.v0.3+json"),
    errors: [
      {
        name: "an unknown stamp",
        status: 404,
        code: "stamp_not_found",
        provoke: (c) => c.client.stamps.sigstoreBundle(UNKNOWN_STAMP),
      },
    ],
  }),
  getStampOpenTimestamps: op({
    call: async (c, o) => c.client.stamps.openTimestamps(await c.fx.openTimestampsStampId(), o),
    check: (b, c) => {
      // The DetachedTimestampFile magic; the mock serves the example's text.
      if (real(c)) same("first bytes", Buffer.from(b.subarray(0, 15)).toString("latin1"), "\0OpenTimestamps");
      else holds("a body", b.length > 0, () => b.length);
    },
    errors: [
      {
        name: "an unknown stamp",
        status: 404,
        code: "stamp_not_found",
        provoke: (c) => c.client.stamps.openTimestamps(UNKNOWN_STAMP),
      },
      {
        name: "a stamp without the bitcoin anchor",
        status: 404,
        code: "ots_not_requested",
        provoke: async (c) => c.client.stamps.openTimestamps(await c.fx.confirmedStampId()),
      },
    ],
  }),
  getStampTimestamp: op({
    call: async (c, o) => c.client.stamps.timestamp(await c.fx.confirmedStampId(), o),
    check: (b, c) => {
      // A DER SEQUENCE; the mock serves the example's text.
      if (real(c)) same("first byte", b[0], 0x30);
      else holds("a body", b.length > 0, () => b.length);
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
    check: (b) =>
      holds("verifier_key starts with <origin>+", b.verifier_key.startsWith(`${b.origin}+`), () => b),
  }),
  getLogCheckpoint: op({ call: (c, o) => c.client.log.checkpoint(o), check: isCheckpoint }),
  getLogInclusion: op({
    call: async (c, o) => {
      await c.fx.confirmedStampId();
      return c.client.log.inclusion(0, 1, o);
    },
    check: (b) => holds("index < tree_size", b.index < b.tree_size, () => b),
    errors: [
      {
        name: "an entry beyond the log",
        status: 400,
        code: "bad_request",
        provoke: (c) => c.client.log.inclusion(1_000_000_000, 1_000_000_001),
      },
    ],
  }),
  getLogConsistency: op({
    call: async (c, o) => {
      await c.fx.confirmedStampId();
      return c.client.log.consistency(0, 1, o);
    },
    check: (b) => holds("second >= first", b.second >= b.first, () => b),
    errors: [
      {
        name: "a size beyond the log",
        status: 400,
        code: "bad_request",
        provoke: (c) => c.client.log.consistency(0, 1_000_000_000),
      },
    ],
  }),
  getLogTilesCheckpoint: op({ call: (c, o) => c.client.log.tilesCheckpoint(o), check: isCheckpoint }),
  getLogTile: logTileCases(1),
  getLogTile2: logTileCases(2),
  getLogTile3: logTileCases(3),
  getLogTile4: logTileCases(4),
  getStampLogTilesCheckpoint: op({
    call: (c, o) => c.client.log.stampLogTilesCheckpoint(o),
    check: isCheckpoint,
  }),
  getStampLogTile: logTileCases(1, stampLog),
  getStampLogTile2: logTileCases(2, stampLog),
  getStampLogTile3: logTileCases(3, stampLog),
  getStampLogTile4: logTileCases(4, stampLog),
  getKeyRing: op({
    call: (c, o) => c.client.log.keyRing(o),
    check: (b) => {
      const active = b.keys.filter((k) => k.state === "active").map((k) => k.kind);
      holds("an active service key", active.includes("service"), () => active);
    },
  }),
  getSigstoreTrustedRoot: op({
    call: (c, o) => c.client.log.sigstoreTrustedRoot(o),
    check: (b) => holds("a stamp log", b.tlogs.length > 0, () => b.tlogs.length),
  }),
  getTsaCertificate: op({
    call: (c, o) => c.client.log.tsaCertificate(o),
    check: (b) => holds("a PEM certificate", b.includes("-----BEGIN CERTIFICATE-----"), () => b.slice(0, 80)),
  }),
};
