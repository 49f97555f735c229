/**
 * A point where a test holds an operation of the code under test (the store slow to answer one
 * call), to make an interleaving happen on purpose: the first caller of `hold()` waits there until
 * `release()`; `reached` resolves when it arrives. Later callers pass straight through.
 *
 * @example
 * const point = holdPoint();
 * const slow = { put: async (...args) => { await point.hold(); return repo.put(...args); } };
 * const running = work(slow);
 * await point.reached; // the work is inside its first put
 * point.release();
 */
export function holdPoint(): { hold(): Promise<void>; reached: Promise<void>; release(): void } {
  let arrive!: () => void;
  const reached = new Promise<void>((resolve) => {
    arrive = resolve;
  });
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let first = true;
  return {
    async hold() {
      if (!first) return;
      first = false;
      arrive();
      await released;
    },
    reached,
    release,
  };
}
