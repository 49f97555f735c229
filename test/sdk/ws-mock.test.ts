// The SDK's WebSocket client pointed at the Prism mock (npm run mock), which serves the REST
// contract but has no WebSocket endpoint: subscribe() ends with a typed error, not endless
// reconnection, and stamps.waitFor() falls back to polling the mock's GET /stamps/{id}.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { type RunningPrism, startPrism } from "../../scripts/prism.js";
import { createClient, WsEndpointError } from "../../sdk/src/index.js";

let prism: RunningPrism;
beforeAll(async () => {
  prism = await startPrism({ mode: "mock" });
}, 120_000);
afterAll(() => prism?.stop());

describe("the SDK against the Prism mock", () => {
  it("subscribe() rejects with WsEndpointError and the client stops", async () => {
    const reconnects: unknown[] = [];
    const client = createClient({ baseUrl: prism.url, apiKey: `svc_test_${"a".repeat(32)}`, WebSocket });
    const socket = client.ws({ onReconnecting: (info) => reconnects.push(info) });
    const refused = socket.subscribe("all_stamps");
    await expect(refused).rejects.toBeInstanceOf(WsEndpointError);
    await expect(refused).rejects.toMatchObject({ status: 404 });
    expect((await socket.closed).error).toBeInstanceOf(WsEndpointError);
    expect(reconnects).toEqual([]);
  });

  it("stamps.waitFor() polls instead and resolves with the mock's example stamp", async () => {
    const client = createClient({ baseUrl: prism.url, apiKey: `svc_test_${"a".repeat(32)}`, WebSocket });
    const stamp = await client.stamps.waitFor("stp_01JD3M6ZK8Q2V7W9X4Y5Z6A7B8", { timeout: 30_000 });
    expect(["confirmed", "anchored"]).toContain(stamp.status);
  });
});
