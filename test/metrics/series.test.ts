import { createHash } from "node:crypto";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { grpcJsClient, unary } from "../helpers/grpc-js.js";
import { issueKey } from "../helpers/keys.js";
import { RestFixture } from "../vault/rest-fixture.js";
import { TestClient } from "../ws/ws-client.js";
import { type Metrics, scrape } from "./scrape.js";

// One service with a ManualClock and the seed's rate limits; each test makes traffic of one kind
// and checks that its series moved by exactly that traffic.
let fx: RestFixture;
let key: string;
const metrics = () => scrape(`${fx.svc.baseUrl}/metrics`);
const auth = () => ({ authorization: `Bearer ${key}` });
const sha256 = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex")}`;

beforeAll(async () => {
  fx = await RestFixture.start({ RATE_LIMIT_ENABLED: "true" });
  key = (await issueKey(fx.svc, { tier: "internal" })).key;
});
afterAll(() => fx.close());

/** Runs `traffic` and returns the metrics before and after it. */
async function around(traffic: () => Promise<unknown>): Promise<{ before: Metrics; after: Metrics }> {
  const before = await metrics();
  await traffic();
  return { before, after: await metrics() };
}

const moved = (m: { before: Metrics; after: Metrics }, name: string, labels: Record<string, string> = {}) =>
  m.after.value(name, labels) - m.before.value(name, labels);

describe("GET /metrics", () => {
  it("declares every stampd series with its type, and Node's process metrics", async () => {
    const { types } = await metrics();
    expect(Object.fromEntries([...types].filter(([name]) => name.startsWith("stampd_")))).toEqual({
      stampd_http_requests_total: "counter",
      stampd_http_request_duration_seconds: "histogram",
      stampd_grpc_calls_total: "counter",
      stampd_grpc_call_duration_seconds: "histogram",
      stampd_websocket_connections: "gauge",
      stampd_websocket_messages_received_total: "counter",
      stampd_websocket_messages_sent_total: "counter",
      stampd_stamps_created_total: "counter",
      stampd_batches_sealed_total: "counter",
      stampd_batch_seal_duration_seconds: "histogram",
      stampd_stamp_batch_wait_seconds: "histogram",
      stampd_anchors_pending: "gauge",
      stampd_anchors_settled_total: "counter",
      stampd_vaults: "gauge",
      stampd_vault_heartbeats_total: "counter",
      stampd_vault_expiries_total: "counter",
      stampd_rate_limit_decisions_total: "counter",
      stampd_rate_limit_tracked_clients: "gauge",
      stampd_rate_limit_cleanups_total: "counter",
      stampd_rate_limit_store_errors_total: "counter",
      stampd_store_query_duration_seconds: "histogram",
    });
    expect(types.get("process_cpu_seconds_total")).toBe("counter");
    expect(types.get("nodejs_eventloop_lag_seconds")).toBe("gauge");
  });
});

describe("REST", () => {
  it("counts and times requests by route template, method and status, never by raw path", async () => {
    const unknown = "stp_00000000000000000000000000";
    const m = await around(async () => {
      await fetch(`${fx.svc.baseUrl}/presets`, { headers: auth() });
      await fetch(`${fx.svc.baseUrl}/stamps/${unknown}`, { headers: auth() });
      await fetch(`${fx.svc.baseUrl}/STAMPS/${unknown}/`, { headers: auth() });
      await fetch(`${fx.svc.baseUrl}/no/such/path`, { headers: auth() });
    });
    const route = { route: "/stamps/{stamp_id}", method: "GET", status: "404" };
    expect(moved(m, "stampd_http_requests_total", route)).toBe(2);
    expect(moved(m, "stampd_http_request_duration_seconds_count", route)).toBe(2);
    expect(moved(m, "stampd_http_requests_total", { route: "/presets", method: "GET", status: "200" })).toBe(
      1,
    );
    expect(moved(m, "stampd_http_requests_total", { route: "other", status: "404" })).toBe(1);
    const labelValues = m.after.samples.flatMap((s) => Object.values(s.labels));
    expect(labelValues.filter((v) => v.includes("stp_") || v.includes("/no/"))).toEqual([]);
  });

  it("counts stamps made over REST", async () => {
    const form = new FormData();
    form.append("file", new Blob(["a document"]), "doc.txt");
    const m = await around(async () => {
      const res = await fetch(`${fx.svc.baseUrl}/stamps`, { method: "POST", headers: auth(), body: form });
      expect(res.status).toBe(201);
    });
    expect(moved(m, "stampd_stamps_created_total", { transport: "rest" })).toBe(1);
    expect(moved(m, "stampd_http_requests_total", { route: "/stamps", method: "POST", status: "201" })).toBe(
      1,
    );
  });
});

