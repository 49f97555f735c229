import { brotliCompressSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningService, startService } from "../helpers/service.js";

// JSON bodies with a Content-Encoding, on the routes express.json reads (/verify) and on those
// that read large bodies themselves (/fingerprint/compare). Issue #35 item 7: a broken gzip body
// answered 400 with zlib's bare message ("incorrect header check") and no code.
let svc: RunningService;
beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false" });
});
afterAll(() => svc.close());

const json = Buffer.from('{"stamp_json":{}}');

async function post(path: string, encoding: string, body: Buffer) {
  const res = await fetch(`${svc.baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "content-encoding": encoding },
    body: new Uint8Array(body),
  });
  return { status: res.status, body: (await res.json()) as { detail: string; code?: string } };
}

const broken: [string, { encoding: string; body: Buffer; detail: RegExp }][] = [
  [
    "not gzip at all",
    { encoding: "gzip", body: json, detail: /not valid gzip data.*incorrect header check/ },
  ],
  [
    "gzip cut short",
    { encoding: "gzip", body: gzipSync(json).subarray(0, 12), detail: /not valid gzip data/ },
  ],
  ["not deflate", { encoding: "deflate", body: json, detail: /not valid deflate data/ }],
  ["not brotli", { encoding: "br", body: json, detail: /not valid br data/ }],
  [
    "an unknown coding",
    { encoding: "compress", body: json, detail: /unsupported content encoding "compress"/ },
  ],
];

describe.each(["/verify", "/fingerprint/compare"])("POST %s", (path) => {
  it.each(broken)("%s: 400 bad_request in the spec's shape", async (_, { encoding, body, detail }) => {
    const answer = await post(path, encoding, body);
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe("bad_request");
    expect(answer.body.detail).toMatch(detail);
  });

  it("reads gzip and brotli bodies that decode", async () => {
    for (const [encoding, body] of [
      ["gzip", gzipSync(json)],
      ["br", brotliCompressSync(json)],
    ] as const) {
      const answer = await post(path, encoding, body);
      // Decoded and read: /verify answers the document, a comparison without fingerprints is invalid.
      if (path === "/verify") expect(answer.status).toBe(200);
      else expect(answer.body.code).toBe("validation_failed");
    }
  });

  it("answers 413 for a gzip body that inflates past the route's limit", async () => {
    const limit = path === "/verify" ? svc.config.MAX_JSON_BYTES : svc.config.MAX_FINGERPRINT_JSON_BYTES;
    const bomb = gzipSync(Buffer.from(`{"stamp_json":"${"a".repeat(limit)}"}`));
    const answer = await post(path, "gzip", bomb);
    expect(answer.status).toBe(413);
    expect(answer.body.code).toBe("payload_too_large");
  });
});
