import { auditPath, consistencyPath, splitPoint } from "../../core/merkle.js";
import { merkle } from "../fingerprints/merkle.js";

/**
 * The log's RFC 6962 tree in memory, growing by appends. Only complete subtrees are kept (level L
 * holds the hashes of the aligned 2^L-leaf subtrees: about 2n hashes for n leaves), so a proof for
 * any earlier size is still answered exactly: the ragged right edge of that size is recomputed
 * from complete subtrees. The proof recursions themselves are core/merkle.ts's.
 */
export class LogTree {
  private readonly levels: Uint8Array[][] = [[]];

  get size(): number {
    return this.levels[0]!.length;
  }

  append(leafHash: Uint8Array): void {
    this.levels[0]!.push(leafHash);
    for (let level = 0; this.levels[level]!.length % 2 === 0; level++) {
      const nodes = this.levels[level]!;
      this.levels[level + 1] ??= [];
      this.levels[level + 1]!.push(merkle.nodeHash(nodes[nodes.length - 2]!, nodes[nodes.length - 1]!));
    }
  }

  /** The leaf hash of entry `index`. */
  leaf(index: number): Uint8Array {
    this.checkSize(index + 1);
    return this.levels[0]![index]!;
  }

  /** The hash of the complete subtree of leaves [index·2^level, (index+1)·2^level). */
  subtree(level: number, index: number): Uint8Array {
    const node = this.levels[level]?.[index];
    if (!node) throw new RangeError(`no complete subtree ${index} of 2^${level} leaves in ${this.size}`);
    return node;
  }

  /** MTH of the first `size` leaves. */
  root(size = this.size): Uint8Array {
    this.checkSize(size);
    return size === 0 ? merkle.merkleRoot([]) : this.mth(0, size);
  }

  inclusionProof(index: number, size: number): Uint8Array[] {
    this.checkSize(size);
    if (!Number.isSafeInteger(index) || index < 0 || index >= size) {
      throw new RangeError(`entry ${index} is not in a tree of ${size} entries`);
    }
    return auditPath((start, end) => this.mth(start, end), index, size);
  }

  consistencyProof(first: number, second: number): Uint8Array[] {
    this.checkSize(second);
    if (!Number.isSafeInteger(first) || first < 0 || first > second) {
      throw new RangeError(`no consistency proof from ${first} entries to ${second}`);
    }
    return consistencyPath((start, end) => this.mth(start, end), first, second);
  }

  private checkSize(size: number): void {
    if (!Number.isSafeInteger(size) || size < 0 || size > this.size) {
      throw new RangeError(`the log has ${this.size} entries, not ${size}`);
    }
  }

  /** MTH(D[start:end]): a stored complete subtree, or split at the largest power of two below. */
  private mth(start: number, end: number): Uint8Array {
    const width = end - start;
    const level = Math.log2(width);
    if (Number.isInteger(level) && start % width === 0) return this.levels[level]![start / width]!;
    const k = splitPoint(width);
    return merkle.nodeHash(this.mth(start, start + k), this.mth(start + k, end));
  }
}
