import { describe, expect, it } from "vitest";
import { jcs } from "../../core/jcs.js";
import { leafHash, verifyInclusion } from "../../core/merkle.js";
import { stampLeafData } from "../../core/stamp-leaf.js";
import { rootLeafHash } from "../../server/log/transparency-log.js";
import type { Batch } from "../../server/proofs/proof-repository.js";
import { sealStamps } from "../../server/proofs/seal.js";
import type { StampDocument, StoredStamp } from "../../server/stamps/stamp-repository.js";
import type { Store } from "../../server/store/store.js";
import { testServiceKeys } from "../helpers/service-keys.js";
import { eachFreshStore, type TestDatabase, type TestEngine } from "./engines.js";

const t0 = new Date("2026-01-01T00:00:00.000Z");
const signer = testServiceKeys().signing;
const stampId = (n: number) => `stp_01JD3Y2B8C4D6E7F9G0H1J${String(n).padStart(4, "0")}`;

/** A stored stamp whose document has what the repositories read: time, hash, anchors. */
export function stamp(n: number, overrides: Partial<StoredStamp> = {}): StoredStamp {
  const document = {
    created_at: new Date(t0.getTime() + n).toISOString(),
    document: { algorithm: "sha256", hash: n.toString(16).padStart(64, "0") },
    anchors: ["log"],
  } as unknown as StampDocument;
  const stored: StoredStamp = {
    id: stampId(n),
    accountId: "acc_1",
    identityId: null,
    status: "pending",
    document,
    fingerprint: null,
    contentSha256: null,
    ...overrides,
  };
  // What `get` reads back: the document with the text it was stored as.
  return { json: jcs(stored.document), ...stored };
}

// Merkle code returns Buffers, the stores Uint8Arrays: hashes are compared as hex.
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const plain = (batch: Batch) => ({ ...batch, root: hex(batch.root) });

/** Seals what is waiting, at most `max` stamps, the way the batcher does. */
function seal(store: Store, n: number, max: number) {
  const at = new Date(t0.getTime() + n * 1000);
  const id = `bat_01JD3Y2B8C4D6E7F9G0H1J${String(n).padStart(4, "0")}`;
  return store.proofs.sealBatch(max, (claimed) => sealStamps(id, claimed, signer, at));
}

