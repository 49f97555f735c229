// GroupCommit (server/store/group-commit.ts): concurrent writes share one transaction, a bad item
// fails alone, and drain() waits for what was submitted.
import { describe, expect, it } from "vitest";
import { GroupCommit } from "../../server/store/group-commit.js";

/** A commit that records each group and refuses any group holding `bad`. */
function recorder(bad?: number) {
  const groups: number[][] = [];
  const commit = (items: number[]) => {
    if (bad !== undefined && items.includes(bad)) throw new Error(`item ${bad} refused`);
    groups.push(items);
  };
  return { groups, commit };
}

describe("GroupCommit", () => {
  it("commits writes submitted together in one transaction, and later ones in the next", async () => {
    const { groups, commit } = recorder();
    const writes = new GroupCommit(commit);
    await Promise.all([1, 2, 3].map((n) => writes.submit([n])));
    await writes.submit([4]);
    expect(groups).toEqual([[1, 2, 3], [4]]);
    expect(writes.commits).toBe(2);
  });

  it("groups what arrives while a commit is in flight into the next transaction", async () => {
    const groups: number[][] = [];
    let release!: () => void;
    const writes = new GroupCommit(async (items: number[]) => {
      groups.push(items);
      if (groups.length === 1) await new Promise<void>((r) => (release = r));
    });
    const first = writes.submit([1]);
    await until(() => groups.length === 1);
    const later = [2, 3, 4].map((n) => writes.submit([n]));
    release();
    await Promise.all([first, ...later]);
    expect(groups).toEqual([[1], [2, 3, 4]]);
  });

  it("answers a caller only after the transaction holding its item has committed", async () => {
    let release!: () => void;
    let committed = false;
    const writes = new GroupCommit(async () => {
      await new Promise<void>((r) => (release = r));
      committed = true;
    });
    let acknowledged = false;
    const write = writes.submit([1]).then(() => {
      acknowledged = true;
      expect(committed).toBe(true);
    });
    await until(() => release !== undefined);
    expect(acknowledged).toBe(false);
    release();
    await write;
    expect(acknowledged).toBe(true);
  });

  it("keeps a write of many rows whole: all of them or none, alone when its group fails", async () => {
    const { groups, commit } = recorder(5);
    const writes = new GroupCommit(commit);
    const results = await Promise.allSettled([
      writes.submit([1, 2]),
      writes.submit([4, 5, 6]),
      writes.submit([]),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(groups).toEqual([[1, 2]]);
  });

  it("fails only the caller whose item is refused: the others are retried alone", async () => {
    const { groups, commit } = recorder(2);
    const writes = new GroupCommit(commit);
    const results = await Promise.allSettled([1, 2, 3].map((n) => writes.submit([n])));
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((results[1] as PromiseRejectedResult).reason).toEqual(new Error("item 2 refused"));
    expect(groups).toEqual([[1], [3]]);
  });

  it("drain() resolves once every submitted write is committed", async () => {
    const { groups, commit } = recorder();
    const writes = new GroupCommit(commit);
    const submitted = [1, 2].map((n) => writes.submit([n]));
    await writes.drain();
    expect(groups).toEqual([[1, 2]]);
    await Promise.all(submitted);
    await writes.drain();
  });
});

/** Polls a condition on the event loop (no timing assumption: it waits as long as it takes). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setImmediate(r));
}
