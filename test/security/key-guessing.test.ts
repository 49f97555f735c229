import type * as grpc from "@grpc/grpc-js";
import { Status } from "@grpc/grpc-js/build/src/constants.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../server/clock.js";
import { grpcJsStampClient, metadata, sha3 } from "../grpc/fixture.js";
import { unary } from "../helpers/grpc-js.js";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { refusedUpgrade } from "../ws/ws-client.js";

// Guessing API keys yields nothing: every refused key gets the same answer, and refusals are
// charged to the guesser's address (server/ratelimit/failed-auth.ts), so guessing is throttled.
// A manual clock: no tokens come back while a test runs. The test helper trusts loopback as a
// proxy, so each test speaks for a client address of its own through X-Forwarded-For.
let svc: RunningService;
let valid: { key: string; keyId: string };
let revoked: string;

beforeAll(async () => {
  svc = await startService({}, { clock: new ManualClock() });
  valid = await issueKey(svc);
  const gone = await issueKey(svc);
  await svc.service.ctx.auth.keys.revoke(gone.keyId);
  revoked = gone.key;
});
afterAll(() => svc.close());

const from = (address: string, headers: Record<string, string> = {}) => ({
  "x-forwarded-for": address,
  ...headers,
});
const get = (path: string, headers: Record<string, string>) => fetch(`${svc.baseUrl}${path}`, { headers });

describe("a refused key", () => {
  const secretOf = (key: string) => key.slice("svc_live_".length + 12);
  const guesses: [string, () => Record<string, string>][] = [
    ["malformed", () => ({ authorization: "Bearer svc_live_short" })],
    ["an unknown key", () => ({ authorization: `Bearer svc_live_${"Q".repeat(43)}` })],
    ["a revoked key", () => ({ authorization: `Bearer ${revoked}` })],
    ["another prefix", () => ({ authorization: `Bearer ${valid.key.replace("svc_live_", "svc_prod_")}` })],
    [
      "a known key id with a wrong secret",
      () => ({ authorization: `Bearer ${valid.key.replace(secretOf(valid.key), "A".repeat(31))}` }),
    ],
    ["a revoked key in X-API-Key", () => ({ "x-api-key": revoked })],
    ["a key with a stray character", () => ({ authorization: `Bearer ${valid.key}!` })],
  ];

  it.each(["/health", "/presets", "/vault/list"])(
    "gets the same status, body and headers, whatever was wrong with it, on %s",
    async (path) => {
      const answers = await Promise.all(
        guesses.map(async ([, presented], i) => {
          const res = await get(path, from(`198.51.100.${i + 1}`, presented()));
          const headers: Record<string, string> = {};
          res.headers.forEach((value, name) => {
            if (name !== "x-request-id" && name !== "date") headers[name] = value;
          });
          return { status: res.status, headers, body: await res.text() };
        }),
      );
      expect(answers[0]).toMatchObject({
        status: 401,
        headers: { "www-authenticate": 'Bearer realm="stampd", error="invalid_token"' },
        body: JSON.stringify({ detail: "API key is not valid", code: "invalid_api_key" }),
      });
      for (const answer of answers.slice(1)) expect(answer).toEqual(answers[0]);
    },
  );
});

