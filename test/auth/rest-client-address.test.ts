import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createRestApp } from "../../server/rest/app.js";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";

let svc: RunningService | undefined;
let server: http.Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await svc?.close();
  server = undefined;
  svc = undefined;
});

/** A service whose GET / answers the resolved principal, listening on `host`. */
async function echoPrincipal(env: Record<string, string>, host = "127.0.0.1") {
  svc = await startService({ ...env, VALIDATE_RESPONSES: "false" });
  const app = createRestApp(svc.service.ctx, { getRoot: (req, res) => void res.json(req.principal) });
  server = http.createServer(app);
  await new Promise<void>((r) => server!.listen(0, host, r));
  const { port } = server.address() as AddressInfo;
  const base = host.includes(":") ? `http://[${host}]:${port}` : `http://${host}:${port}`;
  return async (headers: Record<string, string> = {}) => (await fetch(`${base}/`, { headers })).json();
}

describe("REST client identification", () => {
  it("ignores X-Forwarded-For and X-Real-IP from a peer that is not a trusted proxy", async () => {
    const principalOf = await echoPrincipal({ TRUSTED_PROXIES: "10.0.0.0/8" });
    expect(await principalOf({ "x-forwarded-for": "198.51.100.1", "x-real-ip": "198.51.100.2" })).toEqual({
      accountId: null,
      keyId: null,
      tier: "anonymous",
      clientKey: "ip:127.0.0.1",
    });
  });

  it("takes the first untrusted hop, right to left, behind trusted proxies (loopback, as the test helper sets it)", async () => {
    const principalOf = await echoPrincipal({});
    const given = { "x-forwarded-for": "6.6.6.6, 198.51.100.7, 127.0.0.5" };
    expect(await principalOf(given)).toMatchObject({ tier: "anonymous", clientKey: "ip:198.51.100.7" });
    expect(await principalOf({ "x-real-ip": "198.51.100.9" })).toMatchObject({
      clientKey: "ip:198.51.100.9",
    });
  });

  it("keys IPv6 clients by their /56, or the configured prefix", async () => {
    const principalOf = await echoPrincipal({ IPV6_PREFIX_LENGTH: "48" }, "::1");
    expect(await principalOf({ "x-forwarded-for": "2001:db8:abcd:12ff::1" })).toMatchObject({
      clientKey: "ip:2001:db8:abcd::/48",
    });
  });

  it("groups an IPv6 peer (::1, not forwarded) under the default /56", async () => {
    const principalOf = await echoPrincipal({ TRUSTED_PROXIES: "10.0.0.1" }, "::1");
    expect(await principalOf({ "x-forwarded-for": "198.51.100.1" })).toMatchObject({ clientKey: "ip:::/56" });
  });

  it("prefers a key over every address header", async () => {
    const principalOf = await echoPrincipal({});
    const { key, keyId, accountId } = await issueKey(svc!, { tier: "premium" });
    expect(await principalOf({ "x-api-key": key, "x-forwarded-for": "198.51.100.1" })).toEqual({
      accountId,
      keyId,
      tier: "premium",
      clientKey: `key:${keyId}`,
    });
  });
});
