import { once } from "node:events";
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import { threadEntry } from "../../thread-entry.js";
import type { RowTarget } from "./row-inserts.js";

/** What the thread is started with (its workerData). */
export interface WriterSettings {
  /** The database file; the thread opens a connection of its own to it. */
  path: string;
  target: RowTarget;
}

/** A group's rows as positional values (valuesOf), or the request to close the connection and stop. */
export type WriterRequest = unknown[] | "close";

/** Per request, in order: null once committed, or why the transaction failed (rolled back). */
export type WriterReply = null | { message: string; code?: string };

interface Pending {
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * The main thread's side of the stamp writer thread (stamp-writer-thread.ts): sends it groups of
 * rows and settles each commit when its reply comes back. The thread starts with the first commit
 * and keeps the process alive only while a commit is pending. Should it die, every pending commit
 * fails with an error (none waits forever) and the next commit starts a new thread.
 */
export class WriterThread {
  private worker: Worker | undefined;
  /** Commits sent and not answered, oldest first: the thread answers in order. */
  private readonly pending: Pending[] = [];

  constructor(private readonly settings: WriterSettings) {}

  /** Whether a thread is running (tests check that closing leaves none). */
  get running(): boolean {
    return this.worker !== undefined;
  }

  /** Inserts the rows in one transaction of the thread's; resolves once it has committed. */
  commit(values: unknown[]): Promise<void> {
    const worker = this.worker ?? this.start();
    if (this.pending.length === 0) worker.ref();
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ resolve, reject });
      worker.postMessage(values satisfies WriterRequest);
    });
  }

  /** Stops the thread once its pending commits are answered (call after draining the group commit). */
  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    worker.ref();
    worker.postMessage("close" satisfies WriterRequest);
    await once(worker, "exit");
  }

  private start(): Worker {
    const { entry, eval: evaluated } = threadEntry(
      "server/store/sqlite/stamp-writer-thread.js",
      new URL("./stamp-writer-thread.ts", import.meta.url),
    );
    // No node options: the thread needs none, and V8's (the parent's --max-semi-space-size) are refused.
    const worker = new Worker(entry, { eval: evaluated, workerData: this.settings, execArgv: [] });
    let crash: unknown;
    worker.on("message", (reply: WriterReply) => {
      const commit = this.pending.shift()!;
      if (this.pending.length === 0) worker.unref();
      if (reply === null) commit.resolve();
      else
        commit.reject(
          reply.code ? new Database.SqliteError(reply.message, reply.code) : new Error(reply.message),
        );
    });
    worker.on("error", (err) => {
      crash = err;
    });
    worker.on("exit", (code) => {
      this.worker = undefined;
      const err = new Error(`the stamp writer thread stopped (exit code ${code}) before answering`, {
        cause: crash,
      });
      for (const commit of this.pending.splice(0)) commit.reject(err);
    });
    this.worker = worker;
    return worker;
  }
}