/** The contract of stamps, identities, batches, the log and anchors on every engine. */
export function stampsSuite(engine: TestEngine) {
  describe(`stamps, identities, batches, log and anchors on ${engine.name}`, () => {
    let db: TestDatabase;
    let store: Store;
    eachFreshStore(engine, (fresh) => ({ db, store } = fresh));

    it("refuses an identity whose id or public key is taken, and reads one back as stored", async () => {
      const identity = {
        id: "0123456789abcdef",
        publicKey: `ed25519:0123456789abcdef${"0".repeat(48)}`,
        accountId: "acc_1",
        sealedPrivateKey: Buffer.from([0, 1, 2, 255]),
        createdAt: t0,
      };
      expect(await store.identities.insert(identity)).toBe(true);
      expect(await store.identities.insert({ ...identity, publicKey: `ed25519:${"1".repeat(64)}` })).toBe(
        false,
      );
      expect(await store.identities.insert({ ...identity, id: "fedcba9876543210" })).toBe(false);
      expect(await store.identities.get(identity.id)).toEqual(identity);
      expect(await store.identities.get("ffffffffffffffff")).toBeUndefined();
    });

    it("stores stamps exactly, counts them per identity, and inserts a batch all or none", async () => {
      await store.identities.insert({
        id: "0123456789abcdef",
        publicKey: `ed25519:0123456789abcdef${"0".repeat(48)}`,
        accountId: "acc_1",
        sealedPrivateKey: Buffer.from([1]),
        createdAt: t0,
      });
      const signed = stamp(1, { identityId: "0123456789abcdef", fingerprint: { merkle_root: "ab" } });
      await store.stamps.insert(signed);
      expect(await store.stamps.get(signed.id)).toEqual(signed);
      const upload = stamp(5, { contentSha256: "ab".repeat(32) });
      await store.stamps.insert(upload);
      expect(await store.stamps.get(upload.id)).toEqual(upload);
      await store.stamps.insertMany([stamp(2), stamp(3, { identityId: "0123456789abcdef" })]);
      expect(await store.stamps.countByIdentity("0123456789abcdef")).toBe(2);
      await expect(store.stamps.insertMany([stamp(4), stamp(1)])).rejects.toThrow();
      expect(await store.stamps.get(stampId(4))).toBeUndefined();
    });

    it("seals waiting stamps oldest first into batches, each stamp once, with its proof", async () => {
      await store.stamps.insertMany([3, 1, 2].map((n) => stamp(n)));
      const first = await seal(store, 1, 2);
      expect(first!.leaves.map((l) => l.stampId)).toEqual([stampId(1), stampId(2)]);
      expect(first!.anchors).toEqual(["log"]);
      const second = await seal(store, 2, 2);
      expect(second!.leaves.map((l) => l.stampId)).toEqual([stampId(3)]);
      expect(await seal(store, 3, 2)).toBeNull();
      const proof = await store.proofs.proofOf(stampId(2));
      expect(proof).toMatchObject({ stampId: stampId(2), leafIndex: 1 });
      expect(plain(proof!.batch)).toEqual(plain(first!.batch));
      expect(proof!.auditPath.map(hex)).toEqual(first!.leaves[1]!.auditPath.map(hex));
      expect(plain((await store.proofs.getBatch(first!.batch.id))!)).toEqual(plain(first!.batch));
      expect((await store.stamps.get(stampId(3)))!.status).toBe("confirmed");
      await store.proofs.markAnchored([stampId(1)]);
      expect(await store.proofs.members(first!.batch.id)).toEqual([
        { id: stampId(1), accountId: "acc_1", status: "anchored", anchors: ["log"] },
        { id: stampId(2), accountId: "acc_1", status: "confirmed", anchors: ["log"] },
      ]);
    });

    it("reads a stamp sealed before migration 0013 (batch and status in its row) as before", async () => {
      await store.stamps.insertMany([1, 2, 3].map((n) => stamp(n)));
      const sealed = (await seal(store, 1, 2))!;
      // What the claim wrote before batch membership moved out of the stamp rows.
      await db.rows(
        "UPDATE stamps SET batch_id = ?, status = 'confirmed' WHERE id IN (?, ?) RETURNING id",
        sealed.batch.id,
        stampId(1),
        stampId(2),
      );
      expect((await store.stamps.get(stampId(1)))!.status).toBe("confirmed");
      expect((await store.stamps.get(stampId(3)))!.status).toBe("pending");
      await store.proofs.markAnchored([stampId(1), stampId(3)]);
      expect((await store.stamps.get(stampId(3)))!.status).toBe("pending");
      expect(await store.proofs.members(sealed.batch.id)).toEqual([
        { id: stampId(1), accountId: "acc_1", status: "anchored", anchors: ["log"] },
        { id: stampId(2), accountId: "acc_1", status: "confirmed", anchors: ["log"] },
      ]);
      expect((await seal(store, 2, 10))!.leaves.map((l) => l.stampId)).toEqual([stampId(3)]);
    });

    it("seals each stamp's leaf as the SDK hashes it, its leaf hash stored or (an older row) not", async () => {
      // 150: one INSERT of 100 rows and one of 50.
      const stamps = Array.from({ length: 150 }, (_, n) =>
        stamp(n, n % 7 ? {} : { document: { ...stamp(n).document, anchors: ["bitcoin", "log"] } }),
      );
      await store.stamps.insertMany(stamps);
      await db.rows(
        "UPDATE stamps SET leaf_hash = NULL WHERE id IN (?, ?) RETURNING id",
        stampId(3),
        stampId(7),
      );
      const sealed = (await seal(store, 1, 1000))!;
      expect(sealed.anchors.sort()).toEqual(["bitcoin", "log"]);
      expect(sealed.leaves.map((l) => l.stampId)).toEqual(stamps.map((s) => s.id));
      for (const leaf of sealed.leaves) {
        const stored = (await store.stamps.get(leaf.stampId))!.document;
        const hash = leafHash(stampLeafData(stored));
        expect(verifyInclusion(hash, leaf.leafIndex, 150, leaf.auditPath, sealed.batch.root)).toBe(true);
      }
    });

    it("never puts a stamp in two batches when instances seal at once", async () => {
      const stamps = Array.from({ length: 300 }, (_, n) => stamp(n));
      await store.stamps.insertMany(stamps);
      const other = await db.open();
      const sealed = await Promise.all(
        Array.from({ length: 12 }, (_, n) => seal(n % 2 ? other : store, n, 40)),
      );
      const rest = await seal(store, 99, 1000);
      const ids = [...sealed, rest].flatMap((b) => b?.leaves.map((l) => l.stampId) ?? []);
      expect(ids.sort()).toEqual(stamps.map((s) => s.id).sort());
    });

    it("appends sealed batches to the log in sealing order, as one sequence across instances", async () => {
      const other = await db.open();
      for (let n = 0; n < 6; n++) {
        await store.stamps.insert(stamp(n));
        await seal(store, n, 10);
      }
      const sizes = await Promise.all([
        store.log.appendSealed(t0, rootLeafHash),
        other.log.appendSealed(t0, rootLeafHash),
      ]);
      expect(sizes.sort()).toEqual([6, 6]);
      const entries = await other.log.entriesFrom(0);
      expect(entries.map((e) => e.index)).toEqual([0, 1, 2, 3, 4, 5]);
      const batches = await Promise.all(entries.map((e) => store.proofs.getBatch(e.batchId)));
      expect(batches.map((b) => b!.logIndex)).toEqual([0, 1, 2, 3, 4, 5]);
      expect(entries.map((e) => hex(e.leafHash))).toEqual(batches.map((b) => hex(rootLeafHash(b!.root))));
      expect((await store.log.entriesFrom(4)).map((e) => e.index)).toEqual([4, 5]);
    });

    it("keeps the first checkpoint of a size and answers the largest", async () => {
      const checkpoint = (treeSize: number, note: string) => ({
        treeSize,
        root: new Uint8Array(32).fill(treeSize),
        note,
        signedAt: t0,
      });
      expect(await store.log.latestCheckpoint()).toBeUndefined();
      await store.log.saveCheckpoint(checkpoint(2, "first"));
      await store.log.saveCheckpoint(checkpoint(2, "second"));
      await store.log.saveCheckpoint(checkpoint(1, "smaller"));
      expect(await store.log.latestCheckpoint()).toEqual(checkpoint(2, "first"));
    });

    it("leases a due anchor to one worker until the lease ends, and keeps what it saved", async () => {
      await store.stamps.insert(stamp(1));
      const batch = (await seal(store, 1, 10))!.batch;
      const other = await db.open();
      const now = new Date(t0.getTime() + 1000);
      const [a, b] = await Promise.all([
        store.anchors.claimDue(["log"], now, 60_000, 10),
        other.anchors.claimDue(["log"], now, 60_000, 10),
      ]);
      expect([...a, ...b]).toMatchObject([
        { batchId: batch.id, type: "log", status: "pending", attempts: 0 },
      ]);
      expect(await store.anchors.claimDue(["log"], new Date(now.getTime() + 59_999), 60_000, 10)).toEqual([]);
      expect(await store.anchors.claimDue(["rfc3161"], new Date(now.getTime() + 60_000), 60_000, 10)).toEqual(
        [],
      );
      const confirmed = {
        ...[...a, ...b][0]!,
        status: "confirmed" as const,
        reference: "log:0",
        confirmedAt: now,
        evidence: new Uint8Array([7, 8]),
        attempts: 1,
      };
      await store.anchors.save(confirmed, now);
      expect(await other.anchors.forBatch(batch.id)).toEqual([confirmed]);
      expect(await store.anchors.claimDue(["log"], new Date(now.getTime() + 120_000), 60_000, 10)).toEqual(
        [],
      );
    });
  });
}