describe("gRPC", () => {
  it("counts calls by method and final code, and the stamps they make", async () => {
    const client = grpcJsClient("svc/v1/stamp.proto", "svc.v1.StampService", fx.svc.grpcPort);
    const md = new grpc.Metadata();
    md.set("authorization", `Bearer ${key}`);
    const m = await around(async () => {
      await unary(client, "CreateStamp", { content_hash: sha256("over grpc") }, md);
      await unary(
        client,
        "BatchStamp",
        { items: [{ content_hash: sha256("b1") }, { content_hash: "bad" }] },
        md,
      );
      await expect(
        unary(client, "GetStamp", { stamp_id: "stp_00000000000000000000000000" }, md),
      ).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
    });
    client.close();
    const method = (name: string) => `svc.v1.StampService/${name}`;
    expect(moved(m, "stampd_grpc_calls_total", { method: method("CreateStamp"), code: "OK" })).toBe(1);
    expect(moved(m, "stampd_grpc_calls_total", { method: method("GetStamp"), code: "NOT_FOUND" })).toBe(1);
    expect(moved(m, "stampd_grpc_call_duration_seconds_count", { method: method("BatchStamp") })).toBe(1);
    // The batch's refused item is not a stamp.
    expect(moved(m, "stampd_stamps_created_total", { transport: "grpc" })).toBe(2);
  });

  it("counts streams when they end, with the status the client got", async () => {
    const client = grpcJsClient("svc/v1/stamp.proto", "svc.v1.StampService", fx.svc.grpcPort);
    const md = new grpc.Metadata();
    md.set("authorization", `Bearer ${key}`);
    const m = await around(async () => {
      const watch = client.WatchStamps!(
        { filter: "status=nonsense" },
        md,
      ) as grpc.ClientReadableStream<unknown>;
      const error = await new Promise<grpc.ServiceError>((resolve) => watch.on("error", resolve));
      expect(error.code).toBe(grpc.status.INVALID_ARGUMENT);
    });
    client.close();
    expect(
      moved(m, "stampd_grpc_calls_total", {
        method: "svc.v1.StampService/WatchStamps",
        code: "INVALID_ARGUMENT",
      }),
    ).toBe(1);
  });
});

describe("WebSocket", () => {
  it("counts connections and messages in and out by type, and the stamps made over it", async () => {
    const before = await metrics();
    const client = await TestClient.connect(fx.svc.baseUrl, { headers: auth() });
    const during = await around(async () => {
      await client.expectReply("pong", { type: "ping" });
      await client.expectReply("stamp_created", { type: "stamp", data: { contentHash: sha256("over ws") } });
      client.send("not json");
      expect((await client.next()).type).toBe("error");
    });
    expect(during.before.value("stampd_websocket_connections")).toBe(
      before.value("stampd_websocket_connections") + 1,
    );
    expect(moved(during, "stampd_websocket_messages_received_total", { type: "ping" })).toBe(1);
    expect(moved(during, "stampd_websocket_messages_received_total", { type: "stamp" })).toBe(1);
    expect(moved(during, "stampd_websocket_messages_received_total", { type: "invalid" })).toBe(1);
    expect(moved(during, "stampd_websocket_messages_sent_total", { type: "pong" })).toBe(1);
    expect(moved(during, "stampd_websocket_messages_sent_total", { type: "stamp_created" })).toBe(1);
    expect(moved(during, "stampd_websocket_messages_sent_total", { type: "error" })).toBe(1);
    expect(moved(during, "stampd_stamps_created_total", { transport: "websocket" })).toBe(1);
    client.close();
    await client.closed;
    await vi.waitFor(async () =>
      expect((await metrics()).value("stampd_websocket_connections")).toBe(
        before.value("stampd_websocket_connections"),
      ),
    );
  });
});

