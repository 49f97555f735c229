import { randomFillSync } from "node:crypto";
import { monotonicFactory } from "ulid";

const pool = new Uint8Array(4096);
let next = pool.length;

/**
 * ulid's PRNG contract (a number in [0, 1)) from a pool of random bytes refilled 4 KiB at a time:
 * its default asks the OS for one byte per character, sixteen calls for each new millisecond's id
 * (~40 µs here, more than the rest of a stamp's document).
 */
function pooledRandom(): number {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++]! / 256;
}

// Monotonic: ids made within one millisecond still sort in creation order.
const nextUlid = monotonicFactory(pooledRandom);

/** `stp_` and a ULID whose time part is the stamp's creation time (docs/design.md, Identifiers). */
export const newStampId = (createdAt: Date): string => `stp_${nextUlid(createdAt.getTime())}`;
