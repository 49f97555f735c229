import { sha256 } from "@noble/hashes/sha2.js";

/**
 * RFC 6962 / RFC 9162 (section 2.1) Merkle trees: leaf = H(0x00 ‖ data), node = H(0x01 ‖ l ‖ r),
 * and an n-leaf tree splits at the largest power of two below n (never a padded tree). Portable:
 * no node: imports. The hash is injected so the server can pass node:crypto's SHA-256 (about nine
 * times faster than @noble/hashes, see TOOLCHAIN.md); the default instance uses @noble/hashes.
 */

/** Hashes the concatenation of `parts` without building it. */
export type HashParts = (...parts: Uint8Array[]) => Uint8Array;

/** A Merkle tree over fixed leaves, answering proofs in O(log n) after an O(n) build. */
export interface MerkleTree {
  readonly size: number;
  /** MTH of the leaves; H() of nothing for an empty tree. */
  root(): Uint8Array;
  /** Audit path (RFC 9162 2.1.3.1) of leaf `index`, from the leaf's sibling up to the root's child. */
  inclusionProof(index: number): Uint8Array[];
  /** Consistency proof (RFC 9162 2.1.4.1) from the tree of the first `m` leaves to this tree. */
  consistencyProof(m: number): Uint8Array[];
}

export interface Merkle {
  /** Hash of a leaf's data: H(0x00 ‖ data). */
  leafHash(data: Uint8Array): Uint8Array;
  /** Hash of an interior node: H(0x01 ‖ left ‖ right). */
  nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array;
  /** The tree over leaves with these leaf hashes, for several proofs over the same leaves. */
  tree(leafHashes: readonly Uint8Array[]): MerkleTree;
  merkleRoot(leafHashes: readonly Uint8Array[]): Uint8Array;
  inclusionProof(leafHashes: readonly Uint8Array[], index: number): Uint8Array[];
  /** RFC 9162 2.1.3.2: whether `auditPath` proves `leafHash` is leaf `index` of the tree with `root`. */
  verifyInclusion(
    leafHash: Uint8Array,
    index: number,
    treeSize: number,
    auditPath: readonly Uint8Array[],
    root: Uint8Array,
  ): boolean;
  /** Consistency proof between the trees of the first `m` and the first `n` leaves (default all). */
  consistencyProof(leafHashes: readonly Uint8Array[], m: number, n?: number): Uint8Array[];
  /** RFC 9162 2.1.4.2: whether `proof` shows the `n`-leaf tree `rootN` extends the `m`-leaf tree `rootM`. */
  verifyConsistency(
    m: number,
    n: number,
    rootM: Uint8Array,
    rootN: Uint8Array,
    proof: readonly Uint8Array[],
  ): boolean;
}

const LEAF_PREFIX = Uint8Array.of(0x00);
const NODE_PREFIX = Uint8Array.of(0x01);

/** A Merkle implementation over `hash`, which must be SHA-256 to match RFC 6962 roots. */
export function createMerkle(hash: HashParts): Merkle {
  const leafHash = (data: Uint8Array) => hash(LEAF_PREFIX, data);
  const nodeHash = (left: Uint8Array, right: Uint8Array) => hash(NODE_PREFIX, left, right);
  const tree = (leafHashes: readonly Uint8Array[]) => new LevelTree(leafHashes, nodeHash, hash());
  return {
    leafHash,
    nodeHash,
    tree,
    merkleRoot: (leaves) => tree(leaves).root(),
    inclusionProof: (leaves, index) => tree(leaves).inclusionProof(index),
    verifyInclusion: (leaf, index, treeSize, auditPath, root) =>
      checkInclusion(nodeHash, leaf, index, treeSize, auditPath, root),
    consistencyProof(leaves, m, n = leaves.length) {
      if (!Number.isSafeInteger(n) || n < 0 || n > leaves.length) {
        throw new RangeError(`no tree of ${n} leaves among ${leaves.length}`);
      }
      return tree(leaves.slice(0, n)).consistencyProof(m);
    },
    verifyConsistency: (m, n, rootM, rootN, proof) => checkConsistency(nodeHash, m, n, rootM, rootN, proof),
  };
}

