import { afterAll, beforeAll, expect, it } from "vitest";
import WebSocket from "ws";
import { createClient, type WebSocketConstructor } from "../../sdk/src/index.js";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";

let svc: RunningService | undefined;
beforeAll(async () => {
  svc = await startService();
});
afterAll(() => svc?.close());

it("client.ws() connects to <baseUrl>/ws with the client's key", async () => {
  const { key } = await issueKey(svc!);
  const stampd = createClient({ baseUrl: svc!.baseUrl, apiKey: key });
  // Node 20 has no global WebSocket; the `ws` package stands in.
  const socket = stampd.ws({ WebSocket: WebSocket as unknown as WebSocketConstructor });
  try {
    expect(await socket.ping({ n: 1 })).toEqual({ n: 1 });
    // user_stamps needs an authenticated connection, so this proves the key arrived.
    await expect(socket.subscribe("user_stamps")).resolves.toMatchObject({ channel: "user_stamps" });
  } finally {
    socket.close();
  }
});
