import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SqliteStore } from "../../server/store/sqlite/sqlite-store.js";
import { filePart, multipart, type Part, postParts } from "../helpers/multipart.js";
import { type RunningService, startService } from "../helpers/service.js";

// Edge cases of receiveUpload (server/rest/uploads/uploads.ts), through POST /hash and POST /stamps.
const MAX = 1024;
let svc: RunningService;
beforeAll(async () => {
  svc = await startService({ MAX_UPLOAD_BYTES: String(MAX), RATE_LIMIT_ENABLED: "false" });
});
afterAll(() => svc.close());

const hash = (parts: Part[], query = "", truncate?: number) =>
  postParts(`${svc.baseUrl}/hash${query}`, parts, { truncate });
const stampCount = () =>
  (
    (svc.service.ctx.store as SqliteStore).db.prepare("SELECT count(*) AS n FROM stamps").get() as {
      n: number;
    }
  ).n;

describe("accepted uploads", () => {
  it("a file of exactly MAX_UPLOAD_BYTES", async () => {
    const res = await hash([filePart(new Uint8Array(MAX))]);
    expect(res.status).toBe(200);
    expect((await res.json()).size_bytes).toBe(MAX);
  });

  it("an empty file (its hash is the hash of no bytes)", async () => {
    const res = await hash([filePart("", "empty.bin")]);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      filename: "empty.bin",
      size_bytes: 0,
      algorithm: "sha3-256",
      hash: "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a",
    });
  });

  it("a non-ASCII file name is decoded as UTF-8", async () => {
    const res = await hash([filePart("x", "résumé.txt")]);
    expect((await res.json()).filename).toBe("résumé.txt");
  });

  it("a field given as form field and as query parameter: the query wins", async () => {
    const res = await hash([{ name: "algorithm", value: "sha256" }, filePart("abc")], "?algorithm=blake3");
    expect((await res.json()).algorithm).toBe("blake3");
  });
});

describe("rejected uploads", () => {
  it.each<[string, Part[], number, string]>([
    ["no file part", [{ name: "algorithm", value: "sha256" }], 400, "validation_failed"],
    [
      "a text field repeated after the file",
      [{ name: "algorithm", value: "sha256" }, filePart("abc"), { name: "algorithm", value: "sha256" }],
      400,
      "invalid_multipart",
    ],
    [
      "an unsupported algorithm after the file",
      [filePart("abc"), { name: "algorithm", value: "md5" }],
      400,
      "validation_failed",
    ],
    ["`file` sent as a text field", [{ name: "file", value: "abc" }], 400, "invalid_multipart"],
    [
      "a file part under another name",
      [{ name: "doc", value: "abc", filename: "a.txt" }],
      400,
      "invalid_multipart",
    ],
    [
      "a field sent twice",
      [{ name: "algorithm", value: "sha256" }, { name: "algorithm", value: "sha256" }, filePart("a")],
      400,
      "invalid_multipart",
    ],
    ["two file parts", [filePart("a"), filePart("b")], 400, "invalid_multipart"],
    ["an unknown field", [{ name: "colour", value: "red" }, filePart("a")], 400, "validation_failed"],
    [
      "an unsupported algorithm",
      [{ name: "algorithm", value: "md5" }, filePart("a")],
      400,
      "validation_failed",
    ],
    ["a file one byte over MAX_UPLOAD_BYTES", [filePart(new Uint8Array(MAX + 1))], 413, "payload_too_large"],
    [
      "a text field over 1 MiB",
      [{ name: "algorithm", value: "x".repeat(1024 * 1024 + 1) }, filePart("a")],
      413,
      "payload_too_large",
    ],
    [
      "17 text fields",
      [...Array.from({ length: 17 }, (_, i) => ({ name: `f${i}`, value: "v" })), filePart("a")],
      400,
      "invalid_multipart",
    ],
  ])("%s", async (_name, parts, status, code) => {
    const res = await hash(parts);
    expect(res.status).toBe(status);
    const body = await res.json();
    expect(body.code).toBe(code);
    expect(body.detail).toEqual(expect.any(String));
  });

  it("a missing file names /body/file", async () => {
    const body = await (await hash([])).json();
    expect(body.errors).toEqual([{ path: "/body/file", message: "must have required property 'file'" }]);
  });

  it("an invalid form field names /body/<field>, an invalid query parameter /query/<field>", async () => {
    const form = await (await hash([{ name: "algorithm", value: "md5" }, filePart("a")])).json();
    expect(form.errors[0].path).toBe("/body/algorithm");
    const query = await hash([filePart("a")], "?algorithm=md5");
    expect(query.status).toBe(400);
    expect((await query.json()).errors[0].path).toBe("/query/algorithm");
  });

  it("a body cut off in the middle of the file", async () => {
    const res = await hash([filePart("x".repeat(200))], "", 150);
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe("invalid_multipart");
  });

  it("a request that is not multipart", async () => {
    const res = await fetch(`${svc.baseUrl}/hash`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "x",
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });
});

describe("POST /stamps stores nothing unless the whole form is valid", () => {
  const valid: Part[] = [{ name: "trust_threshold", value: "3" }, filePart("doc")];

  it.each<[string, Part[], number | undefined]>([
    [
      "an invalid field after the file",
      [filePart("doc"), { name: "trust_threshold", value: "300" }],
      undefined,
    ],
    ["a field repeated after the file", [...valid, { name: "trust_threshold", value: "3" }], undefined],
    ["a file over the limit", [filePart(new Uint8Array(MAX + 1))], undefined],
    // The file's bytes all arrived, but the closing boundary did not: the form is incomplete.
    ["a body cut off in the closing boundary", valid, multipart(valid).body.length - 8],
  ])("%s", async (_name, parts, truncate) => {
    const before = stampCount();
    const res = await postParts(`${svc.baseUrl}/stamps`, parts, { truncate });
    expect([400, 413]).toContain(res.status);
    expect(stampCount()).toBe(before);
  });

  it("while a valid form stores one stamp", async () => {
    const before = stampCount();
    const res = await postParts(`${svc.baseUrl}/stamps`, valid);
    expect(res.status).toBe(201);
    expect(stampCount()).toBe(before + 1);
  });
});