type NodeHash = (left: Uint8Array, right: Uint8Array) => Uint8Array;

/**
 * The tree kept level by level, an unpaired last node moving up unchanged. The node at level L,
 * index i then has the hash MTH(D[i·2^L : min(n, (i+1)·2^L)]), which is every subtree the RFC's
 * largest-power-of-two recursion asks for; auditPath and consistencyPath follow RFC 9162 to the letter
 * and only read their MTH values from here.
 */
class LevelTree implements MerkleTree {
  private readonly levels: Uint8Array[][];

  constructor(
    leaves: readonly Uint8Array[],
    nodeHash: NodeHash,
    private readonly emptyRoot: Uint8Array,
  ) {
    this.levels = [[...leaves]];
    for (let level = this.levels[0]!; level.length > 1; ) {
      const up: Uint8Array[] = [];
      for (let i = 0; i < level.length; i += 2)
        up.push(i + 1 < level.length ? nodeHash(level[i]!, level[i + 1]!) : level[i]!);
      this.levels.push(up);
      level = up;
    }
  }

  get size(): number {
    return this.levels[0]!.length;
  }

  root(): Uint8Array {
    return this.size === 0 ? this.emptyRoot : this.levels[this.levels.length - 1]![0]!;
  }

  inclusionProof(index: number): Uint8Array[] {
    if (!Number.isSafeInteger(index) || index < 0 || index >= this.size) {
      throw new RangeError(`leaf index ${index} is outside a tree of ${this.size} leaves`);
    }
    // The RFC's audit path, read off the levels: the node beside the leaf's ancestor on each level,
    // where there is one (an unpaired last node has none: it moved up unchanged). Same hashes as
    // auditPath() over mth(), without its recursion (test/merkle holds the two equal).
    const out: Uint8Array[] = [];
    for (let level = 0, i = index; level < this.levels.length - 1; level++, i = Math.floor(i / 2)) {
      const nodes = this.levels[level]!;
      const sibling = i % 2 === 0 ? i + 1 : i - 1;
      if (sibling < nodes.length) out.push(nodes[sibling]!);
    }
    return out;
  }

  consistencyProof(m: number): Uint8Array[] {
    if (!Number.isSafeInteger(m) || m < 0 || m > this.size) {
      throw new RangeError(`no consistency proof from ${m} leaves to ${this.size}`);
    }
    return consistencyPath((start, end) => this.mth(start, end), m, this.size);
  }

  /** MTH(D[start:end]) for a range the recursion produces (start is a multiple of its height's span). */
  private mth(start: number, end: number): Uint8Array {
    const level = treeHeight(end - start);
    return this.levels[level]![start / 2 ** level]!;
  }
}

/**
 * MTH(D[start:end]) of a subtree the RFC recursion asks for: [start, start + 2^k) ranges and the
 * right remainders beside them. A tree stored another way (the transparency log's) answers proofs
 * through auditPath and consistencyPath by supplying this.
 */
export type SubtreeHash = (start: number, end: number) => Uint8Array;

/** Audit path (RFC 9162 2.1.3.1) of leaf `index` in the tree of the first `size` leaves. */
export function auditPath(mth: SubtreeHash, index: number, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  path(mth, index, 0, size, out);
  return out;
}

/** Consistency proof (RFC 9162 2.1.4.1) from the first `m` leaves to the first `size`. */
export function consistencyPath(mth: SubtreeHash, m: number, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  // From the empty tree the proof is empty: every tree extends it.
  if (m > 0) subproof(mth, m, 0, size, true, out);
  return out;
}

// PATH(m, D[start:end]), RFC 9162 2.1.3.1, collected leaf first.
function path(mth: SubtreeHash, m: number, start: number, end: number, out: Uint8Array[]): void {
  if (end - start === 1) return;
  const k = splitPoint(end - start);
  if (m < k) {
    path(mth, m, start, start + k, out);
    out.push(mth(start + k, end));
  } else {
    path(mth, m - k, start + k, end, out);
    out.push(mth(start, start + k));
  }
}

