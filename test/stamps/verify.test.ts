import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueKey } from "../helpers/keys.js";
import { filePart, postParts } from "../helpers/multipart.js";
import { type RunningService, startService } from "../helpers/service.js";
import {
  createIdentity,
  createStamp,
  type StampDocument,
  type StampResponse,
  sha3,
  type VerifyResponse,
} from "./helpers.js";
import { forged, mutations, tampered } from "./tampering.js";

let svc: RunningService;
let signed: StampResponse;
let annotated: StampDocument;
beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false" });
  const { key, accountId } = await issueKey(svc);
  const identityId = await createIdentity(svc, key);
  signed = await createStamp(svc, "the original", { preset: "standard", identity_id: identityId }, { key });
  // Annotations come from gRPC and WebSocket, which stamp a hash through the same domain service.
  const view = await svc.service.stamps.service.createFromHash({
    contentHash: { algorithm: "sha3-256", hex: sha3("annotated") },
    accountId,
    identityId,
    anchors: ["log"],
    description: "board minutes",
    metadata: { owner: "alice", filename: "minutes.pdf" },
  });
  annotated = view.stamp.document;
});
afterAll(() => svc.close());

const verifyJson = async (stampJson: unknown): Promise<VerifyResponse> => {
  const res = await fetch(`${svc.baseUrl}/verify`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ stamp_json: stampJson }),
  });
  expect(res.status).toBe(200);
  return res.json();
};
const verifyStored = async (id: string, file?: string): Promise<Response> =>
  file === undefined
    ? fetch(`${svc.baseUrl}/stamps/${id}/verify`, { method: "POST" })
    : postParts(`${svc.baseUrl}/stamps/${id}/verify`, [filePart(file)]);

describe("POST /stamps/{stamp_id}/verify", () => {
  // Not sealed yet: the signatures are the only evidence (service 1 + author 2). The TSA anchor
  // this deployment cannot provide is `unavailable`, not pending, and counts nothing.
  it("without a file: valid, content not checked, log pending, TSA unavailable", async () => {
    const result: VerifyResponse = await (await verifyStored(signed.stamp_id)).json();
    expect(result).toEqual({
      is_valid: true,
      signature_valid: true,
      content_hash_valid: null,
      trust_score: 3,
      trust_threshold: 5,
      trust_met: false,
      confirmed_anchors: 0,
      pending_anchors: 1,
      details: {
        format: "valid",
        service_signature: "valid",
        author_signature: "valid",
        content_hash: "not_checked",
        sealed: false,
        logged: false,
        anchors: [
          { type: "log", status: "pending" },
          { type: "rfc3161", status: "unavailable", reason: "no time-stamp authority configured (TSA_URL)" },
        ],
        failures: [],
      },
    });
  });

  it("with the original file: content hash match", async () => {
    const result: VerifyResponse = await (await verifyStored(signed.stamp_id, "the original")).json();
    expect(result).toMatchObject({
      is_valid: true,
      content_hash_valid: true,
      details: { content_hash: "match" },
    });
  });

  it.each([
    ["another file", "the forgery"],
    ["an empty file", ""],
  ])("with %s: invalid, mismatch named in failures", async (_name, content) => {
    const result: VerifyResponse = await (await verifyStored(signed.stamp_id, content)).json();
    expect(result).toMatchObject({
      is_valid: false,
      signature_valid: true,
      content_hash_valid: false,
      details: { content_hash: "mismatch" },
    });
    expect(result.details.failures).toEqual([
      `content hash mismatch: the file hashes to ${sha3(content)}, the stamp records ${sha3("the original")}`,
    ]);
  });

  it("answers 404 for an unknown stamp, also when a file is sent", async () => {
    for (const res of [
      await verifyStored("stp_01JD3X7Q6V9M2K8T4R5N0B1C2D"),
      await verifyStored("stp_01JD3X7Q6V9M2K8T4R5N0B1C2D", "x"),
    ]) {
      expect(res.status).toBe(404);
      expect((await res.json()).code).toBe("stamp_not_found");
    }
  });
});

