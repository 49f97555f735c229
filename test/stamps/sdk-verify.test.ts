import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyStamp } from "../../core/stamp.js";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import {
  createIdentity,
  createStamp,
  type StampDocument,
  type StampResponse,
  sha3,
  verifyOnServer,
} from "./helpers.js";
import { forged, mutations, tampered } from "./tampering.js";

// The SDK's offline verifyStamp against stamps of a real service, and against the server's verdicts.
let svc: RunningService;
let signed: StampResponse;
let annotated: StampDocument;
let serviceKey: string;
const original = new TextEncoder().encode("the original");

beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false" });
  serviceKey = svc.service.ctx.keys.signing.publicKey;
  const { key, accountId } = await issueKey(svc);
  const identityId = await createIdentity(svc, key);
  signed = await createStamp(svc, "the original", { preset: "standard", identity_id: identityId }, { key });
  const view = await svc.service.stamps.service.createFromHash({
    contentHash: { algorithm: "sha3-256", hex: sha3("annotated") },
    accountId,
    identityId,
    description: "board minutes",
    metadata: { owner: "alice" },
  });
  annotated = view.stamp.document;
});
afterAll(() => svc.close());

const serverVerify = (stampJson: unknown) => verifyOnServer(svc, stampJson);

describe("verifyStamp, offline", () => {
  it("gives the server's exact result for a stored stamp and its file", async () => {
    const form = new FormData();
    form.append("file", new Blob([original]), "doc.txt");
    const server = await (
      await fetch(`${svc.baseUrl}/stamps/${signed.stamp_id}/verify`, { method: "POST", body: form })
    ).json();
    // Anchor states are the deployment's (e.g. why one cannot confirm): offline they come from it.
    const offline = await verifyStamp(signed.stamp_json, {
      document: original,
      trustedServiceKeys: [serviceKey],
      anchors: server.details.anchors,
    });
    expect(offline).toEqual(server);
    expect(offline.is_valid).toBe(true);
  });

  it("reads the document from a Blob, and the stamp from JSON text", async () => {
    const result = await verifyStamp(JSON.stringify(signed.stamp_json), { document: new Blob([original]) });
    expect(result).toMatchObject({ is_valid: true, content_hash_valid: true });
  });

  it("names a wrong document in failures", async () => {
    const result = await verifyStamp(signed.stamp_json, { document: new TextEncoder().encode("other") });
    expect(result).toMatchObject({
      is_valid: false,
      signature_valid: true,
      details: { content_hash: "mismatch" },
    });
    expect(result.details.failures[0]).toContain(`the file hashes to ${sha3("other")}`);
  });

  it.each(mutations)(
    "detects a change to %s, with the server's verdict on each check",
    async (name, mutate) => {
      const doc = tampered(
        name.startsWith("description") || name.startsWith("metadata") ? annotated : signed.stamp_json,
        mutate,
      );
      const offline = await verifyStamp(doc, { trustedServiceKeys: [serviceKey] });
      expect(offline.is_valid).toBe(false);
      const { format, service_signature, author_signature, content_hash } = (await serverVerify(doc)).details;
      expect(offline.details).toMatchObject({ format, service_signature, author_signature, content_hash });
    },
  );

  it("a forged stamp: untrusted_key when the service key is pinned, only self-consistent when not", async () => {
    const doc = forged(signed.stamp_json);
    const pinned = await verifyStamp(doc, { trustedServiceKeys: [serviceKey] });
    expect(pinned).toMatchObject({ is_valid: false, details: { service_signature: "untrusted_key" } });
    const unpinned = await verifyStamp(doc);
    expect(unpinned).toMatchObject({ is_valid: true, details: { service_signature: "valid" } });
  });

  it("a signature of random bytes is invalid", async () => {
    const doc = structuredClone(signed.stamp_json);
    doc.signatures.service = "ab".repeat(64);
    expect((await verifyStamp(doc)).details.service_signature).toBe("invalid");
  });

  it("text that is not JSON is an invalid format, not an exception", async () => {
    const result = await verifyStamp("{oops");
    expect(result).toMatchObject({ is_valid: false, details: { format: "invalid" } });
  });

  it("a document nesting 100 000 levels is an invalid format that says so, not a stack overflow", async () => {
    const text = JSON.stringify(signed.stamp_json).replace(
      /}$/,
      `,"x":${"[".repeat(1e5)}${"]".repeat(1e5)}}`,
    );
    const result = await verifyStamp(text);
    expect(result).toMatchObject({ is_valid: false, details: { format: "invalid" } });
    expect(result.details.failures.join()).toContain("deeper than 64 levels");
  });

  it("uses anchor states when given (e.g. from GET /stamps/{id}): a confirmed log anchor is the log inclusion (+3), a pending one nothing", async () => {
    const result = await verifyStamp(signed.stamp_json, {
      anchors: [
        { type: "log", status: "confirmed", reference: "17", confirmed_at: "2026-01-01T00:00:00.000Z" },
        { type: "rfc3161", status: "pending" },
      ],
    });
    expect(result).toMatchObject({ trust_score: 1 + 2 + 3, confirmed_anchors: 1, pending_anchors: 1 });
    expect(result.details).toMatchObject({ sealed: false, logged: true });
  });
});

describe("portability", () => {
  it("core/ imports nothing from Node (the SDK's verification must run in a browser)", () => {
    const dir = new URL("../../core/", import.meta.url);
    for (const file of readdirSync(dir)) {
      const source = readFileSync(new URL(file, dir), "utf8");
      const imports = [...source.matchAll(/from "([^"]+)"/g)].map((m) => m[1]!);
      const allowed = (spec: string) =>
        spec.startsWith("./") || spec.startsWith("../gen/") || /^(@noble\/|canonicalize$)/.test(spec);
      expect(
        imports.filter((spec) => !allowed(spec)),
        file,
      ).toEqual([]);
    }
  });
});
