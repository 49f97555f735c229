import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { components } from "../../gen/openapi/types.js";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { createStamp, sha3 } from "../stamps/helpers.js";
import { encryptedKey, newRecipient } from "../vault/fixture.js";

// The pages over HTTP, without a browser: headers, links built from SERVICE_BASE_URL (here with a
// path prefix, as behind a proxy), escaping in the HTML source, assets, and the dashboard's counts.

const BASE = "https://stampd.example.com/prefix";
let svc: RunningService;

beforeAll(async () => {
  // Hourly batches: the stamps stay pending, so the page's text is stable while it is read.
  svc = await startService({
    SERVICE_BASE_URL: BASE,
    RATE_LIMIT_ENABLED: "false",
    BATCH_INTERVAL_MS: "3600000",
  });
});
afterAll(() => svc.close());

const get = (path: string) => fetch(`${svc.baseUrl}${path}`);

describe("GET /verify/{stamp_id}", () => {
  it("sends the page with a strict CSP that names only this service", async () => {
    const stamp = await createStamp(svc, "headers");
    const res = await get(`/verify/${stamp.stamp_id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const csp = res.headers.get("content-security-policy")!;
    expect(csp.split("; ")).toEqual(
      expect.arrayContaining([
        "default-src 'none'",
        "script-src 'self' https://stampd.example.com",
        "style-src 'self' https://stampd.example.com",
        "connect-src 'self' https://stampd.example.com wss://stampd.example.com",
        "frame-ancestors 'none'",
        "require-trusted-types-for 'script'",
      ]),
    );
    expect(csp).not.toMatch(/unsafe|\*/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("builds every link and asset from SERVICE_BASE_URL and has no inline script or style", async () => {
    const stamp = await createStamp(svc, "links");
    const page = await (await get(`/verify/${stamp.stamp_id}`)).text();
    const urls = [...page.matchAll(/(?:href|src)="([^"]*)"/g)].map((m) => m[1]!);
    expect(urls.filter((u) => !u.startsWith(`${BASE}/`) && u !== "#main" && u !== "data:,")).toEqual([]);
    expect(urls).toContain(`${BASE}/pages/assets/verify.js`);
    expect(urls).toContain(`${BASE}/stamps/${stamp.stamp_id}`);
    expect(page.match(/<script/g)).toHaveLength(1);
    expect(page).toMatch(/<script type="module" src="[^"]+"><\/script>/);
    expect(page).not.toMatch(/<style|style=|\son[a-z]+=/i);
  });

  it("escapes a stamp's description, metadata and version in the HTML source", async () => {
    const hostile = `<script>alert(1)</script>"'&`;
    const escaped = "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;";
    const view = await svc.service.stamps.service.createFromHash({
      contentHash: { algorithm: "sha3-256", hex: sha3("hostile") },
      accountId: null,
      description: hostile,
      metadata: { [hostile]: hostile },
      version: hostile,
    });
    const page = await (await get(`/verify/${view.stamp.id}`)).text();
    expect(page).not.toContain("<script>alert");
    expect(page.split(escaped)).toHaveLength(5);
  });

  it("shows a batch-signed stamp's signature as valid, and that one signature covers its batch", async () => {
    const made = await svc.service.stamps.service.createManyFromHash(
      ["one", "two", "three"].map((text) => ({
        contentHash: { algorithm: "sha3-256", hex: sha3(text) },
        accountId: null,
      })),
    );
    const id = (made[2] as { stamp: { id: string } }).stamp.id;
    const page = await (await get(`/verify/${id}`)).text();
    expect(page).toContain(
      "<li>Service signature: valid (one signature for a batch of 3 stamps, over their Merkle root)</li>",
    );
  });

  it("says the first key signs since the deployment began, not from the epoch its period opens at", async () => {
    const stamp = await createStamp(svc, "the first key's period");
    const page = await (await get(`/verify/${stamp.stamp_id}`)).text();
    expect(page).toContain("active: signing since the deployment began (the active key)");
    expect(page).not.toContain("1970-01-01");
  });

  it("answers 404 with the HTML page for unknown, malformed and very long ids", async () => {
    for (const id of ["stp_00000000000000000000000000", "nope", "%3Cscript%3E", "x".repeat(2000)]) {
      const res = await get(`/verify/${id}`);
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
      expect(await res.text()).toContain("<h1>Stamp not found</h1>");
    }
  });
});

describe("GET /dashboard and /dashboard/stats", () => {
  it("counts stamps and vaults by state", async () => {
    const before: components["schemas"]["DashboardStats"] = await (await get("/dashboard/stats")).json();
    await createStamp(svc, "counted");
    const { key } = await issueKey(svc);
    const vault = await fetch(`${svc.baseUrl}/vault/create`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({
        encrypted_key: encryptedKey,
        heartbeat_deadline: 86_400,
        recipient_public_key: newRecipient().publicKey,
      }),
    });
    expect(vault.status).toBe(201);
    const after: components["schemas"]["DashboardStats"] = await (await get("/dashboard/stats")).json();
    expect(after.stamps.total).toBe(before.stamps.total + 1);
    expect(after.stamps.per_minute.counts.at(-1)).toBeGreaterThanOrEqual(1);
    expect(after.vaults).toMatchObject({ total: before.vaults.total + 1, active: before.vaults.active + 1 });
    expect(after.fees.currency).toBe("USDC");
  });

  it("renders the page with the counts and the addresses its script uses", async () => {
    const res = await get("/dashboard");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toContain(
      "connect-src 'self' https://stampd.example.com wss://stampd.example.com",
    );
    const page = await res.text();
    expect(page).toContain(`data-socket-url="wss://stampd.example.com/prefix/ws"`);
    expect(page).toContain(`data-stats-url="${BASE}/dashboard/stats"`);
    expect(page).toMatch(/<dd data-count="stamps">\d+<\/dd>/);
  });
});

