import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SpecModel } from "../../cli/conformance/spec-model.js";
import { fingerprint, wordText } from "../fingerprints/corpus.js";
import { issueKey } from "../helpers/keys.js";
import { filePart, multipart } from "../helpers/multipart.js";
import { type RunningService, startService } from "../helpers/service.js";
import { TestClient } from "../ws/ws-client.js";
import { Classifier } from "./rest/classify.js";
import type { RequestParts } from "./rest/request.js";
import { semanticProblems } from "./rest/semantics.js";

// Each case is a failure `npm run fuzz` found, pinned down so it stays fixed.
let svc: RunningService;
const model = new SpecModel();

beforeAll(async () => {
  // Unlimited: these requests come from one anonymous address, and limits are not their subject.
  svc = await startService({ VALIDATE_RESPONSES: "false", RATE_LIMIT_ENABLED: "false" });
});
afterAll(() => svc?.close());

describe("REST", () => {
  it("refuses an offset beyond 2^53 - 1 with 400 (SQLite failed on it with a 500)", async () => {
    const { key } = await issueKey(svc, { tier: "internal" });
    for (const path of ["/explorer/api/vaults", "/vault/list"]) {
      for (const offset of ["99999999999999999999", "1e309", "Infinity"]) {
        const res = await fetch(`${svc.baseUrl}${path}?offset=${offset}`, { headers: { "x-api-key": key } });
        expect(res.status, `${path} ${offset}`).toBe(400);
        expect(await res.json()).toMatchObject({ code: "validation_failed" });
      }
    }
  });

  it("refuses a multipart body without a boundary with 400 invalid_multipart (busboy threw: 500)", async () => {
    for (const path of ["/fingerprint", "/stamps", "/hash"]) {
      const res = await fetch(`${svc.baseUrl}${path}`, {
        method: "POST",
        headers: { "content-type": "multipart/form-data" },
        body: "x",
      });
      expect(res.status, path).toBe(400);
      expect(await res.json()).toMatchObject({ code: "invalid_multipart" });
    }
  });

  it('refuses a form field named "__proto__" like any unknown field (it used to vanish)', async () => {
    const { body, contentType } = multipart([{ name: "__proto__", value: "1" }, filePart("document")]);
    const res = await fetch(`${svc.baseUrl}/hash`, {
      method: "POST",
      headers: { "content-type": contentType },
      body: new Uint8Array(body),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "validation_failed" });
  });

  it("answers a body of a type the operation does not take with 400, not an undocumented 415", async () => {
    for (const contentType of ["text/plain", "application/xml", undefined]) {
      const res = await fetch(`${svc.baseUrl}/verify`, {
        method: "POST",
        headers: contentType ? { "content-type": contentType } : {},
        body: JSON.stringify({ stamp_json: {} }),
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: "validation_failed" });
    }
  });

  it("bounds a shadow's length in the schema, and the fuzzer knows a length that disagrees with the values is invalid", async () => {
    // Seed 1951660011 sent length 2^53 + 2, which the schema allowed and the server (rightly) refused.
    const doc = fingerprint(wordText(7, 4096), "hierarchical");
    const op = model.operations.find((o) => o.operationId === "compareFingerprints")!;
    const state = { logSize: 0 };
    for (const length of [2 ** 53 + 2, doc.shadows[0]!.values.length + 1]) {
      const shadows = doc.shadows.map((s, i) => (i === 0 ? { ...s, length } : s));
      const body = { fingerprint1: { ...doc, shadows }, fingerprint2: doc };
      const res = await fetch(`${svc.baseUrl}/fingerprint/compare`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(res.status, String(length)).toBe(400);
      expect(await res.json()).toMatchObject({ code: "validation_failed" });
      const schemaValid = length <= 128;
      expect(op.body.get("application/json")!.check(body), String(length)).toBe(schemaValid);
      if (schemaValid) expect(semanticProblems(op.operationId, { body, query: [], state })).not.toEqual([]);
    }
    expect(
      semanticProblems(op.operationId, { body: { fingerprint1: doc, fingerprint2: doc }, query: [], state }),
    ).toEqual([]);
  });

  it("classifies vault metadata nested past 8 levels as invalid when a mutation writes it raw (it was sent as valid)", async () => {
    // The deep-nesting mutation writes its body as raw bytes; the prose rules read only bodies
    // kept as values, so `metadata` nested 64 or 100 000 levels deep passed as valid.
    const { key } = await issueKey(svc, { tier: "internal" });
    const op = model.operation("createVault");
    const limits = {
      maxJsonBytes: svc.config.MAX_JSON_BYTES,
      maxFingerprintJsonBytes: svc.config.MAX_FINGERPRINT_JSON_BYTES,
    };
    const classifier = new Classifier(model, limits, { logSize: 0 });
    for (const levels of [8, 9, 64, 100_000]) {
      const text = `{"encrypted_key":"AAAA","heartbeat_deadline":3600,"metadata":{"a":${"[".repeat(levels - 1)}${"]".repeat(levels - 1)}}}`;
      const parts: RequestParts = {
        pathParams: {},
        query: [],
        headers: {},
        auth: { kind: "owner", key, header: "x-api-key" },
        body: { kind: "raw", bytes: Buffer.from(text), contentType: "application/json" },
      };
      const verdict = classifier.classify(op, parts, Buffer.from(text));
      expect(verdict.kind, String(levels)).toBe(levels > 8 ? "invalid" : "valid");
      const res = await fetch(`${svc.baseUrl}/vault/create`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": key },
        body: text,
      });
      expect(res.status, String(levels)).toBe(levels > 8 ? 400 : 201);
    }
  });

  it("refuses a stamp document with deeply nested anchors as 400 invalid_json (quoting it overflowed the stack: 500)", async () => {
    // Seed 1755316731: 100 000 nested arrays as `anchors` of an otherwise well-formed document.
    // Answered 200 `format: invalid` until every JSON body was bounded to 64 levels (seed 1311543406).
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const doc = `{"format":"stampd.stamp/v1","stamp_id":"stp_01M7YW8SFNVZH64DK29M9MRG7Q","created_at":"2026-11-21T11:01:09.237Z","document":{"hash":"${"b4".repeat(32)}","algorithm":"sha3-256","size_bytes":52,"version":"1.0.0"},"anchors":${deep}}`;
    const res = await fetch(`${svc.baseUrl}/verify`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: `{"stamp_json":${doc}}`,
    });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body).toMatchObject({ code: "invalid_json" });
    expect(body.detail).toContain("deeper than 64 levels");
    expect(body.detail).toContain('"/body/stamp_json/anchors');
    const { body: formBody, contentType } = multipart([{ name: "stamp_json", value: doc }]);
    const form = await fetch(`${svc.baseUrl}/verify`, {
      method: "POST",
      headers: { "content-type": contentType },
      body: new Uint8Array(formBody),
    });
    expect(form.status).toBe(400);
    expect((await form.json()).code).toBe("invalid_json");
  });

  it("refuses 100 000 levels in bodies whose handlers canonicalize them: 400, not 500 (seed 1311543406)", async () => {
    // createVault with an Idempotency-Key (the body's JCS is its fingerprint) and a stamp document
    // naming `constructor`: both recursed into the nesting and ran out of stack.
    const { key } = await issueKey(svc, { tier: "internal" });
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const vault = await fetch(`${svc.baseUrl}/vault/create`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key, "idempotency-key": "LJ" },
      body: `{"encrypted_key":"AAAA","heartbeat_deadline":3600,"metadata":{"conformance":${deep}}}`,
    });
    expect(vault.status).toBe(400);
    expect((await vault.json()).code).toBe("invalid_json");
    const verify = await fetch(`${svc.baseUrl}/verify`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key },
      body: `{"stamp_json":{"format":"stampd.stamp/v1","constructor":${deep}}}`,
    });
    expect(verify.status).toBe(400);
    expect((await verify.json()).code).toBe("invalid_json");
  });

  it("refuses an integer query parameter written past a double's range: 400, not 500 (seed 1193389010)", async () => {
    // "1e309" is Infinity once coerced, and ajv's maximum skips non-finite numbers: limit=1e309
    // reached the store's query.
    const { key } = await issueKey(svc, { tier: "internal" });
    const hash = `sha3-256:${"ab".repeat(32)}`;
    for (const query of [`hash=${hash}&limit=1e309`, `hash=${hash}&limit=-1e309`, "limit=1e400"]) {
      const path = query.startsWith("hash") ? `/stamps?${query}` : `/explorer/api/vaults?${query}`;
      const res = await fetch(`${svc.baseUrl}${path}`, { headers: { "x-api-key": key } });
      expect(res.status, path).toBe(400);
      expect(await res.json(), path).toMatchObject({ code: "validation_failed" });
    }
    const ok = await fetch(`${svc.baseUrl}/stamps?hash=${hash}&limit=5e2`, { headers: { "x-api-key": key } });
    expect(ok.status).toBe(200);
  });

  it("refuses an unknown query parameter named with a stray bracket (the validator dropped it: 200)", async () => {
    // Seeds 1878522325 and 1090401576: `?[*S_(=ref` and `?;$&[=...` were answered as if absent.
    for (const query of ["%5B%2AS_%28=ref", "%3B%24%26%5B=1", "%5B=1", "x%5B=1", "a%5Bb%5D=1"]) {
      const res = await fetch(`${svc.baseUrl}/health?${query}`);
      expect(res.status, query).toBe(400);
      expect(await res.json()).toMatchObject({ code: "validation_failed" });
    }
  });

  it("documents the 400 every operation answers to an unknown query parameter", async () => {
    for (const op of model.operations) expect(op.responses.has("400"), op.operationId).toBe(true);
    const res = await fetch(`${svc.baseUrl}/health?verbose=1`);
    expect(res.status).toBe(400);
  });
});

