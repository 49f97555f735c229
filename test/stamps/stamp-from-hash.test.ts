import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { createIdentity } from "./helpers.js";

// POST /stamps with a JSON body: a stamp of a hash the caller computed, the document never sent
// (the landing page's "Stamp it"). The choices come from the query, as for a form.

let svc: RunningService;
beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false" });
});
afterAll(() => svc.close());

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

async function stampHash(body: unknown, query = "", headers: Record<string, string> = {}) {
  const res = await fetch(`${svc.baseUrl}/stamps${query}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { res, body: (await res.json()) as Record<string, unknown> };
}

describe("POST /stamps with a JSON hash", () => {
  it("stamps the hash with its algorithm, finds it by hash, and verifies it", async () => {
    const digest = sha256("hashed in a browser");
    const { res, body } = await stampHash({ hash: `sha256:${digest.toUpperCase()}` });
    expect(res.status).toBe(201);
    expect(res.headers.get("location")).toBe(`/stamps/${body.stamp_id}`);
    expect(body).toMatchObject({ hash_algorithm: "sha256", document_hash: digest, has_fingerprint: false });
    expect(body.verify_url).toMatch(new RegExp(`/verify/${body.stamp_id}$`));

    const search = await fetch(`${svc.baseUrl}/stamps?hash=sha256:${digest}`).then((r) => r.json());
    expect(search.items.map((i: { stamp_id: string }) => i.stamp_id)).toEqual([body.stamp_id]);
    const verified = await fetch(`${svc.baseUrl}/stamps/${body.stamp_id}/verify`, { method: "POST" });
    expect((await verified.json()).is_valid).toBe(true);
  });

  it("takes anchors, trust_threshold, version and identity_id from the query", async () => {
    const { key } = await issueKey(svc);
    const identity = await createIdentity(svc, key);
    const query = `?anchors=log&trust_threshold=3&version=2.0.0&identity_id=${identity}`;
    const { res, body } = await stampHash({ hash: `blake3:${"ab".repeat(32)}` }, query, {
      Authorization: `Bearer ${key}`,
    });
    expect(res.status).toBe(201);
    expect(body).toMatchObject({ anchors_requested: ["log"], trust_threshold: 3, is_signed: true });
    expect((body.stamp_json as { document: { version: string } }).document.version).toBe("2.0.0");
  });

  it.each([
    ["a hash without its algorithm", { hash: "ab".repeat(32) }, ""],
    ["a short digest", { hash: "sha256:abc" }, ""],
    ["a member besides the hash", { hash: `sha256:${"ab".repeat(32)}`, file: "x" }, ""],
    ["no hash", {}, ""],
    ["a preset", { hash: `sha256:${"ab".repeat(32)}` }, "?preset=standard"],
    ["generate_fp", { hash: `sha256:${"ab".repeat(32)}` }, "?generate_fp=false"],
  ])("refuses %s with 400", async (_name, request, query) => {
    const { res, body } = await stampHash(request, query);
    expect(res.status).toBe(400);
    expect(body.code).toBe("validation_failed");
  });

  it("refuses an identity without a key with 401", async () => {
    const { key } = await issueKey(svc);
    const identity = await createIdentity(svc, key);
    const { res } = await stampHash({ hash: `sha256:${"cd".repeat(32)}` }, `?identity_id=${identity}`);
    expect(res.status).toBe(401);
  });
});