describe("proofs", () => {
  it("records each sealed batch, how long its stamps waited, and the anchors it settles or leaves pending", async () => {
    const form = new FormData();
    form.append("preset", "standard"); // log and rfc3161; without TSA_URL rfc3161 stays pending
    form.append("file", new Blob(["to be batched"]), "doc.txt");
    await fetch(`${fx.svc.baseUrl}/stamps`, { method: "POST", headers: auth(), body: form });
    fx.clock.advance(5000);
    const m = await around(() => fx.svc.service.proofs.pipeline.tick());
    const waited = moved(m, "stampd_stamp_batch_wait_seconds_count");
    expect(moved(m, "stampd_batches_sealed_total")).toBe(1);
    expect(moved(m, "stampd_batch_seal_duration_seconds_count")).toBe(1);
    // Every stamp made so far in this file, each of which waited at least the 5 s just passed.
    expect(waited).toBeGreaterThanOrEqual(2);
    expect(moved(m, "stampd_stamp_batch_wait_seconds_sum")).toBeGreaterThanOrEqual(5 * waited);
    expect(moved(m, "stampd_anchors_settled_total", { type: "log", outcome: "confirmed" })).toBe(1);
    expect(m.after.value("stampd_anchors_pending", { type: "rfc3161" })).toBe(1);
    expect(m.after.value("stampd_anchors_pending", { type: "log" })).toBe(0);
  });
});

describe("vault", () => {
  it("counts heartbeats and expiries, and vaults by state", async () => {
    const owner = (await fx.key()).key;
    const m1 = await around(async () => {
      const vault = await fx.createVault(owner);
      const beat = await fx.call("POST", `/vault/${vault.id}/heartbeat`, owner, {
        fee_receipt: fx.receipt("0.50"),
      });
      expect(beat.status).toBe(200);
    });
    expect(moved(m1, "stampd_vault_heartbeats_total")).toBe(1);
    expect(moved(m1, "stampd_vaults", { state: "active" })).toBe(1);

    fx.clock.advance(86_400_000 + 1);
    const m2 = await around(() => fx.svc.service.vault.scheduler.tick());
    expect(moved(m2, "stampd_vault_expiries_total")).toBe(1);
    expect(moved(m2, "stampd_vaults", { state: "active" })).toBe(-1);
    expect(moved(m2, "stampd_vaults", { state: "expired" })).toBe(1);
  });
});

describe("rate limiting", () => {
  it("counts decisions by tier and outcome and reports the limiter's statistics", async () => {
    const m = await around(async () => {
      // Anonymous, burst 5: POST /stamps costs 2, so two pass (and fail validation) and the third is refused.
      const statuses = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await fetch(`${fx.svc.baseUrl}/stamps`, { method: "POST" })).status);
      expect(statuses).toEqual([400, 400, 429]);
      await fx.svc.service.rateLimiter!.sweep();
    });
    expect(moved(m, "stampd_rate_limit_decisions_total", { tier: "anonymous", outcome: "allowed" })).toBe(2);
    expect(moved(m, "stampd_rate_limit_decisions_total", { tier: "anonymous", outcome: "limited" })).toBe(1);
    expect(moved(m, "stampd_http_requests_total", { route: "/stamps", method: "POST", status: "429" })).toBe(
      1,
    );
    expect(moved(m, "stampd_rate_limit_cleanups_total")).toBe(1);
    expect(m.after.value("stampd_rate_limit_tracked_clients")).toBeGreaterThanOrEqual(1);
    expect(m.after.value("stampd_rate_limit_store_errors_total")).toBe(0);
  });
});

describe("store", () => {
  it("times store calls by repository and method", async () => {
    const m = await around(() => fetch(`${fx.svc.baseUrl}/explorer/api/stats`, { headers: auth() }));
    expect(
      moved(m, "stampd_store_query_duration_seconds_count", { repository: "vaults", method: "stats" }),
    ).toBe(1);
    expect(
      m.after.value("stampd_store_query_duration_seconds_count", { repository: "stamps" }),
    ).toBeGreaterThan(0);
  });
});
