import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config.js";
import { loadSpec } from "../../server/contract/openapi.js";
import { issueKey } from "../helpers/keys.js";
import { filePart, postParts } from "../helpers/multipart.js";
import { type RunningService, startService } from "../helpers/service.js";

// Request-size limits narrowed by configuration, as an operator would (their defaults are tested
// in test/uploads/multipart.test.ts, test/rest/foundation.test.ts and test/vault/), and the
// documentation of every limit's default.
let svc: RunningService;
let key: string;

beforeAll(async () => {
  svc = await startService({
    RATE_LIMIT_ENABLED: "false",
    MAX_FORM_FIELDS: "2",
    MAX_FORM_FIELD_BYTES: "64",
    MAX_JSON_BYTES: "512",
    MAX_PAGE_SIZE: "10",
  });
  key = (await issueKey(svc)).key;
});
afterAll(() => svc.close());

const field = (name: string, value: string) => ({ name, value });

describe("multipart forms", () => {
  it("refuses more text fields than MAX_FORM_FIELDS (400 invalid_multipart)", async () => {
    const three = [field("algorithm", "sha256"), field("a", "1"), field("b", "2"), filePart("doc")];
    const res = await postParts(`${svc.baseUrl}/hash`, three);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      code: "invalid_multipart",
      detail: 'too many parts: at most 2 text fields and one file part "file"',
    });
  });

  it("refuses a text field over MAX_FORM_FIELD_BYTES (413), a stamp_json included", async () => {
    const hash = await postParts(`${svc.baseUrl}/hash`, [
      field("algorithm", "s".repeat(65)),
      filePart("doc"),
    ]);
    expect(hash.status).toBe(413);
    expect(await hash.json()).toMatchObject({
      code: "payload_too_large",
      detail: 'field "algorithm" exceeds 64 bytes',
    });
    const verify = await postParts(`${svc.baseUrl}/verify`, [
      field("stamp_json", `{"pad":"${"x".repeat(64)}"}`),
    ]);
    expect(verify.status).toBe(413);
  });

  it("accepts a form within both limits", async () => {
    const res = await postParts(`${svc.baseUrl}/hash`, [field("algorithm", "sha256"), filePart("doc")]);
    expect(res.status).toBe(200);
  });
});

describe("JSON bodies and pages", () => {
  it("refuses a JSON body over MAX_JSON_BYTES with 413", async () => {
    const res = await fetch(`${svc.baseUrl}/verify`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ stamp_json: { pad: "x".repeat(512) } }),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: "payload_too_large" });
  });

  it.each(["/vault/list", "/explorer/api/vaults"])(
    "refuses a %s page larger than MAX_PAGE_SIZE with 400, and serves one of that size",
    async (path) => {
      const call = (limit: number) =>
        fetch(`${svc.baseUrl}${path}?limit=${limit}`, { headers: { authorization: `Bearer ${key}` } });
      const over = await call(11);
      expect(over.status).toBe(400);
      expect(await over.json()).toMatchObject({
        code: "validation_failed",
        errors: [{ path: "/query/limit", message: "must be <= 10" }],
      });
      expect((await call(10)).status).toBe(200);
    },
  );
});

describe("documentation", () => {
  // Every resource limit, with where its default is published besides docs/configuration.md.
  const limits = [
    "MAX_UPLOAD_BYTES",
    "MAX_JSON_BYTES",
    "MAX_FINGERPRINT_JSON_BYTES",
    "MAX_FORM_FIELDS",
    "MAX_FORM_FIELD_BYTES",
    "MAX_HEADER_BYTES",
    "MAX_CONNECTIONS",
    "HTTP_HEADERS_TIMEOUT_MS",
    "HTTP_REQUEST_TIMEOUT_MS",
    "HTTP_IDLE_TIMEOUT_MS",
    "HTTP_KEEP_ALIVE_TIMEOUT_MS",
    "MAX_BATCH_HEARTBEAT",
    "MAX_PAGE_SIZE",
    "MAX_BATCH_ITEMS",
    "GRPC_WATCH_BUFFER",
    "GRPC_MAX_CONCURRENT_STREAMS",
    "GRPC_MAX_MESSAGE_BYTES",
    "GRPC_IDLE_TIMEOUT_MS",
    "WS_MAX_PAYLOAD",
    "WS_MAX_SUBSCRIPTIONS",
    "WS_MAX_BUFFERED_BYTES",
  ] as const;
  const defaults = loadConfig({});
  const configuration = readFileSync(new URL("../../docs/configuration.md", import.meta.url), "utf8");
  const restLimits = String((loadSpec().info as { description: string }).description);
  const proto = readFileSync(new URL("../../specs/proto/svc/v1/stamp.proto", import.meta.url), "utf8");
  const asyncapi = readFileSync(new URL("../../specs/asyncapi.yaml", import.meta.url), "utf8");

  it.each(limits)("docs/configuration.md gives %s with its default", (name) => {
    const row = configuration.split("\n").find((line) => line.startsWith(`| \`${name}\``));
    expect(row, `no docs/configuration.md row for ${name}`).toBeDefined();
    expect(row!.split("|")[2]).toContain(`\`${defaults[name]}\``);
  });

  it.each(limits.filter((name) => !/^(GRPC|WS)_|MAX_BATCH_ITEMS/.test(name)))(
    "the REST spec's limits table gives %s with its default",
    (name) => {
      const row = restLimits.split("\n").find((line) => line.trim().startsWith(`| \`${name}\``));
      expect(row, `no row for ${name} in specs/openapi.yaml info.description`).toBeDefined();
      expect(row!.split("|")[2]).toContain(String(defaults[name]));
    },
  );

  it.each(limits.filter((name) => /^GRPC_(MAX|IDLE)|MAX_BATCH_ITEMS/.test(name)))(
    "specs/proto/svc/v1/stamp.proto gives %s with its default",
    (name) => expect(proto).toContain(`${name} (default ${defaults[name]}`),
  );

  it.each(limits.filter((name) => name.startsWith("WS_")))(
    "specs/asyncapi.yaml gives %s with its default",
    (name) => expect(asyncapi).toMatch(new RegExp(`\\| \`${name}\` \\| ${defaults[name]}\\b`)),
  );
});
