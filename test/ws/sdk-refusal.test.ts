// The SDK WebSocket client never hangs: a refused key, an endpoint that is not stampd's, a peer
// that never answers and one that never completes the handshake each end subscribe() with a typed
// error within its timeout, and a refusal is not retried.

import type { AddressInfo } from "node:net";
import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { AuthenticationError } from "../../sdk/src/internal/errors.js";
import { type ReconnectInfo, StampdSocket, type StampdSocketOptions } from "../../sdk/src/ws/client.js";
import { WsEndpointError, WsTimeoutError } from "../../sdk/src/ws/errors.js";
import { type RunningService, startService } from "../helpers/service.js";
import { wsUrl } from "./ws-client.js";

let svc: RunningService;
beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false" });
});
afterAll(() => svc.close());

/** A client whose reconnection attempts are recorded, closed once `use` is done. */
async function withClient(
  options: Omit<StampdSocketOptions, "WebSocket" | "onReconnecting">,
  use: (client: StampdSocket, reconnects: ReconnectInfo[]) => Promise<void>,
): Promise<void> {
  const reconnects: ReconnectInfo[] = [];
  const client = new StampdSocket({ WebSocket, onReconnecting: (i) => reconnects.push(i), ...options });
  try {
    await use(client, reconnects);
  } finally {
    client.close();
  }
}

describe("StampdSocket refusals and timeouts", () => {
  for (const sendKeyAs of ["query", "header"] as const) {
    it(`a refused key (${sendKeyAs}) rejects subscribe() with AuthenticationError and stops`, async () => {
      const options = { url: wsUrl(svc.baseUrl), apiKey: `svc_test_${"0".repeat(32)}`, sendKeyAs };
      await withClient(options, async (client, reconnects) => {
        const refused = client.subscribe("all_stamps");
        await expect(refused).rejects.toBeInstanceOf(AuthenticationError);
        await expect(refused).rejects.toMatchObject({ status: 401 });
        const closed = await client.closed;
        expect(closed.error).toBeInstanceOf(AuthenticationError);
        expect(reconnects).toEqual([]);
        // The client is stopped: later calls fail at once instead of waiting.
        await expect(client.ping()).rejects.toThrow("closed");
      });
    });
  }

  it("an HTTP server that is not a stampd WebSocket endpoint ends with WsEndpointError", async () => {
    const url = `${svc.baseUrl.replace("http", "ws")}/not-ws`;
    await withClient({ url }, async (client, reconnects) => {
      const refused = client.subscribe("all_stamps");
      await expect(refused).rejects.toBeInstanceOf(WsEndpointError);
      await expect(refused).rejects.toMatchObject({ status: 404 });
      expect((await client.closed).error).toBeInstanceOf(WsEndpointError);
      expect(reconnects).toEqual([]);
    });
  });

  it("a WebSocket peer that never answers rejects subscribe() with WsTimeoutError", async () => {
    const silent = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    await new Promise((resolve) => silent.once("listening", resolve));
    const url = `ws://127.0.0.1:${(silent.address() as AddressInfo).port}/ws`;
    try {
      await withClient({ url, subscribeTimeoutMs: 300 }, async (client) => {
        const unanswered = client.subscribe("all_stamps");
        await expect(unanswered).rejects.toBeInstanceOf(WsTimeoutError);
        await expect(unanswered).rejects.toThrow("is ws://");
      });
    } finally {
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it("a peer that accepts TCP but never answers the upgrade: connect timeout, then retries", async () => {
    const mute: Server = createServer(() => {});
    await new Promise<void>((resolve) => mute.listen(0, "127.0.0.1", resolve));
    const url = `ws://127.0.0.1:${(mute.address() as AddressInfo).port}/ws`;
    try {
      await withClient(
        { url, connectTimeoutMs: 100, subscribeTimeoutMs: 1500 },
        async (client, reconnects) => {
          const unanswered = client.subscribe("all_stamps");
          await expect(unanswered).rejects.toBeInstanceOf(WsTimeoutError);
          await expect(unanswered).rejects.toThrow("could not connect");
          // A silent peer is not a refusal: the client keeps trying, with backoff.
          expect(reconnects[0]).toMatchObject({ attempt: 1, code: 1006 });
        },
      );
    } finally {
      mute.close();
    }
  });
});