describe("page assets", () => {
  it("serves the bundled scripts and the stylesheet, unmetered", async () => {
    const limited = await startService({ RATE_LIMIT_ENABLED: "true" });
    try {
      for (let i = 0; i < 8; i++) {
        for (const [path, type] of [
          ["/pages/assets/verify.js", "text/javascript; charset=utf-8"],
          ["/pages/assets/dashboard.js", "text/javascript; charset=utf-8"],
          ["/pages/assets/pages.css", "text/css; charset=utf-8"],
        ] as const) {
          const res = await fetch(`${limited.baseUrl}${path}`);
          expect([res.status, res.headers.get("content-type")]).toEqual([200, type]);
          // Labelled with the caller's figures, as every response is, and nothing taken.
          expect(res.headers.get("x-ratelimit-remaining")).toBe("5");
          expect(res.headers.get("x-content-type-options")).toBe("nosniff");
        }
      }
      expect((await fetch(`${limited.baseUrl}/pages/assets/missing.js`)).status).toBe(404);
    } finally {
      await limited.close();
    }
  });

  it("bundles @noble/hashes into the verification page's script, importing nothing else but its proof bundle code on demand", async () => {
    const script = await (await get("/pages/assets/verify.js")).text();
    expect(script).not.toMatch(/\bimport\s*[{"']/);
    // One import, on the proof bundle button's click, of the script the page names (this service's).
    expect(script.match(/\bimport\(/g)).toHaveLength(1);
    expect(script).toMatch(/blake3|BLAKE3/);
    const bundle = await (await get("/pages/assets/proof-bundle.js")).text();
    expect(bundle).not.toMatch(/\bimport\s*[{"']/);
    // The SDK's lazy Node-only paths (gRPC transport, reading a file by path), never taken in a browser.
    const lazy = [...bundle.matchAll(/\bimport\("([^"]+)"\)/g)].map((m) => m[1]);
    expect(new Set(lazy)).toEqual(new Set(["@connectrpc/connect-node", "node:fs"]));
    expect(bundle.match(/\bimport\(/g)).toHaveLength(lazy.length);
    expect(bundle).toContain("stampd.json");
  });
});