describe("guessing keys", () => {
  const guess = (address: string, n: number) =>
    get("/presets", from(address, { authorization: `Bearer svc_live_${String(n).padStart(43, "Q")}` }));

  it("is charged to the address: 401 while its anonymous bucket lasts (burst 5), then 429", async () => {
    const statuses = [];
    for (let n = 0; n < 6; n++) statuses.push((await guess("203.0.113.10", n)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    const refused = await guess("203.0.113.10", 6);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get("x-ratelimit-tier")).toBe("anonymous");
    expect(await refused.json()).toMatchObject({
      error: "rate_limit_exceeded",
      tier: "anonymous",
      limit: 20,
    });
  });

  it("costs 1.0 a guess even on the cheapest path, and on the exempt ones", async () => {
    // /presets costs 0.1 and /health nothing: a guess costs 1.0 wherever it is made.
    const address = "203.0.113.11";
    const bad = { authorization: `Bearer svc_live_${"Z".repeat(43)}` };
    for (const path of ["/health", "/health", "/presets", "/presets", "/docs"]) {
      expect((await get(path, from(address, bad))).status).toBe(401);
    }
    expect((await get("/health", from(address, bad))).status).toBe(429);
  });

  it("throttles the guesser's address, not valid keys sent from it nor other addresses", async () => {
    const address = "203.0.113.12";
    for (let n = 0; n < 5; n++) await guess(address, n);
    expect((await guess(address, 5)).status).toBe(429);
    // Anonymous requests share the address's bucket with its refused keys.
    expect((await get("/presets", from(address))).status).toBe(429);
    expect((await get("/presets", from(address, { authorization: `Bearer ${valid.key}` }))).status).toBe(200);
    expect((await guess("203.0.113.13", 0)).status).toBe(401);
  });

  it("is throttled on the WebSocket upgrade too", async () => {
    const headers = from("203.0.113.14", { authorization: `Bearer svc_live_${"W".repeat(43)}` });
    const statuses = [];
    for (let n = 0; n < 6; n++) statuses.push((await refusedUpgrade(svc.baseUrl, { headers })).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
  });

  it("is throttled over gRPC: UNAUTHENTICATED, then RESOURCE_EXHAUSTED with pushback", async () => {
    const client = grpcJsStampClient(svc);
    const md = metadata({
      "x-forwarded-for": "203.0.113.15",
      authorization: `Bearer svc_live_${"G".repeat(43)}`,
    });
    const codes: number[] = [];
    let last: grpc.ServiceError | undefined;
    for (let n = 0; n < 6; n++) {
      last = await unary(client, "CreateStamp", { content_hash: sha3(`guess ${n}`) }, md).then(
        () => expect.fail("a bad key was let through"),
        (e: grpc.ServiceError) => e,
      );
      codes.push(last.code);
    }
    expect(codes).toEqual([...Array(5).fill(Status.UNAUTHENTICATED), Status.RESOURCE_EXHAUSTED]);
    expect(Number(last!.metadata.get("grpc-retry-pushback-ms")[0])).toBeGreaterThan(0);
    client.close();
  });
});

describe("X-Forwarded-For from an untrusted peer", () => {
  let untrusted: RunningService;
  beforeAll(async () => {
    untrusted = await startService({ TRUSTED_PROXIES: "192.0.2.1" }, { clock: new ManualClock() });
  });
  afterAll(() => untrusted.close());

  it("buys a guesser no fresh bucket: every spoofed address is charged to the peer", async () => {
    const statuses = [];
    for (let n = 0; n < 6; n++) {
      const res = await fetch(`${untrusted.baseUrl}/presets`, {
        headers: { "x-forwarded-for": `198.18.0.${n}`, "x-real-ip": `198.19.0.${n}`, "x-api-key": "guess" },
      });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
  });
});

describe("the default TRUSTED_PROXIES (none)", () => {
  let defaults: RunningService;
  beforeAll(async () => {
    // An empty value is the service's own default, replacing the test helper's trusted loopback.
    defaults = await startService({ TRUSTED_PROXIES: "" }, { clock: new ManualClock() });
  });
  afterAll(() => defaults.close());

  const bad = (n: number) => `svc_live_${String(n).padStart(43, "N")}`;
  const spoofed = (n: number) => ({
    "x-forwarded-for": `198.18.${n >> 8}.${n & 0xff}`,
    "x-real-ip": `198.19.0.${n & 0xff}`,
  });

  it("believes no local peer: 300 guesses with rotating forwarded addresses, all but 5 refused", async () => {
    expect(defaults.config.TRUSTED_PROXIES).toEqual([]);
    const statuses: number[] = [];
    for (let n = 0; n < 300; n++) {
      const res = await fetch(`${defaults.baseUrl}/presets`, {
        headers: { ...spoofed(n), authorization: `Bearer ${bad(n)}` },
      });
      statuses.push(res.status);
    }
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(295);
  });

  it("charges the WebSocket upgrade and gRPC calls to the peer too, whatever address they forward", async () => {
    const headers = { ...spoofed(1000), authorization: `Bearer ${bad(1000)}` };
    expect((await refusedUpgrade(defaults.baseUrl, { headers })).status).toBe(429);
    const client = grpcJsStampClient(defaults);
    const md = metadata({ ...spoofed(1001), authorization: `Bearer ${bad(1001)}` });
    await expect(unary(client, "CreateStamp", { content_hash: sha3("spoofed") }, md)).rejects.toMatchObject({
      code: Status.RESOURCE_EXHAUSTED,
    });
    client.close();
  });
});
