import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyStamp } from "../../core/stamp.js";
import { listOperations, loadSpec } from "../../server/contract/openapi.js";
import { issueKey } from "../helpers/keys.js";
import { postParts } from "../helpers/multipart.js";
import { type RunningService, startService } from "../helpers/service.js";
import { createIdentity, type StampDocument, sha3 } from "../stamps/helpers.js";
import { TestClient } from "../ws/ws-client.js";

// RFC 7493 (I-JSON) section 2.3: a stamp document with a backdated `created_at` before the real
// one verified on POST /verify (JSON.parse keeps the last value) while a reader keeping the first
// showed the backdated time. Every place a document is read now refuses a repeated member name.
let svc: RunningService;
let key: string;
let stamp: StampDocument;
beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false", LOG_LEVEL: "error" });
  const issued = await issueKey(svc);
  key = issued.key;
  const identityId = await createIdentity(svc, key);
  const view = await svc.service.stamps.service.createFromHash({
    contentHash: { algorithm: "sha3-256", hex: sha3("the contract") },
    accountId: issued.accountId,
    identityId,
    anchors: ["log"],
  });
  stamp = view.stamp.document;
});
afterAll(() => svc.close());

/** The signed document as text, with a backdated `created_at` before the real one. */
const backdated = () => `{"created_at":"2019-01-01T00:00:00.000Z",${JSON.stringify(stamp).slice(1)}`;

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${svc.baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}`, ...headers },
    body,
  });

describe("a stamp document naming created_at twice", () => {
  it("the untouched document verifies (the refusal below is about the repeated name)", async () => {
    const res = await post("/verify", JSON.stringify({ stamp_json: stamp }));
    expect(res.status).toBe(200);
    expect((await res.json()).is_valid).toBe(true);
  });

  it("is refused as a JSON body of POST /verify: 400 duplicate_member_name naming where", async () => {
    const res = await post("/verify", `{"stamp_json":${backdated()}}`);
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.code).toBe("duplicate_member_name");
    expect(body.detail).toContain('"created_at"');
    expect(body.detail).toContain('"/body/stamp_json"');
  });

  it("is refused as the stamp_json form field of POST /verify", async () => {
    const res = await postParts(`${svc.baseUrl}/verify`, [{ name: "stamp_json", value: backdated() }]);
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe("duplicate_member_name");
  });

  it("is reported invalid by the SDK's offline verifier given the text", async () => {
    const text = backdated();
    expect((await verifyStamp(JSON.stringify(stamp))).is_valid).toBe(true);
    const result = await verifyStamp(text);
    expect(result.is_valid).toBe(false);
    expect(result.details.format).toBe("invalid");
    expect(result.details.failures.join()).toContain("duplicate member name");
  });

  it("is refused in a WebSocket message", async () => {
    const client = await TestClient.connect(svc.baseUrl);
    try {
      client.send(`{"type":"ping","id":"p1","type":"ping"}`);
      // Another name repeated: the id is unambiguous and echoed.
      expect(await client.next()).toMatchObject({
        type: "error",
        id: "p1",
        data: { code: "duplicate_member_name" },
      });
      // The id repeated: which one the client meant is unknown, so none is echoed.
      client.send(`{"type":"ping","id":"p1","id":"p2"}`);
      const reply = await client.next();
      expect(reply).toMatchObject({ type: "error", data: { code: "duplicate_member_name" } });
      expect(reply).not.toHaveProperty("id");
      // The connection stays usable.
      expect(await client.request({ type: "ping" })).toMatchObject({ type: "pong" });
    } finally {
      client.close();
    }
  });
});

describe("every JSON body", () => {
  type SpecOperation = { requestBody?: { content?: Record<string, unknown> } };
  const spec = loadSpec() as unknown as { paths: Record<string, Record<string, SpecOperation>> };
  const jsonOperations = listOperations().filter(
    (op) => spec.paths[op.path]![op.method]!.requestBody?.content?.["application/json"],
  );
  const placeholder = (path: string) => path.replace(/\{[^}]+\}/g, "stp_01JD3X7Q6V9M2K8T4R5N0B1C2D");

  it.each(jsonOperations.map((op) => [`${op.method.toUpperCase()} ${op.path}`, op] as const))(
    "%s refuses a repeated name, also nested and written with escapes",
    async (_, op) => {
      for (const body of ['{"a":1,"a":2}', '{"x":[{"n":1},{"n":1,"\\u006e":2}]}']) {
        const res = await fetch(`${svc.baseUrl}${placeholder(op.path)}`, {
          method: op.method.toUpperCase(),
          headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
          body,
        });
        expect(res.status).toBe(400);
        expect((await res.json()).code).toBe("duplicate_member_name");
      }
    },
  );

  it("that is not UTF-8 is refused with invalid_json (I-JSON is UTF-8)", async () => {
    const res = await post("/verify", JSON.stringify({ stamp_json: stamp }), {
      "content-type": "application/json; charset=utf-16le",
    });
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe("invalid_json");
  });

  it("that is malformed and repeats a name is still reported malformed", async () => {
    const res = await post("/verify", '{"a","a"}');
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe("invalid_json");
  });
});
