import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listOperations, loadSpec } from "../../server/contract/openapi.js";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { encryptedKey, newRecipient } from "../vault/fixture.js";
import { TestClient } from "../ws/ws-client.js";

// Deeply nested JSON and path traversal against every operation of specs/openapi.yaml: each is
// answered with a clean 4xx (or, where any object is accepted, a verdict), never a 5xx, a crash
// or a file of the server's.
let svc: RunningService;
let key: string;

beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false" });
  key = (await issueKey(svc)).key;
});
afterAll(() => svc.close());

type SpecOperation = { requestBody?: { content?: Record<string, unknown> } };
const spec = loadSpec() as unknown as { paths: Record<string, Record<string, SpecOperation>> };
const operations = listOperations();
const jsonOperations = operations.filter(
  (op) => spec.paths[op.path]![op.method]!.requestBody?.content?.["application/json"],
);
const withPathParameters = operations.filter((op) => op.path.includes("{"));

/** Fills every path parameter with `value` (already URL-encoded as it should travel). */
const fill = (path: string, value: string) => path.replace(/\{[^}]+\}/g, value);
/** An id of the right shape that names nothing, for the parameters that are not under test. */
const placeholder = (path: string) => fill(path, "stp_01JD3X7Q6V9M2K8T4R5N0B1C2D");

/** Sends the path exactly as given: fetch would resolve dot segments before they left. */
function raw(method: string, path: string, body?: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(svc.baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: hostname,
        port,
        method,
        path,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode!, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const nestedArrays = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
const nestedObjects = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;

describe("deeply nested JSON within MAX_JSON_BYTES", () => {
  const bodies: [string, string][] = [
    ["100 000 nested arrays", nestedArrays(100_000)],
    ["50 000 nested objects", nestedObjects(50_000)],
    ["nested arrays in a string field", `{"name":${nestedArrays(100_000)},"vault_ids":[]}`],
  ];

  it.each(jsonOperations.map((op) => [`${op.method.toUpperCase()} ${op.path}`, op] as const))(
    "%s answers 400 to each, never 5xx",
    async (_name, op) => {
      for (const [, body] of bodies) {
        const res = await raw(op.method.toUpperCase(), placeholder(op.path), body);
        expect(res.status, res.body).toBe(400);
      }
    },
  );

  it("POST /verify: a stamp_json nesting past 64 levels is 400 invalid_json, one within them a verdict", async () => {
    // The spec's Conventions bound every JSON body to 64 levels (the body is level 1).
    for (const deep of [nestedArrays(200_000), nestedObjects(100_000), nestedArrays(63)]) {
      const res = await raw("POST", "/verify", `{"stamp_json":{"format":"stampd.stamp/v1","x":${deep}}}`);
      expect(res.status, res.body).toBe(400);
      expect(JSON.parse(res.body)).toMatchObject({ code: "invalid_json" });
    }
    const within = await raw(
      "POST",
      "/verify",
      `{"stamp_json":{"format":"stampd.stamp/v1","x":${nestedArrays(62)}}}`,
    );
    expect(within.status, within.body).toBe(200);
    expect(JSON.parse(within.body)).toMatchObject({ is_valid: false, details: { format: "invalid" } });
  });

  it("in a WebSocket frame answers error invalid_message and keeps the connection", async () => {
    const client = await TestClient.connect(svc.baseUrl);
    // Within WS_MAX_PAYLOAD (64 KiB), sent as text: the client's own JSON.stringify would overflow.
    client.send(`{"type":"ping","id":"deep","data":{"deep":${nestedArrays(30_000)}}}`);
    expect(await client.next()).toMatchObject({ type: "error", data: { code: "invalid_message" } });
    expect(await client.request({ type: "ping" })).toMatchObject({ type: "pong" });
    client.close();
  });

  it("leaves the service healthy", async () => {
    expect((await fetch(`${svc.baseUrl}/health`)).status).toBe(200);
  });
});

describe("path traversal", () => {
  const traversals = [
    "..%2F..%2F..%2F..%2Fetc%2Fpasswd",
    "%2e%2e%2f%2e%2e%2f%2e%2e%2fpackage.json",
    "..%5C..%5C..%5Cpackage.json",
    "....%2F%2F....%2F%2Fpackage.json",
    "%252e%252e%252fpackage.json",
    "..",
    "%00",
  ];
  const leaked = (body: string) => /root:x:0:0|"name":\s*"stampd"/.test(body);

  it.each(withPathParameters.map((op) => [`${op.method.toUpperCase()} ${op.path}`, op] as const))(
    "%s answers 4xx to ../ and its encodings in every path parameter",
    async (_name, op) => {
      for (const attempt of traversals) {
        const body = op.method === "get" ? undefined : "{}";
        const res = await raw(op.method.toUpperCase(), fill(op.path, attempt), body);
        expect(res.status, `${attempt}: ${res.body}`).toBeGreaterThanOrEqual(400);
        expect(res.status, `${attempt}: ${res.body}`).toBeLessThan(500);
        expect(leaked(res.body)).toBe(false);
      }
    },
  );

  it.each(["/docs/assets/", "/pages/assets/", "/redoc/assets/"])(
    "serves nothing outside the folder of %s",
    async (prefix) => {
      for (const attempt of [
        "../../../package.json",
        "..%2F..%2F..%2Fpackage.json",
        "%2e%2e/%2e%2e/%2e%2e/package.json",
        "%2e%2e%2f%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd",
        "..%5C..%5C..%5Cpackage.json",
      ]) {
        const res = await raw("GET", `${prefix}${attempt}`);
        expect(leaked(res.body), `${prefix}${attempt}`).toBe(false);
        expect(res.status, `${prefix}${attempt}`).toBeGreaterThanOrEqual(400);
        expect(res.status, `${prefix}${attempt}`).toBeLessThan(500);
      }
    },
  );

  it("refuses content URIs outside ipfs, ar, s3 and https, and stores the others as text, unresolved", async () => {
    const create = (uris: string[]) =>
      raw(
        "POST",
        "/vault/create",
        JSON.stringify({
          encrypted_key: encryptedKey,
          heartbeat_deadline: 86_400,
          recipient_public_key: newRecipient().publicKey,
          content_uris: uris,
        }),
      );
    for (const uri of [
      "file:///etc/passwd",
      "file://../../package.json",
      "../../package.json",
      "/etc/passwd",
    ]) {
      const res = await create([uri]);
      expect(res.status, uri).toBe(400);
      expect(JSON.parse(res.body)).toMatchObject({ code: "validation_failed" });
    }
    const dotted = "s3://my-bucket/../../etc/passwd";
    const stored = await create([dotted]);
    expect(stored.status).toBe(201);
    const vault = await raw("GET", `/vault/${JSON.parse(stored.body).id}`);
    expect(JSON.parse(vault.body).content_uris).toEqual([dotted]);
  });
});