describe("WebSocket", () => {
  it("answers a message nested deeper than 64 levels with invalid_message and keeps the connection", async () => {
    const client = await TestClient.connect(svc.baseUrl);
    try {
      const deep = `{"type":"ping","id":"deep","data":{"a":${"[".repeat(5000)}${"]".repeat(5000)}}}`;
      client.send(deep);
      expect(await client.next()).toMatchObject({
        type: "error",
        id: "deep",
        data: { code: "invalid_message" },
      });
      const nested62 = `{"type":"ping","id":"ok","data":{"a":${"[".repeat(62)}${"]".repeat(62)}}}`;
      client.send(nested62);
      expect(await client.next()).toMatchObject({ type: "pong", id: "ok" });
    } finally {
      client.socket.close();
    }
  });
});

describe("gRPC", () => {
  const identity = (b: Buffer) => b;
  const Client = grpc.makeGenericClientConstructor(
    {
      GetStamp: {
        path: "/svc.v1.StampService/GetStamp",
        requestStream: false,
        responseStream: false,
        requestSerialize: identity,
        requestDeserialize: identity,
        responseSerialize: identity,
        responseDeserialize: identity,
      },
    },
    "StampService",
  );

  it("answers request bytes that do not parse with INVALID_ARGUMENT, not INTERNAL", async () => {
    const client = new Client(
      `127.0.0.1:${svc.grpcPort}`,
      grpc.credentials.createInsecure(),
    ) as unknown as grpc.Client & {
      GetStamp(req: Buffer, cb: (err: grpc.ServiceError | null) => void): void;
    };
    try {
      // Field 1 (stamp_id), length 3, bytes that are not UTF-8; then a tag with wire type 7.
      for (const bytes of [
        Buffer.from([0x0a, 0x03, 0xc3, 0x28, 0xff]),
        Buffer.from([0x0f]),
        Buffer.from([0x0a, 0x05, 0x61]),
      ]) {
        const err = await new Promise<grpc.ServiceError | null>((resolve) => client.GetStamp(bytes, resolve));
        expect(err?.code, bytes.toString("hex")).toBe(grpc.status.INVALID_ARGUMENT);
      }
    } finally {
      client.close();
    }
  });
});
