// GET /stamps?hash= against a real service on SQLite and on PostgreSQL: newest first, paged by
// cursor, the algorithm part of the hash, public to every caller, charged like GET /stamps/{id},
// refusals in the spec's error shape, and the page read through the index of migration 0010.
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGrpcClient } from "../../sdk/src/index.js";
import { engines, type SearchFixture, searchFixture, sha256Hex } from "./search-fixture.js";

interface SearchPage {
  hash: string;
  items: { stamp_id: string; created_at: string; verify_url: string }[];
  limit: number;
  next_cursor: string | null;
}

describe.each(engines)("GET /stamps?hash= on %s", (engine) => {
  let fx: SearchFixture;
  beforeAll(async () => {
    fx = await searchFixture(engine);
  });
  afterAll(() => fx?.close());

  // Each request from an address of its own, so the anonymous budget (burst 5, 2.0 a search)
  // never runs out in the middle of a test that is not about it.
  let client = 0;
  const search = (query: string, headers: Record<string, string> = {}) =>
    fetch(`${fx.svc.baseUrl}/stamps?${query}`, {
      headers: { "x-forwarded-for": `198.51.100.${++client}`, ...headers },
    });
  const page = async (query: string, headers?: Record<string, string>) => {
    const res = await search(query, headers);
    expect(res.status).toBe(200);
    return (await res.json()) as SearchPage;
  };

  it("lists every stamp of the hash, newest first, with when and where to verify it", async () => {
    const body = await page(`hash=sha3-256:${fx.sha3}`);
    expect(body.hash).toBe(`sha3-256:${fx.sha3}`);
    expect(body.items.map((i) => i.stamp_id)).toEqual([...fx.sha3Ids].reverse());
    expect(body.items.map((i) => i.created_at)).toEqual([...fx.sha3Times].reverse());
    expect(body.items[0]!.verify_url).toMatch(new RegExp(`/verify/${fx.sha3Ids[4]}$`));
    expect(body).toMatchObject({ limit: 50, next_cursor: null });
  });

  it("pages by cursor until the last page, which has no cursor", async () => {
    const seen: string[] = [];
    const cursors: (string | null)[] = [];
    let query = `hash=sha3-256:${fx.sha3}&limit=2`;
    for (;;) {
      const body = await page(query);
      seen.push(...body.items.map((i) => i.stamp_id));
      cursors.push(body.next_cursor);
      if (body.next_cursor === null) break;
      query = `hash=sha3-256:${fx.sha3}&limit=2&cursor=${body.next_cursor}`;
    }
    expect(seen).toEqual([...fx.sha3Ids].reverse());
    expect(cursors).toEqual([fx.sha3Ids[3], fx.sha3Ids[1], null]);
  });

  it("takes upper-case hex and answers in lower case", async () => {
    const body = await page(`hash=sha3-256:${fx.sha3.toUpperCase()}`);
    expect(body.hash).toBe(`sha3-256:${fx.sha3}`);
    expect(body.items).toHaveLength(5);
  });

  it("matches the algorithm too: the same hex under sha256 is another document", async () => {
    const body = await page(`hash=${fx.sha256Label.hash}`);
    expect(body.items.map((i) => i.stamp_id)).toEqual([fx.sha256Label.id]);
    expect((await page(`hash=blake3:${fx.sha3}`)).items).toEqual([]);
  });

  it("finds uploads by their content's SHA-256 too, newest first beside stamps of that SHA-256, paged", async () => {
    const sha256 = `sha256:${sha256Hex(fx.document)}`;
    const grpc = createGrpcClient({ baseUrl: fx.svc.grpcUrl, apiKey: fx.owner });
    const { stamp } = await grpc.createStamp({ contentHash: sha256 });
    const newestFirst = [stamp!.id, ...[...fx.sha3Ids].reverse()];
    expect((await page(`hash=${sha256}`)).items.map((i) => i.stamp_id)).toEqual(newestFirst);
    const seen: string[] = [];
    let query = `hash=${sha256}&limit=4`;
    for (;;) {
      const body = await page(query);
      seen.push(...body.items.map((i) => i.stamp_id));
      if (body.next_cursor === null) break;
      query = `hash=${sha256}&limit=4&cursor=${body.next_cursor}`;
    }
    expect(seen).toEqual(newestFirst);
    // Only a SHA-256 looks beside the document's hash: the uploads' SHA-256 under blake3 is no match.
    expect((await page(`hash=blake3:${sha256Hex(fx.document)}`)).items).toEqual([]);
  });

  it("answers a hash never stamped with an empty page, not 404", async () => {
    const body = await page(`hash=sha256:${"0".repeat(64)}`);
    expect(body).toEqual({ hash: `sha256:${"0".repeat(64)}`, items: [], limit: 50, next_cursor: null });
  });

  it("is public: anonymous callers and other accounts see the owner's stamps alike", async () => {
    const query = `hash=sha3-256:${fx.sha3}`;
    const owner = await page(query, { authorization: `Bearer ${fx.owner}` });
    expect(await page(query, { "x-api-key": fx.stranger })).toEqual(owner);
    expect(await page(query)).toEqual(owner);
  });

  it("still refuses a bad key with 401, as every operation does", async () => {
    const res = await search(`hash=sha3-256:${fx.sha3}`, { authorization: "Bearer svc_live_nope" });
    expect(res.status).toBe(401);
  });

  it.each([
    ["no hash", ""],
    ["an unknown algorithm", `hash=md5:${"a".repeat(32)}`],
    ["no algorithm", `hash=${"a".repeat(64)}`],
    ["a short digest", `hash=sha256:${"a".repeat(63)}`],
    ["limit 0", `hash=sha256:${"a".repeat(64)}&limit=0`],
    ["limit 501", `hash=sha256:${"a".repeat(64)}&limit=501`],
    ["a malformed cursor", `hash=sha256:${"a".repeat(64)}&cursor=stp_nope`],
    ["an unknown parameter", `hash=sha256:${"a".repeat(64)}&offset=3`],
  ])("answers %s with 400 validation_failed in the Error shape", async (_name, query) => {
    const res = await search(query);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { detail: string; code: string };
    expect(body.code).toBe("validation_failed");
    expect(body.detail.length).toBeGreaterThan(0);
  });

  it("is charged what GET /stamps/{stamp_id} is charged", async () => {
    const remainingAfter = async (path: string, client: string) =>
      (await fetch(`${fx.svc.baseUrl}${path}`, { headers: { "x-forwarded-for": client } })).headers.get(
        "x-ratelimit-remaining",
      );
    const afterGet = await remainingAfter(`/stamps/${fx.sha3Ids[0]}`, "203.0.113.1");
    const afterSearch = await remainingAfter(`/stamps?hash=sha3-256:${fx.sha3}`, "203.0.113.2");
    const afterPresets = await remainingAfter("/presets", "203.0.113.3");
    expect(afterSearch).toBe(afterGet);
    expect(afterSearch).not.toBe(afterPresets);
  });

  it("is linked from the verification page of each stamp", async () => {
    const res = await fetch(`${fx.svc.baseUrl}/verify/${fx.sha3Ids[0]}`, {
      headers: { accept: "text/html" },
    });
    const link = /<a href="([^"]*\/stamps\?hash=[^"]*)"[^>]*>Every stamp of this document<\/a>/.exec(
      await res.text(),
    );
    expect(link).not.toBeNull();
    const url = link![1]!.replaceAll("&amp;", "&");
    const body = (await (await fetch(url.replace(/^https?:\/\/[^/]+/, fx.svc.baseUrl))).json()) as SearchPage;
    expect(body.items.map((i) => i.stamp_id)).toEqual([...fx.sha3Ids].reverse());
  });

  it("reads the page through the hash index, not by scanning the stamps", async () => {
    expect(await queryPlan(fx, engine)).toContain("stamps_hash_search");
  });

  it("reads uploads by SHA-256 through the index of migration 0016", async () => {
    const where = "content_sha256 = 'x' AND id < 'stp_Z' ORDER BY id DESC LIMIT 51";
    expect(await queryPlan(fx, engine, where)).toContain("stamps_content_sha256_search");
  });
});

/** The plan of the store's search statement, as the engine would run it. */
async function queryPlan(
  fx: SearchFixture,
  engine: string,
  where = "document_hash = 'x' AND hash_algorithm = 'sha256' AND id < 'stp_Z' ORDER BY id DESC LIMIT 51",
): Promise<string> {
  if (engine === "sqlite") {
    const db = new Database(`${fx.svc.dataDir}/stampd.db`, { readonly: true });
    try {
      const rows = db.prepare(`EXPLAIN QUERY PLAN SELECT id, created_at FROM stamps WHERE ${where}`).all();
      return JSON.stringify(rows);
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: fx.svc.config.DATABASE_URL });
  await client.connect();
  try {
    // A handful of rows would make any plan a scan: as at scale, make scanning the costly choice.
    await client.query("SET enable_seqscan = off");
    const { rows } = await client.query(`EXPLAIN SELECT id, created_at FROM stamps WHERE ${where}`);
    return JSON.stringify(rows);
  } finally {
    await client.end();
  }
}
