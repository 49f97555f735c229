/** Writes a group of items in one transaction; returns (or resolves) once it has committed. */
export type CommitGroup<T> = (items: T[]) => void | Promise<void>;

interface Waiting<T> {
  item: T;
  resolve(): void;
  reject(err: unknown): void;
}

/** Most items in one transaction: bounds a transaction's size and a flush's latency. */
const MAX_GROUP = 1000;

/**
 * Group commit: single writes that arrive together share one transaction, so one durable commit
 * (one fsync) acknowledges all of them. A write is queued; the queue is flushed on the next turn
 * of the event loop (after every request that arrived in this turn has queued its write) and,
 * while a flush is committing, whatever arrives meanwhile waits for the next one. Each caller is
 * answered only after the transaction holding its item has committed: durable when acknowledged.
 *
 * When a group fails, each of its items is retried in a transaction of its own, so one bad item
 * (a constraint it breaks) fails only its own caller.
 */
export class GroupCommit<T> {
  private queue: Waiting<T>[] = [];
  private flushing: Promise<void> | null = null;
  /** Transactions that committed, for tests and metrics (a group retried item by item counts each). */
  commits = 0;

  constructor(private readonly commit: CommitGroup<T>) {}

  /** Queues `item`; resolves once a committed transaction holds it, rejects with its own failure. */
  submit(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.flushing ??= this.flushSoon();
    });
  }

  /** Resolves once everything submitted so far is written (or refused): call before closing. */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private async flushSoon(): Promise<void> {
    // The next turn of the event loop: writes of requests that arrived together join one group.
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      while (this.queue.length > 0) await this.write(this.queue.splice(0, MAX_GROUP));
    } finally {
      this.flushing = null;
    }
  }

  private async write(group: Waiting<T>[]): Promise<void> {
    try {
      await this.commit(group.map((w) => w.item));
      this.commits++;
      for (const w of group) w.resolve();
    } catch (err) {
      if (group.length === 1) group[0]!.reject(err);
      else for (const w of group) await this.write([w]);
    }
  }
}
