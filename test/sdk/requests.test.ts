import { describe, expect, it } from "vitest";
import { createClient } from "../../sdk/src/index.js";
import { fakeFetch, json } from "./fake-fetch.js";

const vault = {
  id: "vlt_01JD3Y2B8C4D6E7F9G0H1J2K3M",
  state: "active",
  created_at: "2024-11-20T04:42:39.756Z",
  deadline: "2024-12-20T04:42:39.756Z",
  last_heartbeat: null,
  heartbeat_count: 0,
  content_uris: [],
  allow_manual_release: false,
  metadata: {},
  recipient_public_key: `ed25519:${"ab".repeat(32)}`,
  group_id: null,
};
const create = {
  encrypted_key: "AAAA",
  heartbeat_deadline: 3600,
  recipient_public_key: `ed25519:${"ab".repeat(32)}`,
};

describe("idempotency keys", () => {
  it("one key per POST call, the same on each of its retries", async () => {
    const { fetch, seen } = fakeFetch(
      json(503, { detail: "busy" }, { "retry-after": "0" }),
      json(201, vault),
    );
    await createClient({ baseUrl: "http://stampd.test", fetch }).vault.create(create);
    const keys = seen.map((s) => s.headers.get("idempotency-key"));
    expect(keys[0]).toMatch(/^stampd-sdk-[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
  });

  it("a different key for each call", async () => {
    const { fetch, seen } = fakeFetch(json(201, vault));
    const stampd = createClient({ baseUrl: "http://stampd.test", fetch });
    await stampd.vault.create(create);
    await stampd.vault.create(create);
    expect(seen[0]!.headers.get("idempotency-key")).not.toBe(seen[1]!.headers.get("idempotency-key"));
  });

  it("the caller's own key when given, and none on a GET", async () => {
    const { fetch, seen } = fakeFetch(json(201, vault));
    const stampd = createClient({ baseUrl: "http://stampd.test", fetch });
    await stampd.vault.create(create, { idempotencyKey: "order-42" });
    await stampd.vault.get(vault.id);
    expect(seen.map((s) => s.headers.get("idempotency-key"))).toEqual(["order-42", null]);
  });
});

describe("headers", () => {
  it("sends the key as a Bearer token, the client's headers and the call's headers", async () => {
    const { fetch, seen } = fakeFetch(json(200, []));
    const stampd = createClient({
      baseUrl: "http://stampd.test",
      apiKey: "svc_test_k",
      fetch,
      headers: { "x-app": "a" },
    });
    await stampd.presets.list({ headers: { Prefer: "code=200" } });
    const headers = seen[0]!.headers;
    expect([headers.get("authorization"), headers.get("x-app"), headers.get("prefer")]).toEqual([
      "Bearer svc_test_k",
      "a",
      "code=200",
    ]);
  });

  it("sends no Authorization without a key", async () => {
    const { fetch, seen } = fakeFetch(json(200, []));
    await createClient({ baseUrl: "http://stampd.test", fetch }).presets.list();
    expect(seen[0]!.headers.has("authorization")).toBe(false);
  });

  it("builds paths and queries from the spec's parameters", async () => {
    const { fetch, seen } = fakeFetch(json(200, { items: [], total: 0, limit: 5, offset: 10 }));
    await createClient({ baseUrl: "http://stampd.test/", fetch }).explorer.vaults({
      limit: 5,
      offset: 10,
      state: "active",
    });
    expect(seen[0]!.url.toString()).toBe(
      "http://stampd.test/explorer/api/vaults?limit=5&state=active&offset=10",
    );
  });
});
