import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { encryptedKey, newRecipient } from "../vault/fixture.js";

// GET / (the landing page for browsers, the root object for everyone else) and GET /explorer over
// HTTP, without a browser: content negotiation, headers, the list's filter and paging links.

const BASE = "https://stampd.example.com/prefix";
const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8";
let svc: RunningService;
const vaults: string[] = [];

beforeAll(async () => {
  svc = await startService({ SERVICE_BASE_URL: BASE, RATE_LIMIT_ENABLED: "false" });
  const { key } = await issueKey(svc);
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`${svc.baseUrl}/vault/create`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({
        encrypted_key: encryptedKey,
        heartbeat_deadline: 86_400,
        recipient_public_key: newRecipient().publicKey,
      }),
    });
    expect(res.status).toBe(201);
    vaults.unshift((await res.json()).id);
  }
});
afterAll(() => svc.close());

const get = (path: string, accept?: string) =>
  fetch(`${svc.baseUrl}${path}`, { headers: accept === undefined ? {} : { accept } });

describe("GET /", () => {
  it.each([
    ["a browser", BROWSER_ACCEPT],
    ["text/html alone", "text/html"],
  ])("answers %s with the landing page", async (_name, accept) => {
    const res = await get("/", accept);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("vary")).toMatch(/\bAccept\b/);
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    const page = await res.text();
    expect(page).toContain("<h1>stampd</h1>");
    for (const path of ["explorer", "dashboard", "docs"]) expect(page).toContain(`href="${BASE}/${path}"`);
  });

  it.each([
    ["no Accept", undefined],
    ["*/*", "*/*"],
    ["application/json", "application/json"],
    ["JSON preferred to HTML", "application/json, text/html;q=0.5"],
    ["a type it does not serve", "image/png"],
  ])("answers %s with the root object", async (_name, accept) => {
    // fetch sends */* when no Accept is given; curl and most clients do the same.
    const res = await get("/", accept);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(res.headers.get("vary")).toMatch(/\bAccept\b/);
    expect(await res.json()).toMatchObject({
      name: "stampd",
      docs: "/docs",
      health: "/health",
      dashboard: "/dashboard",
      explorer: "/explorer",
    });
  });
});

describe("GET /explorer", () => {
  it("renders the vaults newest first with the statistics, under the page CSP", async () => {
    const res = await get("/explorer", BROWSER_ACCEPT);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("content-security-policy")).toContain(
      "connect-src 'self' https://stampd.example.com wss://stampd.example.com",
    );
    const page = await res.text();
    const listed = [...page.matchAll(/data-vault="([^"]+)"/g)].map((m) => m[1]);
    expect(listed).toEqual(vaults);
    expect(page).toContain('<dd data-stat="total_vaults">3</dd>');
    expect(page).toContain("Vaults 1–3 of 3, newest first");
    expect(page).toContain(`data-socket-url="wss://stampd.example.com/prefix/ws"`);
    expect(page).toContain(`src="${BASE}/pages/assets/explorer.js"`);
    expect(page).not.toMatch(/<style|style=|\son[a-z]+=/i);
  });

  it("pages through the list with links that keep the filter", async () => {
    const first = await (await get("/explorer?state=active&limit=2")).text();
    expect([...first.matchAll(/data-vault="([^"]+)"/g)].map((m) => m[1])).toEqual(vaults.slice(0, 2));
    expect(first).toContain("Active vaults 1–2 of 3, newest first");
    expect(first).toContain(`href="${BASE}/explorer?state=active&amp;offset=2&amp;limit=2" rel="next"`);
    expect(first).toContain(`<a href="${BASE}/explorer?state=active" aria-current="page">Active</a>`);
    const second = await (await get("/explorer?state=active&offset=2&limit=2")).text();
    expect([...second.matchAll(/data-vault="([^"]+)"/g)].map((m) => m[1])).toEqual(vaults.slice(2));
    expect(second).toContain(`href="${BASE}/explorer?state=active&amp;limit=2" rel="prev"`);
    const burned = await (await get("/explorer?state=burned")).text();
    expect(burned).toContain("Burned vaults: none yet.");
  });

  it("refuses a malformed query with the JSON 400 of every operation", async () => {
    for (const query of ["state=gone", "limit=0", "limit=101", "offset=-1", "page=2"]) {
      const res = await get(`/explorer?${query}`, BROWSER_ACCEPT);
      expect(res.status).toBe(400);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    }
  });
});
