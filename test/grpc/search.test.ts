// SearchStamps through @grpc/grpc-js (a client that never saw our generated code), against a real
// service on SQLite and on PostgreSQL: the same stamps, order and paging as REST GET /stamps?hash=.
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GrpcJsClient, grpcJsClient, unary } from "../helpers/grpc-js.js";
import { engines, type SearchFixture, searchFixture } from "../stamps/search-fixture.js";

interface SearchResponse {
  content_hash: string;
  stamps: { id: string; timestamp: { seconds: string; nanos: number } }[];
  next_page_token: string;
}

describe.each(engines)("SearchStamps over grpc-js on %s", (engine) => {
  let fx: SearchFixture;
  let client: GrpcJsClient;
  beforeAll(async () => {
    // Limits out of the way: this suite is about answers (charging is checked below with its own).
    fx = await searchFixture(engine, { RATE_LIMIT_ENABLED: "false" });
    client = grpcJsClient("svc/v1/stamp.proto", "svc.v1.StampService", fx.svc.grpcPort);
  });
  afterAll(async () => {
    client?.close();
    await fx?.close();
  });

  const search = (req: object) => unary<SearchResponse>(client, "SearchStamps", req);
  const refusal = (req: object) =>
    search(req).then(
      () => expect.fail("answered"),
      (err: grpc.ServiceError) => err,
    );

  it("lists the stamps of the hash newest first, with their creation times", async () => {
    const res = await search({ content_hash: `sha3-256:${fx.sha3.toUpperCase()}` });
    expect(res.content_hash).toBe(`sha3-256:${fx.sha3}`);
    expect(res.stamps.map((s) => s.id)).toEqual([...fx.sha3Ids].reverse());
    const times = res.stamps.map(
      (s) => new Date(Number(s.timestamp.seconds) * 1000 + s.timestamp.nanos / 1e6),
    );
    expect(times.map((t) => t.toISOString())).toEqual([...fx.sha3Times].reverse());
    expect(res.next_page_token).toBe("");
  });

  it("pages with page_size and next_page_token", async () => {
    const seen: string[] = [];
    let page_token = "";
    let pages = 0;
    do {
      const res = await search({ content_hash: `sha3-256:${fx.sha3}`, page_size: 2, page_token });
      seen.push(...res.stamps.map((s) => s.id));
      page_token = res.next_page_token;
      pages++;
    } while (page_token !== "");
    expect(seen).toEqual([...fx.sha3Ids].reverse());
    expect(pages).toBe(3);
  });

  it("keeps algorithms apart and answers an unknown hash with no stamps", async () => {
    const labelled = await search({ content_hash: fx.sha256Label.hash });
    expect(labelled.stamps.map((s) => s.id)).toEqual([fx.sha256Label.id]);
    expect((await search({ content_hash: `blake3:${"f".repeat(64)}` })).stamps).toEqual([]);
  });

  it.each([
    [{ content_hash: "" }, /content_hash: required/],
    [{ content_hash: `md5:${"a".repeat(32)}` }, /content_hash: unknown algorithm "md5"/],
    [{ content_hash: `sha256:${"a".repeat(64)}`, page_size: 501 }, /page_size: .*500, got 501/],
    [{ content_hash: `sha256:${"a".repeat(64)}`, page_size: -1 }, /page_size/],
    [{ content_hash: `sha256:${"a".repeat(64)}`, page_token: "nope" }, /page_token/],
  ])("refuses %o with INVALID_ARGUMENT naming the field", async (req, message) => {
    const err = await refusal(req);
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(err.details).toMatch(message);
  });
});

describe("SearchStamps rate limiting", () => {
  let fx: SearchFixture;
  beforeAll(async () => {
    fx = await searchFixture("sqlite");
  });
  afterAll(() => fx?.close());

  it("costs what GetStamp costs: an anonymous burst of 5 holds two, the third is RESOURCE_EXHAUSTED", async () => {
    const client = grpcJsClient("svc/v1/stamp.proto", "svc.v1.StampService", fx.svc.grpcPort);
    try {
      const req = { content_hash: `sha3-256:${fx.sha3}` };
      await unary(client, "SearchStamps", req);
      await unary(client, "SearchStamps", req);
      const err = await unary(client, "SearchStamps", req).then(
        () => expect.fail("answered"),
        (e: grpc.ServiceError) => e,
      );
      expect(err.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    } finally {
      client.close();
    }
  });
});
