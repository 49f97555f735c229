// client.stamps.search() against a real service on SQLite and on PostgreSQL: a page, the next
// pages by cursor, every match with `for await`, and a refused hash as a typed error.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BadRequestError, createClient, type StampdClient } from "../../sdk/src/index.js";
import { engines, type SearchFixture, searchFixture } from "../stamps/search-fixture.js";

describe.each(engines)("client.stamps.search() on %s", (engine) => {
  let fx: SearchFixture;
  let client: StampdClient;
  beforeAll(async () => {
    fx = await searchFixture(engine, { RATE_LIMIT_ENABLED: "false" });
    client = createClient({ baseUrl: fx.svc.baseUrl, maxRetries: 0 });
  });
  afterAll(() => fx?.close());

  const newestFirst = () => [...fx.sha3Ids].reverse();

  it("awaits one page with the body's fields and whether another follows", async () => {
    const page = await client.stamps.search({ hash: `sha3-256:${fx.sha3}`, limit: 3 });
    expect(page.hash).toBe(`sha3-256:${fx.sha3}`);
    expect(page.items.map((i) => i.stamp_id)).toEqual(newestFirst().slice(0, 3));
    expect(page.next_cursor).toBe(fx.sha3Ids[2]);
    expect(page.hasNextPage()).toBe(true);
    const next = await page.nextPage();
    expect(next.items.map((i) => i.stamp_id)).toEqual(newestFirst().slice(3));
    expect(next.hasNextPage()).toBe(false);
    // A page serialises as the API's body (what `stampd search --json` prints).
    expect(JSON.parse(JSON.stringify(next))).toEqual({
      hash: `sha3-256:${fx.sha3}`,
      items: next.items,
      limit: 3,
      next_cursor: null,
    });
  });

  it("iterates every match across pages with for await", async () => {
    const ids: string[] = [];
    for await (const match of client.stamps.search({ hash: `sha3-256:${fx.sha3}`, limit: 2 })) {
      ids.push(match.stamp_id);
    }
    expect(ids).toEqual(newestFirst());
  });

  it("starts after a given cursor", async () => {
    const page = await client.stamps.search({ hash: `sha3-256:${fx.sha3}`, cursor: fx.sha3Ids[1] });
    expect(page.items.map((i) => i.stamp_id)).toEqual([fx.sha3Ids[0]]);
  });

  it("rejects a malformed hash with BadRequestError", async () => {
    const err = await client.stamps.search({ hash: "sha3-256:xyz" }).then(
      () => expect.fail("answered"),
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(BadRequestError);
    expect((err as BadRequestError).status).toBe(400);
  });
});
