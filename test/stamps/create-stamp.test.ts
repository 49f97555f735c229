import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnyDomainEvent } from "../../server/events/bus.js";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { createIdentity, createStamp, postStamp, sha3 } from "./helpers.js";

let svc: RunningService;
beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false", SERVICE_BASE_URL: "https://stamps.example.org/" });
});
afterAll(() => svc.close());

describe("POST /stamps", () => {
  it("answers 201 with Location and a pending stamp of the document's SHA3-256", async () => {
    const res = await postStamp(svc, "quarterly report");
    expect(res.status).toBe(201);
    const stamp = await res.json();
    expect(res.headers.get("location")).toBe(`/stamps/${stamp.stamp_id}`);
    expect(stamp).toMatchObject({
      document_hash: sha3("quarterly report"),
      hash_algorithm: "sha3-256",
      author_public_key: null,
      is_signed: false,
      anchors_requested: [],
      anchors: [],
      trust_threshold: 5,
      trust_score: 1,
      trust_met: false,
      has_fingerprint: false,
      status: "pending",
      verify_url: `https://stamps.example.org/verify/${stamp.stamp_id}`,
    });
    expect(stamp.stamp_json).toMatchObject({
      format: "stampd.stamp/v1",
      stamp_id: stamp.stamp_id,
      created_at: stamp.created_at,
      document: { hash: sha3("quarterly report"), algorithm: "sha3-256", size_bytes: 16, version: "1.0.0" },
      preset: null,
      storage_mode: "local",
      encryption: "none",
      fingerprint: null,
      signatures: { author: null },
    });
    expect(stamp.stamp_json.service_public_key).toBe(svc.service.ctx.keys.signing.publicKey);
  });

  // At creation only the service signature is evidence: requested anchors are pending, or
  // unavailable on this default deployment (no TSA_URL), and add nothing.
  it.each([
    ["casual", ["log"], 2, [{ type: "log", status: "pending" }]],
    [
      "standard",
      ["log", "rfc3161"],
      5,
      [
        { type: "log", status: "pending" },
        { type: "rfc3161", status: "unavailable", reason: "no time-stamp authority configured (TSA_URL)" },
      ],
    ],
  ])(
    "preset %s fills anchors and threshold (score: the service signature 1)",
    async (preset, anchors, threshold, states) => {
      const stamp = await createStamp(svc, "x", { preset });
      expect(stamp).toMatchObject({
        anchors_requested: anchors,
        trust_threshold: threshold,
        trust_score: 1,
        anchors: states,
      });
      expect(stamp.stamp_json.preset).toBe(preset);
    },
  );

  it("explicit fields override the preset; anchors replace its list, deduplicated, spaces ignored", async () => {
    const stamp = await createStamp(svc, "x", {
      preset: "standard",
      anchors: " bitcoin , log,bitcoin",
      trust_threshold: "3",
      version: "2.1.0",
    });
    expect(stamp).toMatchObject({
      anchors_requested: ["bitcoin", "log"],
      trust_threshold: 3,
      trust_score: 1,
      trust_met: false,
    });
    expect(stamp.stamp_json.document.version).toBe("2.1.0");
  });

  it("a query parameter wins over the same form field", async () => {
    const stamp = await createStamp(
      svc,
      "x",
      { trust_threshold: "9", anchors: "log" },
      { query: "?trust_threshold=1&anchors=ethereum,log" },
    );
    expect(stamp).toMatchObject({ trust_threshold: 1, anchors_requested: ["ethereum", "log"] });
  });

  it.each([
    ["an unknown anchor type (form)", { anchors: "log,polygon" }, ""],
    ["an unknown anchor type (query)", {}, "?anchors=polygon"],
    ["a trust_threshold above 100", { trust_threshold: "101" }, ""],
    ["a trust_threshold that is not an integer", { trust_threshold: "2.5" }, ""],
    ["an unknown preset", { preset: "gold" }, ""],
    ["a malformed identity_id", { identity_id: "XYZ" }, ""],
    ["generate_fp that is not a boolean", { generate_fp: "maybe" }, ""],
  ])("answers 400 for %s", async (_name, fields, query) => {
    const res = await postStamp(svc, "x", fields as Record<string, string>, { query });
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe("validation_failed");
  });

  it("generate_fp stores a fingerprint the document commits to (no trust: it proves nothing of time or origin), served by the shadow endpoint", async () => {
    const stamp = await createStamp(svc, "fingerprinted ".repeat(500), { preset: "archival" });
    expect(stamp).toMatchObject({ has_fingerprint: true, trust_score: 1, trust_threshold: 8 });
    expect(stamp.stamp_json.fingerprint).toMatchObject({
      standard_hash: `sha3-256:${sha3("fingerprinted ".repeat(500))}`,
      merkle_root: expect.stringMatching(/^[0-9a-f]{64}$/),
      decomposition_method: "hierarchical",
    });
    expect((await fetch(`${svc.baseUrl}/fingerprint/${stamp.stamp_id}/shadow/7`)).status).toBe(200);
    const plain = await createStamp(svc, "x", { preset: "archival", generate_fp: "false" });
    expect(plain.has_fingerprint).toBe(false);
  });

  it("publishes stamp_created with the account and the stamp id", async () => {
    const { key, accountId } = await issueKey(svc);
    const seen: AnyDomainEvent[] = [];
    const stop = svc.service.ctx.events.subscribe((event) => seen.push(event));
    const stamp = await createStamp(svc, "evented", {}, { key });
    stop();
    expect(seen).toEqual([
      {
        type: "stamp_created",
        data: {
          id: stamp.stamp_id,
          contentHash: `sha3-256:${sha3("evented")}`,
          timestamp: stamp.created_at,
          metadata: {},
        },
        scope: { accountId, stampId: stamp.stamp_id, metadata: {} },
      },
    ]);
  });
});

