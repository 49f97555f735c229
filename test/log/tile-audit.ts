import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import type { SqliteStore } from "../../server/store/sqlite/sqlite-store.js";
import type { RunningService } from "../helpers/service.js";
import {
  checkNote,
  consistencyPath,
  inclusionPath,
  mth,
  type ReadCheckpoint,
  type TileReader,
} from "./tile-reader.js";

/**
 * What the tiled-log suites share: growing a log fast, and auditing a tiled log wherever it is
 * served (the service, a mirror folder, a bucket) against the service's own proof API.
 */

const hex = (b: Buffer) => b.toString("hex");

// A ULID's shape (the API's BatchId pattern), ordered as the entries are to be.
export const batchId = (i: number) => `bat_0000000000000000${String(i).padStart(10, "0")}`;

/**
 * Sealed batches `from` … `to - 1` inserted straight into a SQLite service's store (a batch per
 * entry through the HTTP path would take minutes); the next pipeline pass logs them.
 */
export async function insertSqliteBatches(svc: RunningService, from: number, to: number): Promise<void> {
  const { db } = svc.service.ctx.store as SqliteStore;
  const insert = db.prepare(
    `INSERT INTO batches (id, sealed_at, tree_size, root, signature, public_key)
     VALUES (?, '2026-03-01T12:00:00.000Z', 1, ?, 'test', 'test')`,
  );
  db.transaction(() => {
    for (let i = from; i < to; i++) insert.run(batchId(i), randomBytes(32));
  })();
}

/**
 * Reads the tree of `checkpoint` from the reader's tiles (every check of TileReader.audit), then
 * compares proofs computed from those tiles with the API's: inclusion of a spread of entries, and
 * consistency from every earlier checkpoint, each verified against the signed roots.
 */
export async function auditAgainstApi(
  svc: RunningService,
  reader: TileReader,
  checkpoint: ReadCheckpoint,
  notes: Map<number, string>,
  verifierKey: string,
): Promise<void> {
  const n = checkpoint.size;
  const leaves = await reader.audit(checkpoint);
  const indexes = [...new Set([0, n - 1, Math.floor(n / 2), 255, 256, 65_535, 65_536].filter((i) => i < n))];
  for (const index of indexes) {
    const api = await getJson<{ leaf_hash: string; proof: string[] }>(
      svc,
      `/log/inclusion?index=${index}&tree_size=${n}`,
    );
    expect(api.leaf_hash, `leaf ${index} of ${n}`).toBe(hex(leaves[index]!));
    expect(api.proof, `inclusion of ${index} in ${n}`).toEqual(inclusionPath(leaves, index, 0, n).map(hex));
  }
  for (const [m, note] of notes) {
    if (m >= n) continue;
    const older = checkNote(note, verifierKey);
    const api = await getJson<{ first_root: string; proof: string[] }>(
      svc,
      `/log/consistency?first=${m}&second=${n}`,
    );
    expect(api.first_root, `root of ${m}`).toBe(hex(older.root));
    expect(hex(mth(leaves, 0, m)), `the tiles of ${n} extend the checkpoint of ${m}`).toBe(hex(older.root));
    expect(api.proof, `consistency ${m} -> ${n}`).toEqual(consistencyPath(leaves, m, n).map(hex));
  }
}

async function getJson<T>(svc: RunningService, path: string): Promise<T> {
  const res = await fetch(`${svc.baseUrl}${path}`);
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}
