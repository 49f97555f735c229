import { createHash } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { parseCheckpoint } from "../../core/checkpoint.js";
import { stampLeafData } from "../../core/stamp-leaf.js";
import type { AnyDomainEvent } from "../../server/events/bus.js";
import { merkle } from "../../server/fingerprints/merkle.js";
import { splitHashes } from "../../server/store/rows/proof-rows.js";
import { grpcJsClient, unary } from "../helpers/grpc-js.js";
import type { RunningService } from "../helpers/service.js";
import { Cluster, recordEvents, tally } from "./cluster.js";

// Stamps made on two instances while both seal batches (timers every 50 ms, and explicit passes):
// every stamp ends in exactly one batch with a proof that verifies, and the log is one sequence.
// The clock is the database's (no test clock here).
const total = 10_000;
const perCall = 1000;

let cluster: Cluster;
let a: RunningService;
let b: RunningService;
let db: pg.Pool;
const events = new Map<RunningService, AnyDomainEvent[]>();
beforeAll(async () => {
  cluster = await Cluster.start(2, {
    RATE_LIMIT_ENABLED: "false",
    BATCH_MAX: "500",
    BATCH_INTERVAL_MS: "50",
  });
  [a, b] = cluster.instances as [RunningService, RunningService];
  for (const instance of [a, b]) events.set(instance, recordEvents(instance));
  db = new pg.Pool({ connectionString: cluster.databaseUrl, max: 1 });
});
afterAll(async () => {
  await db?.end();
  await cluster?.close();
});

const count = async (sql: string) => Number((await db.query(sql)).rows[0].n);
const passes = () => Promise.all([a, b].map((instance) => instance.service.proofs.pipeline.tick()));

/** `BatchStamp` of `items` hashes on one instance, through an independent gRPC client. */
async function batchStamp(instance: RunningService, first: number, items: number): Promise<string[]> {
  const client = grpcJsClient("svc/v1/stamp.proto", "svc.v1.StampService", instance.grpcPort);
  try {
    const hashes = Array.from({ length: items }, (_, i) => ({
      content_hash: `sha256:${createHash("sha256")
        .update(`doc ${first + i}`)
        .digest("hex")}`,
    }));
    const res = await unary<{ stamps: { id: string }[] }>(client, "BatchStamp", { items: hashes });
    return res.stamps.map((s) => s.id);
  } finally {
    client.close();
  }
}

it(`puts each of ${total} stamps made on two instances in exactly one batch, with a verifying proof`, async () => {
  const sealedBy = [a, b].map((instance) => {
    const sealed = { batches: 0 };
    const seal = instance.service.ctx.store.proofs.sealBatch.bind(instance.service.ctx.store.proofs);
    vi.spyOn(instance.service.ctx.store.proofs, "sealBatch").mockImplementation(async (...args) => {
      const batch = await seal(...args);
      if (batch) sealed.batches++;
      return batch;
    });
    return sealed;
  });
  const calls = Array.from({ length: total / perCall }, (_, i) =>
    batchStamp(i % 2 ? b : a, i * perCall, perCall),
  );
  const midway = calls[calls.length / 2]!.then(() => a.service.proofs.log.sequence());
  const ids = (await Promise.all(calls)).flat();
  expect(new Set(ids).size).toBe(total);
  while ((await count("SELECT count(*) AS n FROM unsealed_stamps")) > 0) await passes();

  expect(await count("SELECT count(*) AS n FROM stamps")).toBe(total);
  expect(await count("SELECT coalesce(sum(tree_size), 0) AS n FROM batches")).toBe(total);
  // Both instances sealed: the claims really ran side by side.
  expect(sealedBy.map((s) => s.batches > 0)).toEqual([true, true]);
  expect(sealedBy[0]!.batches + sealedBy[1]!.batches).toBe(await count("SELECT count(*) AS n FROM batches"));
  const { rows } = await db.query<{
    stamp_json: string;
    leaf_index: number;
    audit_path: Buffer;
    root: Buffer;
    tree_size: number;
  }>(
    `SELECT s.stamp_json, p.leaf_index, p.audit_path, b.root, b.tree_size
     FROM stamps s JOIN stamp_proofs p ON p.stamp_id = s.id JOIN batches b ON b.id = p.batch_id`,
  );
  expect(rows).toHaveLength(total);
  for (const row of rows) {
    const leaf = merkle.leafHash(stampLeafData(JSON.parse(row.stamp_json)));
    expect(
      merkle.verifyInclusion(leaf, row.leaf_index, row.tree_size, splitHashes(row.audit_path), row.root),
    ).toBe(true);
  }

  // Every instance announced every confirmation once: sentinels from both publishers come last.
  const sentinels = [...(await batchStamp(a, total, 1)), ...(await batchStamp(b, total + 1, 1))];
  for (const seen of events.values()) {
    await vi.waitFor(() =>
      expect(seen.filter((e) => e.type === "stamp_created").map((e) => e.scope.stampId)).toEqual(
        expect.arrayContaining(sentinels),
      ),
    );
    const confirmed = tally(seen.filter((e) => e.type === "stamp_confirmed").map((e) => e.scope.stampId));
    expect(ids.filter((id) => confirmed.get(id) !== 1)).toEqual([]);
  }

  // The log: one sequence over every batch, and A's and B's checkpoints are one history.
  await passes();
  const batches = await count("SELECT count(*) AS n FROM batches WHERE log_index IS NOT NULL");
  const entries = await db.query("SELECT min(idx) AS low, max(idx) AS high, count(*) AS n FROM log_entries");
  expect(entries.rows[0]).toMatchObject({ low: 0, high: batches - 1, n: String(batches) });
  const [noteA, noteB] = await Promise.all(
    [a, b].map(async (instance) => (await fetch(`${instance.baseUrl}/log/checkpoint`)).text()),
  );
  expect(noteA).toBe(noteB);
  const latest = parseCheckpoint(noteB!.slice(0, noteB!.indexOf("\n\n") + 1));
  expect(latest.treeSize).toBe(batches);
  const earlier = await midway;
  const proof = await (
    await fetch(`${b.baseUrl}/log/consistency?first=${earlier.treeSize}&second=${latest.treeSize}`)
  ).json();
  expect(
    merkle.verifyConsistency(
      earlier.treeSize,
      latest.treeSize,
      earlier.root,
      latest.rootHash,
      proof.proof.map((h: string) => Buffer.from(h, "hex")),
    ),
  ).toBe(true);
}, 120_000);