describe("POST /stamps with identity_id", () => {
  it("signs with the caller's identity: is_signed, author key, +2 trust", async () => {
    const { key } = await issueKey(svc);
    const identityId = await createIdentity(svc, key);
    const stamp = await createStamp(svc, "signed", { identity_id: identityId, preset: "standard" }, { key });
    expect(stamp.is_signed).toBe(true);
    expect(stamp.author_public_key).toMatch(new RegExp(`^ed25519:${identityId}[0-9a-f]{48}$`));
    expect(stamp.stamp_json.signatures.author).toMatch(/^[0-9a-f]{128}$/);
    expect(stamp.trust_score).toBe(1 + 2);
    expect(stamp.trust_met).toBe(false);
  });

  it("answers 401 without a key, 404 for an unknown identity, 403 for another account's identity", async () => {
    const owner = await issueKey(svc);
    const other = await issueKey(svc);
    const identityId = await createIdentity(svc, owner.key);
    const cases: [string | undefined, string, number, string][] = [
      [undefined, identityId, 401, "missing_api_key"],
      [other.key, "0000000000000000", 404, "identity_not_found"],
      [other.key, identityId, 403, "identity_not_owned"],
    ];
    for (const [key, id, status, code] of cases) {
      const res = await postStamp(svc, "x", { identity_id: id }, { key });
      expect(res.status).toBe(status);
      expect((await res.json()).code).toBe(code);
    }
  });

  it("a second key of the same account may sign with the identity", async () => {
    const first = await issueKey(svc);
    const second = await issueKey(svc, { accountId: first.accountId });
    const identityId = await createIdentity(svc, first.key);
    expect((await postStamp(svc, "x", { identity_id: identityId }, { key: second.key })).status).toBe(201);
  });
});

describe("GET /stamps/{stamp_id}", () => {
  it("returns the stored stamp, same document byte for byte", async () => {
    const created = await createStamp(svc, "stored", { preset: "casual" });
    const res = await fetch(`${svc.baseUrl}/stamps/${created.stamp_id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(created);
  });

  it("answers 404 stamp_not_found for an unknown id and 400 for a malformed one", async () => {
    const missing = await fetch(`${svc.baseUrl}/stamps/stp_01JD3X7Q6V9M2K8T4R5N0B1C2D`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).code).toBe("stamp_not_found");
    expect((await fetch(`${svc.baseUrl}/stamps/nope`)).status).toBe(400);
  });
});

describe("durability", () => {
  it("a stamp answered 201 is there after a restart on the same data folder", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "stampd-durable-"));
    const first = await startService({ RATE_LIMIT_ENABLED: "false", DATA_DIR: dataDir });
    const stamp = await createStamp(first, "durable");
    await first.close();
    const again = await startService({ RATE_LIMIT_ENABLED: "false", DATA_DIR: dataDir });
    try {
      const res = await fetch(`${again.baseUrl}/stamps/${stamp.stamp_id}`);
      expect(res.status).toBe(200);
      expect((await res.json()).stamp_json).toEqual(stamp.stamp_json);
      // The service key survived too: the old stamp still verifies as this deployment's.
      const verify = await fetch(`${again.baseUrl}/stamps/${stamp.stamp_id}/verify`, { method: "POST" });
      expect((await verify.json()).details.service_signature).toBe("valid");
    } finally {
      await again.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
