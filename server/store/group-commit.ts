import { ServiceError } from "../errors.js";

/** Writes the rows of a group of writes in one transaction; returns (or resolves) once committed. */
export type CommitGroup<T> = (rows: T[]) => void | Promise<void>;

interface Waiting<T> {
  rows: readonly T[];
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * Most rows in one transaction: bounds a transaction's size, how long a flush holds SQLite, and
 * how long one PostgreSQL insert takes, which must stay well inside STORE_TIMEOUT_MS (a 4,000-row
 * group measured 1.6-2.2 s on a loaded machine, bench/README.md); a single larger write still
 * goes alone, whole.
 */
const MAX_GROUP_ROWS = 2_000;

/**
 * Group commit: writes that arrive together share one transaction, so one durable commit (one
 * fsync) acknowledges all of them. A write is one caller's rows (one stamp, or a batch that must be
 * stored all or none); it is queued, and the queue is flushed on the next turn of the event loop
 * (after every request that arrived in this turn has queued its write) and, while a flush is
 * committing, whatever arrives meanwhile waits for the next one. Each caller is answered only
 * after the transaction holding its rows has committed: durable when acknowledged.
 *
 * When a group fails, each of its writes is retried in a transaction of its own, so one bad write
 * (a constraint it breaks) fails only its own caller; when the store is unavailable, all fail at once.
 */
export class GroupCommit<T> {
  private queue: Waiting<T>[] = [];
  private flushing: Promise<void> | null = null;
  /** Transactions that committed, for tests and metrics (a group retried item by item counts each). */
  commits = 0;

  constructor(private readonly commit: CommitGroup<T>) {}

  /** Queues a write; resolves once a committed transaction holds its rows, rejects with its own failure. */
  submit(rows: readonly T[]): Promise<void> {
    if (rows.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ rows, resolve, reject });
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
      while (this.queue.length > 0) await this.write(this.nextGroup());
    } finally {
      this.flushing = null;
    }
  }

  /** The oldest writes, up to MAX_GROUP_ROWS rows (at least one write, however large). */
  private nextGroup(): Waiting<T>[] {
    let count = 0;
    let rows = 0;
    while (
      count < this.queue.length &&
      (count === 0 || rows + this.queue[count]!.rows.length <= MAX_GROUP_ROWS)
    ) {
      rows += this.queue[count]!.rows.length;
      count++;
    }
    return this.queue.splice(0, count);
  }

  private async write(group: Waiting<T>[]): Promise<void> {
    try {
      await this.commit(group.flatMap((w) => w.rows));
      this.commits++;
      for (const w of group) w.resolve();
    } catch (err) {
      // A store that cannot be reached or written fails every write alike: retrying them one by
      // one would wait out its deadline once per write.
      if (group.length === 1 || isUnavailable(err)) for (const w of group) w.reject(err);
      else for (const w of group) await this.write([w]);
    }
  }
}

const isUnavailable = (err: unknown) => err instanceof ServiceError && err.code === "unavailable";
