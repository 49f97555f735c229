import type { HashAlgorithm } from "../../core/types.js";
import { createHasher } from "./hasher.js";
import { type HashingThread, hashingThread, type JobListener } from "./hashing-thread.js";

/** Bytes of one slot: the unit handed to the hashing thread (one message each way). */
const SLOT_BYTES = 256 * 1024;
/** Slots of a ring: the thread hashes one while the main thread fills the others. */
const SLOTS = 4;
/** A body that fits the ring is hashed on the main thread: handing it over costs more than it saves. */
export const RING_BYTES = SLOT_BYTES * SLOTS;
/** Rings kept for the next uploads, so each does not fault in fresh pages. */
const SPARE_RINGS = 2;
const spare: SharedArrayBuffer[] = [];

/**
 * Hashes a stream's bytes with several algorithms, copied as they arrive into a 1 MiB ring shared
 * with the hashing thread (hashing-thread.ts). The first 1 MiB only fills the ring: a body that
 * ends within it is hashed here, from the ring, at `digest()`. A longer one is handed to the thread
 * and hashed slot by slot beside the receiving; `update` then returns a promise when every slot is
 * still being hashed, which the caller awaits (the stream pauses: backpressure, memory stays at the
 * ring). Call `abort()` when the stream fails.
 */
export class RingHasher implements JobListener {
  private readonly buffer: SharedArrayBuffer;
  private readonly ring: Uint8Array;
  /** Whether each slot is with the thread. */
  private readonly busy = new Array<boolean>(SLOTS).fill(false);
  private slot = 0;
  private used = 0;
  private job: number | null = null;
  private failure: Error | null = null;
  private waiting: { resolve(): void; reject(err: Error): void } | null = null;
  private result: { resolve(hashes: string[]): void; reject(err: Error): void } | null = null;

  constructor(
    private readonly algorithms: readonly HashAlgorithm[],
    private readonly thread: HashingThread = hashingThread,
  ) {
    this.buffer = spare.pop() ?? new SharedArrayBuffer(RING_BYTES);
    this.ring = new Uint8Array(this.buffer);
  }

  /** Copies `bytes` in; a promise when the next slot is not free yet (await it before more). */
  update(bytes: Uint8Array): Promise<void> | undefined {
    let at = 0;
    while (at < bytes.length) {
      if (this.used === SLOT_BYTES) {
        const wait = this.nextSlot();
        if (wait) return wait.then(() => this.update(bytes.subarray(at)));
      }
      const n = Math.min(bytes.length - at, SLOT_BYTES - this.used);
      this.ring.set(bytes.subarray(at, at + n), this.slot * SLOT_BYTES + this.used);
      this.used += n;
      at += n;
    }
    return undefined;
  }

  /** The hex digests, in the order of the algorithms. */
  async digest(): Promise<string[]> {
    if (this.job === null) return this.hereAndNow();
    const hashes = new Promise<string[]>((resolve, reject) => {
      this.result = { resolve, reject };
    });
    if (this.used > 0) this.post(this.slot);
    this.thread.send({ type: "end", id: this.job });
    if (this.failure) this.result?.reject(this.failure);
    const done = await hashes;
    this.recycle();
    return done;
  }

  /** Drops the job; its ring is not reused (the thread may still be reading it). */
  abort(): void {
    if (this.job !== null) this.thread.send({ type: "abort", id: this.job });
    else this.recycle();
  }

  free(offset: number): void {
    this.busy[offset / SLOT_BYTES] = false;
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.resolve();
  }

  digests(hashes: string[]): void {
    this.result?.resolve(hashes);
  }

  fail(err: Error): void {
    this.failure = err;
    this.waiting?.reject(err);
    this.result?.reject(err);
  }

  /** Moves to the next slot once this one is full: hands it over, or the whole ring the first time. */
  private nextSlot(): Promise<void> | null {
    if (this.failure) return Promise.reject(this.failure);
    if (this.job !== null) this.post(this.slot);
    else if (this.slot === SLOTS - 1) {
      this.job = this.thread.start(this.algorithms, this.buffer, this);
      for (let slot = 0; slot < SLOTS; slot++) this.post(slot);
    }
    this.slot = (this.slot + 1) % SLOTS;
    this.used = 0;
    if (!this.busy[this.slot]) return null;
    return new Promise<void>((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  private post(slot: number): void {
    const length = slot === this.slot ? this.used : SLOT_BYTES;
    this.busy[slot] = true;
    this.thread.send({ type: "slot", id: this.job!, offset: slot * SLOT_BYTES, length });
  }

  private async hereAndNow(): Promise<string[]> {
    const hashers = await Promise.all(this.algorithms.map(createHasher));
    const bytes = this.ring.subarray(0, this.slot * SLOT_BYTES + this.used);
    const hashes = hashers.map((hasher) => {
      hasher.update(bytes);
      return hasher.digest();
    });
    this.recycle();
    return hashes;
  }

  private recycle(): void {
    if (spare.length < SPARE_RINGS && !spare.includes(this.buffer)) spare.push(this.buffer);
  }
}
