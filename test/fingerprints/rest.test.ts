import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyFingerprintProof } from "../../core/fingerprint-proof.js";
import type { FingerprintDocument } from "../../server/fingerprints/types.js";
import { filePart, postParts } from "../helpers/multipart.js";
import { type RunningService, startService } from "../helpers/service.js";
import { wordText } from "./corpus.js";

const MIB = 1024 * 1024;
const text = wordText(42, 30 * 1024);
let svc: RunningService;

beforeAll(async () => {
  // A small fingerprint body limit, so 413 is cheap to provoke; responses are validated (test mode).
  svc = await startService({
    RATE_LIMIT_ENABLED: "false",
    MAX_UPLOAD_BYTES: String(MIB),
    MAX_FINGERPRINT_JSON_BYTES: String(3 * MIB),
  });
});
afterAll(() => svc.close());

const post = (path: string, body: unknown) =>
  fetch(`${svc.baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

async function createFingerprint(bytes: Uint8Array, method?: string): Promise<FingerprintDocument> {
  const res = await postParts(`${svc.baseUrl}/fingerprint`, [
    ...(method ? [{ name: "method", value: method }] : []),
    filePart(bytes),
  ]);
  expect(res.status).toBe(200);
  return (await res.json()).fingerprint_json;
}

describe("POST /fingerprint", () => {
  it("answers the fingerprint with its summary fields; hierarchical by default", async () => {
    const res = await postParts(`${svc.baseUrl}/fingerprint`, [filePart(text)]);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({
      merkle_root: body.fingerprint_json.merkle_root,
      chunk_count: body.fingerprint_json.chunk_count,
      tree_depth: body.fingerprint_json.tree_depth,
      shadow_scales: [2, 3, 5, 7, 11, 13],
      decomposition_method: "hierarchical",
      proofs_available: ["existence", "structure", "similarity"],
    });
    expect(body.tree_depth).toBeGreaterThan(1);
    expect(body.standard_hash).toMatch(/^sha3-256:[0-9a-f]{64}$/);
  });

  it.each(["flat", "content_addressed", "semantic", "hierarchical"])(
    "takes method %s as a field or a query parameter",
    async (method) => {
      expect((await createFingerprint(text, method)).decomposition_method).toBe(method);
      const res = await postParts(`${svc.baseUrl}/fingerprint?method=${method}`, [filePart(text)]);
      expect((await res.json()).decomposition_method).toBe(method);
    },
  );

  it("fingerprints an empty file, without existence proofs", async () => {
    const res = await postParts(`${svc.baseUrl}/fingerprint`, [filePart(new Uint8Array())]);
    const body = await res.json();
    expect(body).toMatchObject({
      chunk_count: 0,
      tree_depth: 0,
      proofs_available: ["structure", "similarity"],
    });
  });

  it("answers 400 for an unknown method or a missing file, 413 past MAX_UPLOAD_BYTES", async () => {
    const unknown = await postParts(`${svc.baseUrl}/fingerprint`, [
      { name: "method", value: "zigzag" },
      filePart(text),
    ]);
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).code).toBe("validation_failed");
    const unknownQuery = await postParts(`${svc.baseUrl}/fingerprint?method=zigzag`, [filePart(text)]);
    expect(unknownQuery.status).toBe(400);
    const missing = await postParts(`${svc.baseUrl}/fingerprint`, [{ name: "method", value: "flat" }]);
    expect(missing.status).toBe(400);
    const tooLarge = await postParts(`${svc.baseUrl}/fingerprint`, [filePart(new Uint8Array(MIB + 1))]);
    expect(tooLarge.status).toBe(413);
  });
});

describe("POST /fingerprint/compare", () => {
  it("compares two fingerprints", async () => {
    const a = await createFingerprint(text);
    const same = await (await post("/fingerprint/compare", { fingerprint1: a, fingerprint2: a })).json();
    expect(same).toEqual({
      similarities: { "2": 1, "3": 1, "5": 1, "7": 1, "11": 1, "13": 1 },
      overall_similarity: 1,
      assessment: "Very similar - likely same or nearly identical documents",
    });
    const b = await createFingerprint(wordText(43, 30 * 1024), "flat");
    const res = await post("/fingerprint/compare", { fingerprint1: a, fingerprint2: b });
    expect(res.status).toBe(200);
    expect((await res.json()).assessment).toBe("Different - distinct structure");
  });

  it("needs only the shadows: fingerprints may be sent without their chunks", async () => {
    const a = await createFingerprint(text);
    const light = { ...a, chunks: [], sections: [] };
    const res = await post("/fingerprint/compare", { fingerprint1: light, fingerprint2: a });
    expect((await res.json()).overall_similarity).toBe(1);
  });

  it("answers 400 for a missing or malformed fingerprint, or shadows that do not add up", async () => {
    const a = await createFingerprint(text);
    expect((await post("/fingerprint/compare", { fingerprint1: a })).status).toBe(400);
    expect(
      (await post("/fingerprint/compare", { fingerprint1: a, fingerprint2: { format: "x" } })).status,
    ).toBe(400);
    const tampered = structuredClone(a);
    tampered.shadows[0]!.values[0]! += 1;
    const res = await post("/fingerprint/compare", { fingerprint1: a, fingerprint2: tampered });
    expect(res.status).toBe(400);
    expect((await res.json()).errors[0].path).toBe("/body/fingerprint2/shadows");
  });

  it("compares short texts by their fine shadows, whatever method made each side", async () => {
    const contract = new TextEncoder().encode(
      "This Agreement is made between Alpha Ltd and Beta LLC. 1. Beta shall deliver the goods by " +
        "1 March 2024. 2. Alpha shall pay EUR 10,000 within 30 days of delivery. 3. This Agreement " +
        "is governed by the laws of Ireland.",
    );
    const edited = new TextEncoder().encode(new TextDecoder().decode(contract).replace("30 days", "45 days"));
    const a = await createFingerprint(contract, "semantic");
    const b = await createFingerprint(edited, "flat");
    expect(a.fine_shadows?.length).toBeGreaterThan(0);
    const res = await post("/fingerprint/compare", { fingerprint1: a, fingerprint2: b });
    expect(res.status).toBe(200);
    const { overall_similarity, assessment } = await res.json();
    expect(overall_similarity).toBeGreaterThanOrEqual(0.7);
    expect(assessment).toMatch(/^(Very similar|Similar) - /);
    const tampered = structuredClone(b);
    tampered.fine_shadows![0]!.shadows[0]!.values[0]! += 1;
    const bad = await post("/fingerprint/compare", { fingerprint1: a, fingerprint2: tampered });
    expect(bad.status).toBe(400);
    expect((await bad.json()).errors[0].path).toBe("/body/fingerprint2/fine_shadows");
  });

  it("accepts bodies past MAX_JSON_BYTES up to MAX_FINGERPRINT_JSON_BYTES, then 413", async () => {
    const a = await createFingerprint(text, "flat");
    // A fingerprint of a large document: many chunks (compare does not read them).
    const chunk = a.chunks[0]!;
    const big = { ...a, chunks: Array.from({ length: 12_000 }, () => chunk) };
    const body = JSON.stringify({ fingerprint1: big, fingerprint2: a });
    expect(body.length).toBeGreaterThan(MIB);
    expect((await post("/fingerprint/compare", body)).status).toBe(200);
    const huge = JSON.stringify({
      fingerprint1: { ...a, chunks: Array.from({ length: 40_000 }, () => chunk) },
      fingerprint2: a,
    });
    expect(huge.length).toBeGreaterThan(3 * MIB);
    const res = await post("/fingerprint/compare", huge);
    expect(res.status).toBe(413);
    expect((await res.json()).code).toBe("payload_too_large");
    // Other JSON routes keep MAX_JSON_BYTES.
    expect(
      (await post("/verify", JSON.stringify({ stamp_json: { pad: "x".repeat(MIB + 10) } }))).status,
    ).toBe(413);
  });
});

describe("POST /fingerprint/proof", () => {
  it("builds each proof type, and each verifies offline", async () => {
    const doc = await createFingerprint(text);
    const reference = await createFingerprint(wordText(44, 30 * 1024));
    const requests = [
      { proof_type: "existence", section_index: 2 },
      { proof_type: "structure" },
      { proof_type: "structure", scale: 13 },
      { proof_type: "similarity", reference_fingerprint: reference },
    ];
    for (const request of requests) {
      const res = await post("/fingerprint/proof", { fingerprint_json: doc, ...request });
      expect(res.status).toBe(200);
      const proof = await res.json();
      expect(proof).toMatchObject({
        proof_type: request.proof_type,
        merkle_root: doc.merkle_root,
        standard_hash: doc.standard_hash,
      });
      expect(verifyFingerprintProof(proof, doc, reference)).toEqual({ valid: true, failures: [] });
    }
  });

  it.each([
    ["existence without section_index", { proof_type: "existence" }],
    ["a section_index past the last chunk", { proof_type: "existence", section_index: 10_000 }],
    ["similarity without reference_fingerprint", { proof_type: "similarity" }],
    ["an unknown proof_type", { proof_type: "membership" }],
    ["a scale that is not a prime scale", { proof_type: "structure", scale: 4 }],
  ])("answers 400 for %s", async (_, request) => {
    const doc = await createFingerprint(text);
    const res = await post("/fingerprint/proof", { fingerprint_json: doc, ...request });
    expect(res.status).toBe(400);
  });

  it("answers 400 for an existence proof from a fingerprint whose chunks do not give its root", async () => {
    const doc = await createFingerprint(text);
    doc.chunks[1]!.hash = doc.chunks[0]!.hash;
    const res = await post("/fingerprint/proof", {
      fingerprint_json: doc,
      proof_type: "existence",
      section_index: 0,
    });
    expect(res.status).toBe(400);
    expect((await res.json()).errors[0]).toMatchObject({ path: "/body/fingerprint_json/chunks" });
  });
});

describe("GET /fingerprint/{stamp_id}/shadow/{scale}", () => {
  async function stampWithFingerprint(bytes = text): Promise<{ id: string; doc: FingerprintDocument }> {
    // Stamping with generate_fp through the stamp service with the engine plugged in.
    const stamps = svc.service.stamps.service;
    const upload = await stamps.readUpload(Readable.from([Buffer.from(bytes)]), { generateFp: true });
    const view = await stamps.createFromUpload(upload, { accountId: null, generateFp: true });
    return { id: view.stamp.id, doc: view.stamp.fingerprint as FingerprintDocument };
  }

  it("answers the shadow stored with a stamp made with generate_fp", async () => {
    const { id, doc } = await stampWithFingerprint();
    expect(doc).toEqual(await createFingerprint(text));
    for (const scale of [2, 3, 5, 7, 11, 13]) {
      const res = await fetch(`${svc.baseUrl}/fingerprint/${id}/shadow/${scale}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual(doc.shadows.find((s) => s.scale === scale));
    }
  });

  it("publishes a short document's shadows, never its fine shadows (they nearly spell it out)", async () => {
    const { id, doc } = await stampWithFingerprint(wordText(7, 200));
    expect(doc.fine_shadows?.[0]?.piece_bytes).toBe(1);
    const res = await fetch(`${svc.baseUrl}/fingerprint/${id}/shadow/2`);
    expect(await res.json()).toEqual(doc.shadows[0]);
  });

  it("answers 404 stamp_not_found, 404 fingerprint_not_found, and 400 for a scale that is not prime", async () => {
    const unknown = await fetch(`${svc.baseUrl}/fingerprint/stp_00000000000000000000000000/shadow/7`);
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).code).toBe("stamp_not_found");

    const plain = await postParts(`${svc.baseUrl}/stamps`, [filePart(text)]);
    const { stamp_id } = await plain.json();
    const none = await fetch(`${svc.baseUrl}/fingerprint/${stamp_id}/shadow/7`);
    expect(none.status).toBe(404);
    expect((await none.json()).code).toBe("fingerprint_not_found");

    const { id } = await stampWithFingerprint();
    for (const scale of ["4", "1", "17", "seven"]) {
      expect((await fetch(`${svc.baseUrl}/fingerprint/${id}/shadow/${scale}`)).status).toBe(400);
    }
    expect((await fetch(`${svc.baseUrl}/fingerprint/not-a-stamp/shadow/7`)).status).toBe(400);
  });
});
