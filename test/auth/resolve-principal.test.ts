import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeys } from "../../server/auth/api-keys.js";
import { Authenticator } from "../../server/auth/authenticator.js";
import { ClientAddresses } from "../../server/auth/client-address.js";
import { ManualClock } from "../../server/clock.js";
import { SqliteStore } from "../../server/store/sqlite/sqlite-store.js";

const store = new SqliteStore(":memory:");
const keys = new ApiKeys(store.auth, new ManualClock());
const auth = new Authenticator(keys, new ClientAddresses(["127.0.0.1/8"], 56));
let bearer: { key: string; keyId: string; accountId: string };
let header: { key: string; keyId: string; accountId: string };

beforeAll(async () => {
  await store.migrate();
  bearer = await keys.create({ tier: "premium" });
  header = await keys.create({ tier: "internal" });
});
afterAll(() => store.close());

const proxied = { peerAddress: "127.0.0.1", forwardedFor: "198.51.100.1" };

describe("resolvePrincipal", () => {
  it("a Bearer key comes first, over X-API-Key and the address", async () => {
    const principal = await auth.resolvePrincipal({
      ...proxied,
      authorization: `Bearer ${bearer.key}`,
      apiKey: header.key,
    });
    expect(principal).toEqual({
      accountId: bearer.accountId,
      keyId: bearer.keyId,
      tier: "premium",
      clientKey: `key:${bearer.keyId}`,
    });
  });

  it("X-API-Key comes next, with the key's tier (internal keys get the internal tier)", async () => {
    const principal = await auth.resolvePrincipal({ ...proxied, apiKey: header.key });
    expect(principal).toMatchObject({
      keyId: header.keyId,
      tier: "internal",
      clientKey: `key:${header.keyId}`,
    });
  });

  it("without a key, the forwarded address from a trusted proxy, at the anonymous tier", async () => {
    expect(await auth.resolvePrincipal(proxied)).toEqual({
      accountId: null,
      keyId: null,
      tier: "anonymous",
      clientKey: "ip:198.51.100.1",
    });
  });

  it("without a key or forwarding headers, the peer", async () => {
    expect(await auth.resolvePrincipal({ peerAddress: "203.0.113.5" })).toMatchObject({
      clientKey: "ip:203.0.113.5",
    });
  });

  it("a bad Bearer key is refused even when X-API-Key holds a good one: X-API-Key is then ignored", async () => {
    await expect(
      auth.resolvePrincipal({ ...proxied, authorization: "Bearer svc_live_nope", apiKey: header.key }),
    ).rejects.toMatchObject({ reason: "invalid_api_key" });
  });

  it("a bad key never falls back to anonymous", async () => {
    await expect(auth.resolvePrincipal({ ...proxied, apiKey: "svc_live_nope" })).rejects.toMatchObject({
      code: "unauthenticated",
      reason: "invalid_api_key",
    });
  });

  it("the Bearer scheme is case-insensitive; other schemes and blank headers present no key", async () => {
    await expect(
      auth.resolvePrincipal({ ...proxied, authorization: `bearer ${bearer.key}` }),
    ).resolves.toMatchObject({
      keyId: bearer.keyId,
    });
    await expect(
      auth.resolvePrincipal({ ...proxied, authorization: "Basic dXNlcjpwYXNz", apiKey: header.key }),
    ).resolves.toMatchObject({ keyId: header.keyId });
    await expect(auth.resolvePrincipal({ ...proxied, apiKey: "  " })).resolves.toMatchObject({
      tier: "anonymous",
    });
  });
});
