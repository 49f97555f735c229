import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createAuthenticator } from "../../server/auth/authenticator.js";
import { systemClock } from "../../server/clock.js";
import { loadConfig } from "../../server/config.js";
import { MemoryEventBus } from "../../server/events/memory-bus.js";
import { createLogger } from "../../server/logger.js";
import { Metrics } from "../../server/metrics/metrics.js";
import { createRestApp } from "../../server/rest/app.js";
import { SqliteStore } from "../../server/store/sqlite/sqlite-store.js";
import { testServiceKeys } from "../helpers/service-keys.js";

// The REST app with no domain handlers: every declared operation is still routed, and answers 501.
let server: http.Server;
let base: string;
const store = new SqliteStore(":memory:");

beforeAll(async () => {
  const config = loadConfig({ NODE_ENV: "test", LOG_LEVEL: "silent" });
  const ctx = {
    config,
    logger: createLogger(config),
    clock: systemClock,
    store,
    events: new MemoryEventBus(),
    auth: createAuthenticator(config, store, systemClock),
    keys: testServiceKeys(),
    metrics: new Metrics({ logger: createLogger(config), processMetrics: false }),
  };
  await store.migrate();
  server = http.createServer(createRestApp(ctx));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await store.close();
});

it("an operation without a handler answers 501 {detail: 'not implemented'} through the router", async () => {
  const res = await fetch(`${base}/presets`);
  expect(res.status).toBe(501);
  expect(await res.json()).toEqual({ detail: "not implemented", code: "not_implemented" });
});