describe("POST /verify (JSON)", () => {
  it("the untouched documents are valid, with this deployment's anchor records", async () => {
    for (const doc of [signed.stamp_json, annotated]) {
      const result = await verifyJson(doc);
      expect(result).toMatchObject({
        is_valid: true,
        signature_valid: true,
        details: { format: "valid", failures: [] },
      });
      expect(result.details.anchors.every((a) => a.status === "pending" || a.status === "unavailable")).toBe(
        true,
      );
    }
  });

  it.each(mutations)("detects a change to %s", async (name, mutate) => {
    const doc = name.startsWith("description") || name.startsWith("metadata") ? annotated : signed.stamp_json;
    const result = await verifyJson(tampered(doc, mutate));
    expect(result.is_valid).toBe(false);
    expect(result.signature_valid).toBe(false);
    expect(result.details.failures.length).toBeGreaterThan(0);
    if (result.details.format === "valid" && !name.startsWith("signatures.")) {
      // Every member but `signatures` is covered by the service signature.
      expect(result.details.service_signature).toBe("invalid");
      // Not the issued document, so not this deployment's record: its anchors are failed.
      expect(result.details.anchors.every((a) => a.status === "failed")).toBe(true);
    }
  });

  it("a forged stamp (consistent, signed by a foreign key) is an untrusted key, anchors failed", async () => {
    const doc = forged(signed.stamp_json);
    const result = await verifyJson(doc);
    expect(result).toMatchObject({
      is_valid: false,
      signature_valid: false,
      trust_score: 0,
      details: { format: "valid", service_signature: "untrusted_key", author_signature: "absent" },
    });
    expect(result.details.failures).toEqual([
      `service signature: key ${doc.service_public_key} is not a service key of this deployment`,
      "anchor log: stamp not recorded by this deployment",
      "anchor rfc3161: stamp not recorded by this deployment",
    ]);
  });

  it("a stamp of another deployment: untrusted key, author still valid (+2), anchors failed", async () => {
    const other = await startService({ RATE_LIMIT_ENABLED: "false" });
    try {
      const { key } = await issueKey(other);
      const identityId = await createIdentity(other, key);
      const foreign = await createStamp(
        other,
        "elsewhere",
        { preset: "standard", identity_id: identityId },
        { key },
      );
      const result = await verifyJson(foreign.stamp_json);
      expect(result).toMatchObject({
        is_valid: false,
        signature_valid: false,
        trust_score: 2,
        trust_met: false,
        confirmed_anchors: 0,
        pending_anchors: 0,
        details: { service_signature: "untrusted_key", author_signature: "valid" },
      });
      expect(result.details.anchors).toEqual([
        { type: "log", status: "failed", reason: "stamp not recorded by this deployment" },
        { type: "rfc3161", status: "failed", reason: "stamp not recorded by this deployment" },
      ]);
    } finally {
      await other.close();
    }
  });

  it.each([
    ["an empty object", {}],
    ["an object of another kind", { hello: "world" }],
  ])("%s is answered 200 with format invalid and signatures invalid", async (_name, doc) => {
    const result = await verifyJson(doc);
    expect(result).toMatchObject({
      is_valid: false,
      signature_valid: false,
      // Nothing was compared, and nothing verified is never met (0 of a threshold of 0 included).
      content_hash_valid: null,
      trust_score: 0,
      trust_met: false,
      details: {
        format: "invalid",
        service_signature: "invalid",
        author_signature: "invalid",
        content_hash: "not_checked",
        anchors: [],
      },
    });
    expect(result.details.failures).toHaveLength(1);
    expect(result.details.failures[0]).toMatch(/^format: not a stampd.stamp\/v1 document: /);
  });

  it("a stamp_json that is not an object is a 400", async () => {
    const res = await fetch(`${svc.baseUrl}/verify`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ stamp_json: "text" }),
    });
    expect(res.status).toBe(400);
  });
});

describe("POST /verify (multipart)", () => {
  const verifyForm = (stampJson: string, file?: string) =>
    postParts(`${svc.baseUrl}/verify`, [
      { name: "stamp_json", value: stampJson, contentType: "application/json" },
      ...(file === undefined ? [] : [filePart(file)]),
    ]);

  it("stamp_json text and the original file: valid, content match", async () => {
    const res = await verifyForm(JSON.stringify(signed.stamp_json), "the original");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      is_valid: true,
      content_hash_valid: true,
      details: { content_hash: "match" },
    });
  });

  it("with another file: invalid, content mismatch", async () => {
    const result = await (await verifyForm(JSON.stringify(signed.stamp_json), "not it")).json();
    expect(result).toMatchObject({
      is_valid: false,
      signature_valid: true,
      details: { content_hash: "mismatch" },
    });
  });

  it.each([
    ["before", "the original"],
    ["after", "the original"],
    ["without", undefined],
  ])(
    "stamp_json as a file part (curl -F stamp_json=@s.json, Swagger UI's picker), %s the file",
    async (where, file) => {
      const stampFile = {
        name: "stamp_json",
        value: JSON.stringify(signed.stamp_json),
        filename: "contract.pdf.stamp.json",
        contentType: "application/json",
      };
      const document = file === undefined ? [] : [filePart(file)];
      const parts = where === "after" ? [...document, stampFile] : [stampFile, ...document];
      const res = await postParts(`${svc.baseUrl}/verify`, parts);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        is_valid: true,
        content_hash_valid: file === undefined ? null : true,
        details: { content_hash: file === undefined ? "not_checked" : "match" },
      });
    },
  );

  it("two file parts named file are a 400 (busboy's files limit now leaves room for stamp_json)", async () => {
    const twice = await postParts(`${svc.baseUrl}/verify`, [
      { name: "stamp_json", value: JSON.stringify(signed.stamp_json) },
      filePart("the original"),
      filePart("another"),
    ]);
    expect(twice.status).toBe(400);
    expect(((await twice.json()) as { detail: string }).detail).toContain('"file" is sent twice');
  });

  it("a stamp_json file part that is not UTF-8 is a 400", async () => {
    const res = await postParts(`${svc.baseUrl}/verify`, [
      { name: "stamp_json", value: new Uint8Array([0x7b, 0xff, 0x7d]), filename: "s.json" },
    ]);
    expect(res.status).toBe(400);
  });

  it("without a file: content not checked", async () => {
    const result = await (await verifyForm(JSON.stringify(signed.stamp_json))).json();
    expect(result).toMatchObject({ is_valid: true, details: { content_hash: "not_checked" } });
  });

  it("a document re-serialized with other key order and spacing still verifies (JCS)", async () => {
    const reordered = JSON.stringify(
      Object.fromEntries(Object.entries(signed.stamp_json).reverse()),
      null,
      4,
    );
    expect((await (await verifyForm(reordered, "the original")).json()).is_valid).toBe(true);
  });

  it.each([
    ["text that is not JSON", "{not json"],
    ["JSON that is not an object", "[1, 2]"],
  ])("%s is a 400 invalid_json", async (_name, text) => {
    const res = await verifyForm(text);
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe("invalid_json");
  });

  it("a missing stamp_json is a 400 validation failure", async () => {
    const res = await postParts(`${svc.baseUrl}/verify`, [filePart("x")]);
    expect(res.status).toBe(400);
    expect((await res.json()).errors).toEqual([
      { path: "/body/stamp_json", message: "must have required property 'stamp_json'" },
    ]);
  });
});