// SUBPROOF(m, D[start:end], b), RFC 9162 2.1.4.1.
function subproof(
  mth: SubtreeHash,
  m: number,
  start: number,
  end: number,
  complete: boolean,
  out: Uint8Array[],
): void {
  if (m === end - start) {
    if (!complete) out.push(mth(start, end));
    return;
  }
  const k = splitPoint(end - start);
  if (m <= k) {
    subproof(mth, m, start, start + k, complete, out);
    out.push(mth(start + k, end));
  } else {
    subproof(mth, m - k, start + k, end, false, out);
    out.push(mth(start, start + k));
  }
}

/** The largest power of two smaller than n (n >= 2): where RFC 6962 splits an n-leaf tree. */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** Height of an n-leaf RFC 6962 tree: 0 for one leaf (or none), ceil(log2 n) otherwise. */
export function treeHeight(n: number): number {
  let height = 0;
  while (2 ** height < n) height++;
  return height;
}

// Sizes and indices beyond 2^53 cannot occur; the shifts below are written as divisions so that
// trees above 2^31 leaves (the transparency log's) still work with JavaScript numbers.
const lsb = (x: number) => x % 2 === 1;
const shr = (x: number) => Math.floor(x / 2);

function checkInclusion(
  nodeHash: NodeHash,
  leaf: Uint8Array,
  index: number,
  treeSize: number,
  auditPath: readonly Uint8Array[],
  root: Uint8Array,
): boolean {
  if (!validSize(index) || !validSize(treeSize) || index >= treeSize) return false;
  let fn = index;
  let sn = treeSize - 1;
  let r = leaf;
  for (const p of auditPath) {
    if (sn === 0) return false;
    if (lsb(fn) || fn === sn) {
      r = nodeHash(p, r);
      while (!lsb(fn) && fn !== 0) {
        fn = shr(fn);
        sn = shr(sn);
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = shr(fn);
    sn = shr(sn);
  }
  return sn === 0 && equalBytes(r, root);
}

function checkConsistency(
  nodeHash: NodeHash,
  m: number,
  n: number,
  rootM: Uint8Array,
  rootN: Uint8Array,
  proof: readonly Uint8Array[],
): boolean {
  if (!validSize(m) || !validSize(n) || m > n) return false;
  // Equal sizes need equal roots and nothing else; the empty tree is a prefix of every tree.
  if (m === n) return proof.length === 0 && equalBytes(rootM, rootN);
  if (m === 0) return proof.length === 0;
  if (proof.length === 0) return false;
  const path = isPowerOfTwo(m) ? [rootM, ...proof] : [...proof];
  let fn = m - 1;
  let sn = n - 1;
  while (lsb(fn)) {
    fn = shr(fn);
    sn = shr(sn);
  }
  let fr = path[0]!;
  let sr = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (lsb(fn) || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (!lsb(fn) && fn !== 0) {
        fn = shr(fn);
        sn = shr(sn);
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = shr(fn);
    sn = shr(sn);
  }
  return sn === 0 && equalBytes(fr, rootM) && equalBytes(sr, rootN);
}

const validSize = (x: number) => Number.isSafeInteger(x) && x >= 0;
const isPowerOfTwo = (x: number) => x > 0 && 2 ** Math.round(Math.log2(x)) === x;

/** Constant-length comparison of two byte strings. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/** SHA-256 over parts with @noble/hashes: portable, for browsers and offline verification. */
export const nobleSha256: HashParts = (...parts) => {
  const h = sha256.create();
  for (const part of parts) h.update(part);
  return h.digest();
};

const portable = createMerkle(nobleSha256);

export const { leafHash, nodeHash, merkleRoot, inclusionProof, verifyInclusion } = portable;
export const { consistencyProof, verifyConsistency } = portable;
