import { describe, expect, it } from "vitest";
import { createClient } from "../../sdk/src/index.js";
import { fakeFetch, json, type Seen } from "./fake-fetch.js";

const TOTAL = 5;
const item = (n: number) => ({
  id: `vlt_${String(n).padStart(26, "0")}`,
  state: "active",
  deadline: "2024-12-01T00:00:00.000Z",
  heartbeat_count: n,
});

/** A server holding TOTAL vaults that pages them by `limit` and `offset`. */
function pagingServer(seen: () => Seen[]) {
  return () => {
    const url = seen().at(-1)!.url;
    const limit = Number(url.searchParams.get("limit") ?? 50);
    const offset = Number(url.searchParams.get("offset") ?? 0);
    const items = Array.from({ length: Math.max(0, Math.min(limit, TOTAL - offset)) }, (_, i) =>
      item(offset + i),
    );
    return json(200, { items, total: TOTAL, limit, offset });
  };
}

function client() {
  const fake = fakeFetch(pagingServer(() => fake.seen));
  return {
    stampd: createClient({ baseUrl: "http://stampd.test", apiKey: "svc_test_k", fetch: fake.fetch }),
    seen: fake.seen,
  };
}

describe("lists", () => {
  it("awaiting a list gives its first page", async () => {
    const { stampd, seen } = client();
    const page = await stampd.vault.list({ limit: 2 });
    expect(page.items.map((v) => v.heartbeat_count)).toEqual([0, 1]);
    expect([page.total, page.hasNextPage()]).toEqual([TOTAL, true]);
    expect(seen).toHaveLength(1);
  });

  it("for await goes through every page, each fetched once", async () => {
    const { stampd, seen } = client();
    const counts: number[] = [];
    for await (const vault of stampd.vault.list({ limit: 2 })) counts.push(vault.heartbeat_count);
    expect(counts).toEqual([0, 1, 2, 3, 4]);
    expect(seen.map((s) => s.url.searchParams.get("offset"))).toEqual(["0", "2", "4"]);
  });

  it("starts at the given offset and keeps the filter on every page", async () => {
    const { stampd, seen } = client();
    const counts: number[] = [];
    for await (const vault of stampd.explorer.vaults({ limit: 2, offset: 3, state: "active" }))
      counts.push(vault.heartbeat_count);
    expect(counts).toEqual([3, 4]);
    expect(seen.every((s) => s.url.searchParams.get("state") === "active")).toBe(true);
  });

  it("pages by hand with nextPage()", async () => {
    const { stampd } = client();
    const first = await stampd.explorer.vaults({ limit: 3 });
    const second = await first.nextPage();
    expect([second.offset, second.items.length, second.hasNextPage()]).toEqual([3, 2, false]);
  });
});
