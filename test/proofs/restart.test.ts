import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hexToBytes } from "@noble/hashes/utils.js";
import { afterEach, describe, expect, it } from "vitest";
import { verifyCheckpoint } from "../../core/checkpoint.js";
import { verifyConsistency } from "../../core/merkle.js";
import { verifyStampProof } from "../../core/stamp-proof.js";
import type { components } from "../../gen/openapi/types.js";
import { SqliteStore } from "../../server/store/sqlite/sqlite-store.js";
import type { RunningService } from "../helpers/service.js";
import { getJson, stampHash, startProofService } from "./helpers.js";

type Schemas = components["schemas"];

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const start = (dataDir: string) => startProofService({ DATA_DIR: dataDir });

async function batchesOf(svc: RunningService, ids: string[]) {
  const proofs = await Promise.all(
    ids.map((id) => getJson<Schemas["StampProof"]>(svc, `/stamps/${id}/proof`)),
  );
  return proofs.map((p) => p.batch.id);
}

describe("the batcher across restarts (one SQLite file, two instances in sequence)", () => {
  it("batches the stamps left pending by the first instance when the second starts", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "stampd-restart-"));
    dirs.push(dataDir);
    const first = await start(dataDir);
    await stampHash(first.svc);
    await first.tick();
    const sealedBefore = (await stampHash(first.svc)).id;
    await first.tick();
    const left = [];
    for (let i = 0; i < 4; i++) left.push((await stampHash(first.svc)).id);
    const checkpointBefore = await (await fetch(`${first.svc.baseUrl}/log/checkpoint`)).text();
    const batchBefore = (await batchesOf(first.svc, [sealedBefore]))[0];
    // Stopped without another pass: the four stamps stay pending in the file.
    await first.svc.close();

    const second = await start(dataDir);
    try {
      // build() ran one pass before answering: nothing left pending, each stamp in one batch.
      const batches = await batchesOf(second.svc, left);
      expect(new Set(batches).size).toBe(1);
      expect((await batchesOf(second.svc, [sealedBefore]))[0]).toBe(batchBefore);
      for (const id of left) {
        expect((await getJson<Schemas["StampResponse"]>(second.svc, `/stamps/${id}`)).status).toBe(
          "anchored",
        );
      }
      // Same key, same log: the new checkpoint extends the old one.
      const log = await getJson<Schemas["LogInfo"]>(second.svc, "/log");
      const before = await verifyCheckpoint(checkpointBefore, [log.verifier_key]);
      const after = await verifyCheckpoint(log.checkpoint, [log.verifier_key]);
      expect([before.treeSize, after.treeSize]).toEqual([2, 3]);
      const { proof } = await getJson<Schemas["LogConsistencyProof"]>(
        second.svc,
        "/log/consistency?first=2&second=3",
      );
      expect(verifyConsistency(2, 3, before.rootHash, after.rootHash, proof.map(hexToBytes))).toBe(true);
      const stamp = await getJson<Schemas["StampResponse"]>(second.svc, `/stamps/${left[0]}`);
      const stampProof = await getJson<Schemas["StampProof"]>(second.svc, `/stamps/${left[0]}/proof`);
      expect(
        (await verifyStampProof(stamp.stamp_json, stampProof, { trustedLogKeys: [log.verifier_key] })).valid,
      ).toBe(true);
    } finally {
      await second.svc.close();
    }
  });

  it("loses no stamp to a seal that crashes: its claim rolls back", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "stampd-crash-"));
    dirs.push(dataDir);
    const first = await start(dataDir);
    const ids = [(await stampHash(first.svc)).id, (await stampHash(first.svc)).id];
    await first.svc.close();

    const store = new SqliteStore(join(dataDir, "stampd.db"));
    await store.migrate();
    const crash = store.proofs.sealBatch(10, () => {
      throw new Error("power cut while sealing");
    });
    await expect(crash).rejects.toThrow("power cut");
    const unbatched = store.db.prepare("SELECT count(*) AS n FROM unsealed_stamps").get() as {
      n: number;
    };
    expect(unbatched.n).toBe(2);
    await store.close();

    const second = await start(dataDir);
    try {
      expect(new Set(await batchesOf(second.svc, ids)).size).toBe(1);
    } finally {
      await second.svc.close();
    }
  });

  it("never puts a stamp in two batches when two stores seal the same file", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "stampd-two-"));
    dirs.push(dataDir);
    const first = await start(dataDir);
    for (let i = 0; i < 30; i++) await stampHash(first.svc);
    await first.svc.close();
    const path = join(dataDir, "stampd.db");
    const [a, b] = [new SqliteStore(path), new SqliteStore(path)];
    const seal = (store: SqliteStore, id: string) =>
      store.proofs.sealBatch(7, (claimed) => ({
        batch: {
          id,
          sealedAt: new Date(),
          treeSize: claimed.length,
          root: new Uint8Array(32),
          signature: "0".repeat(128),
          publicKey: `ed25519:${"0".repeat(64)}`,
          logIndex: null,
        },
        leaves: claimed.map((c, leafIndex) => ({ stampId: c.id, accountId: null, leafIndex, auditPath: [] })),
        anchors: [],
      }));
    const sealed = [];
    for (let round = 0; round < 3; round++) {
      sealed.push(
        ...(await Promise.all([
          seal(a, `bat_0000000000000000000000000${round}`),
          seal(b, `bat_0000000000000000000000001${round}`),
        ])),
      );
    }
    const claimedIds = sealed.flatMap((s) => s?.leaves.map((l) => l.stampId) ?? []);
    expect(claimedIds).toHaveLength(30);
    expect(new Set(claimedIds).size).toBe(30);
    await a.close();
    await b.close();
  });
});
