// stamp and verify messages against the stamps domain, and stamp events produced by REST calls,
// arriving on the right channels only.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { ids } from "./events.js";
import { TestClient } from "./ws-client.js";

const sha256 = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex")}`;
const STAMP_ID = /^stp_[0-9A-HJKMNP-TV-Z]{26}$/;

let svc: RunningService;
let alice: { key: string; accountId: string };
let bob: { key: string; accountId: string };

beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false" });
  alice = await issueKey(svc);
  bob = await issueKey(svc);
});
afterAll(async () => {
  await svc.close();
});

const asAlice = () => TestClient.connect(svc.baseUrl, { headers: { "X-API-Key": alice.key } });
const asBob = () => TestClient.connect(svc.baseUrl, { headers: { "X-API-Key": bob.key } });

describe("the stamp message", () => {
  it("answers stamp_created with the request id, and tells all_stamps and the account's user_stamps", async () => {
    const requester = await asAlice();
    const watcher = await TestClient.connect(svc.baseUrl);
    const mine = await asAlice();
    const theirs = await asBob();
    const vaults = await TestClient.connect(svc.baseUrl);
    await watcher.subscribe("all_stamps");
    await mine.subscribe("user_stamps");
    await theirs.subscribe("user_stamps");
    await vaults.subscribe("all_vaults");

    const contentHash = sha256("report");
    const reply = await requester.expectReply("stamp_created", {
      type: "stamp",
      data: { contentHash, metadata: { filename: "report.pdf" } },
    });
    expect(reply.id).toMatch(/^t\d+$/);
    expect(reply.data).toEqual({
      id: expect.stringMatching(STAMP_ID),
      contentHash,
      timestamp: expect.any(String),
      metadata: { filename: "report.pdf" },
    });

    const event = { type: "stamp_created", timestamp: expect.any(String), data: reply.data };
    expect(await watcher.drain()).toEqual([event]);
    expect(await mine.drain()).toEqual([event]);
    expect(await theirs.drain()).toEqual([]);
    expect(await vaults.drain()).toEqual([]);
    for (const c of [requester, watcher, mine, theirs, vaults]) c.close();
  });

  it("gives the requester its stamp_created once, as the reply, even when it follows all_stamps", async () => {
    const c = await asAlice();
    await c.subscribe("all_stamps");
    await c.subscribe("user_stamps");
    const reply = await c.expectReply("stamp_created", {
      type: "stamp",
      data: { contentHash: sha256("once") },
    });
    expect(reply.data.metadata).toEqual({});
    expect(await c.drain()).toEqual([]);
    c.close();
  });

  it("lets an anonymous connection stamp; its stamp reaches all_stamps but no user_stamps", async () => {
    const anonymous = await TestClient.connect(svc.baseUrl);
    const mine = await asAlice();
    await mine.subscribe("user_stamps");
    await anonymous.expectReply("stamp_created", { type: "stamp", data: { contentHash: sha256("anon") } });
    expect(await mine.drain()).toEqual([]);
    anonymous.close();
    mine.close();
  });

  it("answers metadata beyond the stamp limits with invalid_message", async () => {
    const c = await TestClient.connect(svc.baseUrl);
    const metadata = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, "v"]));
    const reply = await c.request({ type: "stamp", data: { contentHash: sha256("x"), metadata } });
    expect(reply).toMatchObject({ type: "error", data: { code: "invalid_message" } });
    c.close();
  });
});

describe("the verify message", () => {
  it("answers verification_result: verified for the stamp's hash, not for another", async () => {
    const c = await TestClient.connect(svc.baseUrl);
    const contentHash = sha256("contract");
    const created = await c.expectReply("stamp_created", { type: "stamp", data: { contentHash } });
    const match = await c.expectReply("verification_result", {
      type: "verify",
      data: { stampId: created.data.id, contentHash },
    });
    expect(match.data).toEqual({
      stampId: created.data.id,
      contentHash,
      verified: true,
      timestamp: created.data.timestamp,
    });
    const other = sha256("forged");
    const mismatch = await c.expectReply("verification_result", {
      type: "verify",
      data: { stampId: created.data.id, contentHash: other },
    });
    expect(mismatch.data).toMatchObject({ contentHash: other, verified: false });
    const otherAlgorithm = `sha3-256:${contentHash.slice("sha256:".length)}`;
    const wrongAlgorithm = await c.expectReply("verification_result", {
      type: "verify",
      data: { stampId: created.data.id, contentHash: otherAlgorithm },
    });
    expect(wrongAlgorithm.data.verified).toBe(false);
    c.close();
  });

  it("answers an unknown stamp with not_found", async () => {
    const c = await TestClient.connect(svc.baseUrl);
    const reply = await c.request({
      type: "verify",
      data: { stampId: ids.stampA, contentHash: sha256("x") },
    });
    expect(reply).toMatchObject({ type: "error", data: { code: "not_found" } });
    c.close();
  });
});

describe("stamps created over REST", () => {
  it("arrive on all_stamps and the creator's user_stamps, and nowhere else", async () => {
    const all = await TestClient.connect(svc.baseUrl);
    const mine = await asAlice();
    const theirs = await asBob();
    const other = await TestClient.connect(svc.baseUrl);
    await all.subscribe("all_stamps");
    await mine.subscribe("user_stamps");
    await theirs.subscribe("user_stamps");
    await other.subscribe("all_vaults");
    await other.subscribe("stamp", { stamp_id: ids.stampA });

    const form = new FormData();
    form.set("file", new Blob(["the document"]), "doc.txt");
    const res = await fetch(`${svc.baseUrl}/stamps`, {
      method: "POST",
      headers: { "X-API-Key": alice.key },
      body: form,
    });
    expect(res.status).toBe(201);
    const created = (await res.json()) as { stamp_id: string; document_hash: string; created_at: string };

    const expected = [`stamp_created:${created.stamp_id}`];
    const received = await all.drain();
    expect(received.map((m) => `${m.type}:${(m.data as { id: string }).id}`)).toEqual(expected);
    expect(received[0]?.data).toMatchObject({ contentHash: `sha3-256:${created.document_hash}` });
    expect((await mine.drain()).length).toBe(1);
    expect(await theirs.drain()).toEqual([]);
    expect(await other.drain()).toEqual([]);
    for (const c of [all, mine, theirs, other]) c.close();
  });
});

describe("rate limits on stamp and verify", () => {
  let limited: RunningService;
  beforeAll(async () => {
    limited = await startService({ RATE_LIMIT_ENABLED: "true" });
  });
  afterAll(async () => {
    await limited.close();
  });

  it("charges stamp like POST /stamps: an anonymous client's burst of 5 allows the upgrade and two stamps", async () => {
    const c = await TestClient.connect(limited.baseUrl);
    await c.expectReply("stamp_created", { type: "stamp", data: { contentHash: sha256("1") } });
    await c.expectReply("stamp_created", { type: "stamp", data: { contentHash: sha256("2") } });
    const refused = await c.request({ type: "stamp", data: { contentHash: sha256("3") } });
    expect(refused).toMatchObject({ type: "error", data: { code: "rate_limited" } });
    if (refused.type === "error") expect(refused.data.retryAfter).toBeGreaterThanOrEqual(1);
    const verify = await c.request({
      type: "verify",
      data: { stampId: ids.stampA, contentHash: sha256("1") },
    });
    expect(verify).toMatchObject({ type: "error", data: { code: "rate_limited" } });
    // Free messages stay free.
    expect((await c.expectReply("pong", { type: "ping" })).type).toBe("pong");
    c.close();
  });
});
