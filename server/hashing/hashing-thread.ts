import { Worker } from "node:worker_threads";
import type { HashAlgorithm } from "../../core/types.js";
import { threadEntry } from "../thread-entry.js";

/** What the main thread tells the hashing thread (hashing-thread-entry.ts) about a job. */
export type ThreadRequest =
  | { type: "start"; id: number; ring: SharedArrayBuffer; algorithms: readonly HashAlgorithm[] }
  | { type: "slot"; id: number; offset: number; length: number }
  | { type: "end"; id: number }
  | { type: "abort"; id: number };

/** What it answers: a slot hashed (free to fill again), the digests in the job's order, or a failure. */
export type ThreadReply =
  | { type: "free"; id: number; offset: number }
  | { type: "digests"; id: number; hashes: string[] }
  | { type: "error"; id: number; message: string };

/** How a job hears back. */
export interface JobListener {
  free(offset: number): void;
  digests(hashes: string[]): void;
  fail(err: Error): void;
}

/** How long the thread outlives its last job: most of its isolate's memory is given back once uploads stop. */
const IDLE_MS = 30_000;

/**
 * One thread that hashes every large upload's bytes, whichever request they belong to: started by
 * the first job and kept (unreferenced) until IDLE_MS pass without one, since a new isolate per
 * upload would cost its start-up each time. Jobs interleave in its message queue slot by slot.
 * Should it die, every job under way fails (none waits forever) and the next job starts a new one.
 */
export class HashingThread {
  private worker: Worker | undefined;
  private idle: NodeJS.Timeout | undefined;
  private nextId = 1;
  private readonly jobs = new Map<number, JobListener>();

  constructor(private readonly idleMs = IDLE_MS) {}

  /** Whether a thread is running (tests check that an idle one stops). */
  get running(): boolean {
    return this.worker !== undefined;
  }

  /** Starts a job hashing `ring`'s slots with `algorithms`; returns its id. */
  start(algorithms: readonly HashAlgorithm[], ring: SharedArrayBuffer, listener: JobListener): number {
    clearTimeout(this.idle);
    const worker = this.worker ?? this.spawn();
    const id = this.nextId++;
    if (this.jobs.size === 0) worker.ref();
    this.jobs.set(id, listener);
    worker.postMessage({ type: "start", id, ring, algorithms } satisfies ThreadRequest);
    return id;
  }

  /** Hands the thread a filled slot, the end of a job, or its abandonment. */
  send(request: Exclude<ThreadRequest, { type: "start" }>): void {
    if (!this.jobs.has(request.id)) return;
    if (request.type === "abort") this.settled(request.id);
    this.worker?.postMessage(request);
  }

  private settled(id: number): void {
    this.jobs.delete(id);
    if (this.jobs.size > 0) return;
    this.worker?.unref();
    this.idle = setTimeout(() => this.stop(), this.idleMs).unref();
  }

  /** Stops an idle thread; a job that comes later starts another. */
  private stop(): void {
    const worker = this.worker;
    this.worker = undefined;
    void worker?.terminate();
  }

  private spawn(): Worker {
    const { entry, eval: evaluated } = threadEntry(
      "server/hashing/hashing-thread-entry.js",
      new URL("./hashing-thread-entry.ts", import.meta.url),
    );
    // No node options: the thread needs none, and V8's (the parent's --max-semi-space-size) are
    // refused. Its heap holds a few small objects per slot: a small young generation is enough.
    const worker = new Worker(entry, {
      eval: evaluated,
      execArgv: [],
      resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 32 },
    });
    let crash: unknown;
    worker.on("message", (reply: ThreadReply) => this.onReply(reply));
    worker.on("error", (err) => {
      crash = err;
    });
    worker.on("exit", (code) => {
      // A thread stopped while idle had no job; its successor's jobs are not its own.
      if (this.worker !== worker) return;
      this.worker = undefined;
      const err = new Error(`the hashing thread stopped (exit code ${code})`, { cause: crash });
      const listeners = [...this.jobs.values()];
      this.jobs.clear();
      for (const listener of listeners) listener.fail(err);
    });
    this.worker = worker;
    return worker;
  }

  private onReply(reply: ThreadReply): void {
    const listener = this.jobs.get(reply.id);
    if (!listener) return;
    if (reply.type === "free") {
      listener.free(reply.offset);
      return;
    }
    this.settled(reply.id);
    if (reply.type === "digests") listener.digests(reply.hashes);
    else listener.fail(new Error(reply.message));
  }
}

/** The process's hashing thread. */
export const hashingThread = new HashingThread();
