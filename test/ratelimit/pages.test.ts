import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../server/clock.js";
import { grpcJsStampClient, sha3 } from "../grpc/fixture.js";
import { unary } from "../helpers/grpc-js.js";
import { type RunningService, startService } from "../helpers/service.js";

// Pages people reload are not API calls: they have a budget of their own per client
// (PAGE_RATE_LIMIT_PER_MINUTE), and a browser refused anything gets an HTML page, not JSON.
// A manual clock: no tokens come back while a test runs.

const asBrowser = { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" };

let svc: RunningService | undefined;
afterEach(async () => {
  await svc?.close();
  svc = undefined;
});

async function start(env: Record<string, string> = {}): Promise<RunningService> {
  svc = await startService(env, { clock: new ManualClock() });
  return svc;
}
const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${svc!.baseUrl}${path}`, { headers });

describe("the page budget", () => {
  it("answers 30 quick reloads of a verification page from one address with 200 HTML", async () => {
    await start();
    const client = grpcJsStampClient(svc!);
    const { stamp } = await unary<{ stamp: { id: string } }>(client, "CreateStamp", {
      content_hash: sha3("reloaded"),
    });
    client.close();
    const id = stamp.id;
    for (let i = 0; i < 30; i++) {
      const res = await get(`/verify/${id}`, asBrowser);
      expect(res.status, `reload ${i + 1}`).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
      expect(res.headers.get("x-ratelimit-limit")).toBe("120");
      await res.text();
    }
    // None of it came out of the API budget (the stamp above cost its own).
    const api = await get("/presets");
    expect(api.status).toBe(200);
  });

  it("serves the dashboard, its counts and (from its own page) its log panel 30 times over", async () => {
    await start();
    for (let i = 0; i < 30; i++) {
      expect((await get("/dashboard", asBrowser)).status).toBe(200);
      expect((await get("/dashboard/stats", { "sec-fetch-site": "same-origin" })).status).toBe(200);
      expect((await get("/log", { "sec-fetch-site": "same-origin" })).status).not.toBe(429);
    }
  });

  it("charges the landing page to it: 30 quick reloads of / answer 200, the API budget untouched", async () => {
    await start();
    for (let i = 0; i < 30; i++) {
      const res = await get("/", asBrowser);
      expect(res.status, `reload ${i + 1}`).toBe(200);
      expect(res.headers.get("x-ratelimit-limit")).toBe("120");
      await res.text();
    }
    expect((await get("/presets")).headers.get("x-ratelimit-remaining")).toBe("4");
  });

  it("refuses beyond the budget with an HTML page to a browser, JSON to a program", async () => {
    await start({ PAGE_RATE_LIMIT_PER_MINUTE: "3" });
    for (let i = 0; i < 3; i++) expect((await get("/dashboard", asBrowser)).status).toBe(200);
    const page = await get("/dashboard", asBrowser);
    expect(page.status).toBe(429);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.headers.get("retry-after")).toBe("20");
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(page.headers.get("x-ratelimit-remaining")).toBe("0");
    const text = await page.text();
    expect(text).toContain("<h1>Too many requests</h1>");
    expect(text).toContain("Reload the page in 20 seconds.");
    const data = await get("/dashboard/stats");
    expect(data.status).toBe(429);
    expect(await data.json()).toMatchObject({ error: "rate_limit_exceeded", retry_after: 20 });
  });

  it("does not limit pages at all with PAGE_RATE_LIMIT_PER_MINUTE=0, and still labels them", async () => {
    await start({ PAGE_RATE_LIMIT_PER_MINUTE: "0" });
    for (let i = 0; i < 130; i++) {
      const res = await get("/dashboard/stats");
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    // The tier's own figures, not charged.
    expect((await get("/dashboard")).headers.get("x-ratelimit-remaining")).toBe("5");
  });
});

describe("an API refusal to a browser", () => {
  it("is the HTML 429 page when the request prefers HTML", async () => {
    await start();
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 6; i++) {
      last = await get("/stamps/stp_01JD3X7Q6V9M2K8T4R5N0B1C2D", asBrowser);
      statuses.push(last.status);
      if (i < 5) await last.arrayBuffer();
    }
    expect(statuses.at(-1)).toBe(429);
    expect(last!.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await last!.text()).toContain("Too many requests");
  });
});

describe("the log's checkpoints and tiles", () => {
  it("cost 0.1 each: an anonymous monitor reads 40 of them from a burst of 5", async () => {
    await start();
    const paths = ["/log", "/log/checkpoint", "/log/tiles/checkpoint", "/tsa/ca.pem"];
    for (let i = 0; i < 40; i++) {
      const res = await get(paths[i % paths.length]!);
      expect(res.status, `${paths[i % paths.length]} read ${i + 1}`).not.toBe(429);
      await res.arrayBuffer();
    }
    // 4.0 of 5 spent: one request of the default cost still passes, a second does not.
    expect((await get("/ws/stats")).status).toBe(200);
    expect((await get("/ws/stats")).status).toBe(429);
  });
});
