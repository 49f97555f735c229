// readAhead (server/grpc/read-ahead.ts), StreamStamps' reader: groups, its window, failures and
// an early stop, on plain async iterables.
import { describe, expect, it } from "vitest";
import { readAhead } from "../../server/grpc/read-ahead.js";

/** A source whose items arrive when `push` is called, and that ends with `end` or fails with `fail`. */
function controlledSource<T>() {
  const items: T[] = [];
  let finish: { error?: unknown } | null = null;
  let wake: (() => void) | null = null;
  let reads = 0;
  async function* source(): AsyncGenerator<T> {
    for (;;) {
      while (items.length === 0 && !finish) await new Promise<void>((r) => (wake = r));
      if (items.length > 0) {
        reads++;
        yield items.shift()!;
      } else if (finish?.error) throw finish.error;
      else return;
    }
  }
  return {
    source: source(),
    push: (...more: T[]) => {
      items.push(...more);
      wake?.();
    },
    end: () => {
      finish = {};
      wake?.();
    },
    fail: (error: unknown) => {
      finish = { error };
      wake?.();
    },
    reads: () => reads,
  };
}

const settle = async () => {
  for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
};

describe("readAhead", () => {
  it("hands over everything read while the consumer was busy, in order, as one group", async () => {
    const src = controlledSource<number>();
    const groups = readAhead(src.source, 100);
    src.push(1);
    expect((await groups.next()).value).toEqual([1]);
    src.push(2, 3, 4);
    await settle();
    expect((await groups.next()).value).toEqual([2, 3, 4]);
    src.end();
    expect((await groups.next()).done).toBe(true);
  });

  it("stops reading once `window` items wait, and goes on when they are taken", async () => {
    const src = controlledSource<number>();
    const groups = readAhead(src.source, 3);
    src.push(...Array.from({ length: 10 }, (_, i) => i));
    const first = (await groups.next()).value!;
    await settle();
    expect(src.reads()).toBe(first.length + 3);
    expect((await groups.next()).value).toEqual([1, 2, 3].map((i) => i + first.length - 1));
    await settle();
    expect(src.reads()).toBe(first.length + 6);
  });

  it("throws the source's failure after the items read before it", async () => {
    const src = controlledSource<number>();
    const groups = readAhead(src.source, 10);
    src.push(1, 2);
    src.fail(new Error("stream reset"));
    const items: number[] = [];
    const failure = (async () => {
      for await (const group of groups) items.push(...group);
    })();
    await expect(failure).rejects.toThrow("stream reset");
    expect(items).toEqual([1, 2]);
  });

  it("stops reading when the consumer stops", async () => {
    const src = controlledSource<number>();
    const groups = readAhead(src.source, 2);
    src.push(1, 2, 3, 4);
    expect((await groups.next()).value).toEqual([1]);
    await groups.return(undefined);
    await settle();
    expect(src.reads()).toBeLessThanOrEqual(3);
  });
});
