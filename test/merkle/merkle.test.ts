import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  auditPath,
  consistencyProof,
  createMerkle,
  type HashParts,
  inclusionProof,
  leafHash,
  merkleRoot,
  verifyConsistency,
  verifyInclusion,
} from "../../core/merkle.js";

const nodeSha256: HashParts = (...parts) => {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return h.digest();
};
// The server's instance; the exported functions are the portable @noble one.
const fast = createMerkle(nodeSha256);

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const unhex = (h: string) => new Uint8Array(Buffer.from(h, "hex"));

// Reference data of RFC 6962 trees, as published with Certificate Transparency's implementations
// (transparency-dev/merkle proof/verify_test.go): eight leaves, the roots of their prefixes, and
// some proofs.
const CT_LEAVES = [
  "",
  "00",
  "10",
  "2021",
  "3031",
  "40414243",
  "5051525354555657",
  "606162636465666768696a6b6c6d6e6f",
].map(unhex);
const CT_ROOTS = [
  "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
  "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
  "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
  "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
  "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
  "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
  "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
  "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
];
const CT_INCLUSION: [index: number, size: number, path: string[]][] = [
  [
    0,
    8,
    [
      "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
      "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
      "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
    ],
  ],
  [
    5,
    8,
    [
      "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
      "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
      "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    ],
  ],
  [2, 3, ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"]],
  [
    1,
    5,
    [
      "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
      "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
      "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
    ],
  ],
];
const CT_CONSISTENCY: [m: number, n: number, proof: string[]][] = [
  [1, 1, []],
  [
    1,
    8,
    [
      "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
      "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
      "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
    ],
  ],
  [
    6,
    8,
    [
      "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
      "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
      "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    ],
  ],
  [
    2,
    5,
    [
      "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
      "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
    ],
  ],
  [
    6,
    7,
    [
      "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
      "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
      "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    ],
  ],
];

/** RFC 6962 section 2.1's MTH written out directly, as an independent check of the level tree. */
function referenceRoot(leafHashes: Uint8Array[]): Uint8Array {
  if (leafHashes.length === 0) return nodeSha256();
  if (leafHashes.length === 1) return leafHashes[0]!;
  let k = 1;
  while (k * 2 < leafHashes.length) k *= 2;
  return fast.nodeHash(referenceRoot(leafHashes.slice(0, k)), referenceRoot(leafHashes.slice(k)));
}

const leavesOf = (n: number) =>
  Array.from({ length: n }, (_, i) => fast.leafHash(Uint8Array.of(i & 255, i >> 8, 7)));
const flip = (b: Uint8Array, bit = 0) => {
  const c = Uint8Array.from(b);
  c[bit >> 3]! ^= 1 << (bit & 7);
  return c;
};
/**
 * Tree sizes near n (n ± 1, 2n, n / 2) that must reject a proof made for size n. A size whose
 * proof has the same length can share its shape (0 of 3 and 0 of 4 both go right, right), and
 * then the proof is valid for a tree of that size with other leaves: sizes are authenticated
 * beside the root (a signed tree head), not by the path. Those sizes are left out.
 */
function otherSizes(
  n: number,
  last: number,
  proofLength: (size: number) => number,
  length: number,
): number[] {
  const sizes = [n - 1, n + 1, 2 * n, n >> 1].filter((size) => size > last && size !== n && size <= 600);
  return sizes.filter((size) => proofLength(size) !== length);
}
// Proof lengths by the RFC's recursion on sizes alone (no hashing).
const split = (n: number) => 2 ** Math.ceil(Math.log2(n) - 1);
const pathLength = (i: number, n: number): number =>
  n <= 1 ? 0 : 1 + (i < split(n) ? pathLength(i, split(n)) : pathLength(i - split(n), n - split(n)));
const subproofLength = (m: number, n: number, complete: boolean): number => {
  if (m === n) return complete ? 0 : 1;
  const k = split(n);
  return 1 + (m <= k ? subproofLength(m, k, complete) : subproofLength(m - k, n - k, false));
};
const withFlipped = (path: Uint8Array[], i: number) => path.map((p, j) => (j === i ? flip(p, 3) : p));

describe("RFC 6962 reference vectors", () => {
  const ctLeaves = CT_LEAVES.map(leafHash);

  it("gives the published root of every prefix, with @noble and with node:crypto", () => {
    for (let n = 0; n <= 8; n++) {
      expect(hex(merkleRoot(ctLeaves.slice(0, n))), `size ${n}`).toBe(CT_ROOTS[n]);
      expect(hex(fast.merkleRoot(ctLeaves.slice(0, n))), `size ${n}`).toBe(CT_ROOTS[n]);
    }
  });

  it.each(CT_INCLUSION)(
    "builds and verifies the published audit path of leaf %i in %i",
    (index, size, path) => {
      const leaves = ctLeaves.slice(0, size);
      expect(inclusionProof(leaves, index).map(hex)).toEqual(path);
      expect(verifyInclusion(leaves[index]!, index, size, path.map(unhex), unhex(CT_ROOTS[size]!))).toBe(
        true,
      );
    },
  );

  it.each(CT_CONSISTENCY)("builds and verifies the published consistency proof %i -> %i", (m, n, proof) => {
    expect(consistencyProof(ctLeaves, m, n).map(hex)).toEqual(proof);
    expect(verifyConsistency(m, n, unhex(CT_ROOTS[m]!), unhex(CT_ROOTS[n]!), proof.map(unhex))).toBe(true);
  });
});

describe("inclusion proofs", () => {
  it("for every tree size 1..300: the root is RFC 6962's MTH and every leaf's proof verifies", () => {
    for (let n = 1; n <= 300; n++) {
      const leaves = leavesOf(n);
      const tree = fast.tree(leaves);
      const root = tree.root();
      expect(hex(root), `size ${n}`).toBe(hex(referenceRoot(leaves)));
      for (let i = 0; i < n; i++) {
        const path = tree.inclusionProof(i);
        if (!fast.verifyInclusion(leaves[i]!, i, n, path, root)) throw new Error(`leaf ${i} of ${n} fails`);
      }
    }
  }, 120_000);

  it("for every tree size 1..300: the tree's proofs are the RFC recursion's (auditPath)", () => {
    for (let n = 1; n <= 300; n++) {
      const leaves = leavesOf(n);
      const subtrees = new Map<string, Uint8Array>();
      const mth = (start: number, end: number) => {
        const key = `${start}:${end}`;
        if (!subtrees.has(key)) subtrees.set(key, referenceRoot(leaves.slice(start, end)));
        return subtrees.get(key)!;
      };
      const tree = fast.tree(leaves);
      for (let i = 0; i < n; i++) {
        expect(tree.inclusionProof(i).map(hex), `leaf ${i} of ${n}`).toEqual(auditPath(mth, i, n).map(hex));
      }
    }
  }, 120_000);

  it("for every tree size 1..300: a wrong index, size, leaf, root or path element fails", () => {
    const fails = (ok: boolean, what: string) => {
      if (ok) throw new Error(`accepted ${what}`);
    };
    for (let n = 1; n <= 300; n++) {
      const leaves = leavesOf(n);
      const tree = fast.tree(leaves);
      const root = tree.root();
      for (let i = 0; i < n; i++) {
        const path = tree.inclusionProof(i);
        const at = `leaf ${i} of ${n}`;
        const v = (leaf: Uint8Array, index: number, size: number, p: Uint8Array[], r: Uint8Array) =>
          fast.verifyInclusion(leaf, index, size, p, r);
        if (i > 0) fails(v(leaves[i]!, i - 1, n, path, root), `${at} as index - 1`);
        fails(v(leaves[i]!, i + 1, n, path, root), `${at} as index + 1`);
        for (const size of otherSizes(n, i, (size) => pathLength(i, size), path.length)) {
          fails(v(leaves[i]!, i, size, path, root), `${at} in size ${size}`);
        }
        fails(v(flip(leaves[i]!), i, n, path, root), `${at} with a changed leaf`);
        fails(v(leaves[i]!, i, n, path, flip(root)), `${at} with a changed root`);
        fails(v(leaves[i]!, i, n, [...path, root], root), `${at} with an extra element`);
        if (path.length)
          fails(v(leaves[i]!, i, n, path.slice(0, -1), root), `${at} without its last element`);
        // Every element of every path for the smaller trees; one element per path above (see below).
        const elements =
          n <= 64 ? path.keys() : [i % Math.max(path.length, 1)].filter((j) => j < path.length);
        for (const j of elements)
          fails(v(leaves[i]!, i, n, withFlipped(path, j), root), `${at} element ${j}`);
      }
    }
  }, 120_000);

  it("any changed element of any path fails (fast-check, trees up to 2000 leaves)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 2000 }), fc.nat(), fc.nat(), fc.nat(255), (n, a, b, bit) => {
        const leaves = leavesOf(n);
        const index = a % n;
        const tree = fast.tree(leaves);
        const path = tree.inclusionProof(index);
        const tampered = path.map((p, j) => (j === b % path.length ? flip(p, bit) : p));
        expect(fast.verifyInclusion(leaves[index]!, index, n, tampered, tree.root())).toBe(false);
      }),
      { numRuns: 200 },
    );
  });

  it("portable and node:crypto instances agree (fast-check)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 700 }), fc.nat(), (n, seed) => {
        const leaves = leavesOf(n);
        const index = seed % n;
        const path = inclusionProof(leaves, index);
        expect(path.map(hex)).toEqual(fast.inclusionProof(leaves, index).map(hex));
        expect(verifyInclusion(leaves[index]!, index, n, path, merkleRoot(leaves))).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it("refuses to prove a leaf outside the tree", () => {
    expect(() => fast.inclusionProof(leavesOf(3), 3)).toThrow(RangeError);
    expect(() => fast.inclusionProof([], 0)).toThrow(RangeError);
    expect(fast.verifyInclusion(leafHash(new Uint8Array()), 0, 0, [], merkleRoot([]))).toBe(false);
  });

  it("a one-leaf tree's root is its leaf hash and its proof is empty", () => {
    const leaf = leafHash(new TextEncoder().encode("data"));
    expect(hex(merkleRoot([leaf]))).toBe(hex(leaf));
    expect(inclusionProof([leaf], 0)).toEqual([]);
    expect(verifyInclusion(leaf, 0, 1, [], leaf)).toBe(true);
  });
});

describe("consistency proofs", () => {
  const leaves = leavesOf(64);
  const tree = fast.tree(leaves);
  const roots = Array.from({ length: 65 }, (_, n) => fast.merkleRoot(leaves.slice(0, n)));

  it("verify for every pair 1 <= m <= n <= 64", () => {
    for (let n = 1; n <= 64; n++) {
      const prefix = fast.tree(leaves.slice(0, n));
      for (let m = 1; m <= n; m++) {
        const proof = prefix.consistencyProof(m);
        if (!fast.verifyConsistency(m, n, roots[m]!, roots[n]!, proof)) throw new Error(`${m} -> ${n} fails`);
      }
    }
    expect(tree.consistencyProof(64)).toEqual([]);
  });

  it("fail for every pair when a size, root or proof element is changed", () => {
    const fails = (ok: boolean, what: string) => {
      if (ok) throw new Error(`accepted ${what}`);
    };
    for (let n = 2; n <= 64; n++) {
      for (let m = 1; m < n; m++) {
        const proof = fast.consistencyProof(leaves, m, n);
        const v = (a: number, b: number, ra: Uint8Array, rb: Uint8Array, p: Uint8Array[]) =>
          fast.verifyConsistency(a, b, ra, rb, p);
        const at = `${m} -> ${n}`;
        if (m > 1) fails(v(m - 1, n, roots[m]!, roots[n]!, proof), `${at} as m - 1`);
        fails(v(m + 1, n, roots[m]!, roots[n]!, proof), `${at} as m + 1`);
        for (const size of otherSizes(n, m - 1, (size) => subproofLength(m, size, true), proof.length)) {
          fails(v(m, size, roots[m]!, roots[n]!, proof), `${at} as ${m} -> ${size}`);
        }
        fails(v(m, n, flip(roots[m]!), roots[n]!, proof), `${at} with a changed first root`);
        fails(v(m, n, roots[m]!, flip(roots[n]!), proof), `${at} with a changed second root`);
        fails(v(m, n, roots[n]!, roots[m]!, proof), `${at} with swapped roots`);
        fails(v(m, n, roots[m]!, roots[n]!, []), `${at} with an empty proof`);
        fails(v(m, n, roots[m]!, roots[n]!, [...proof, roots[m]!]), `${at} with an extra element`);
        fails(v(m, n, roots[m]!, roots[n]!, proof.slice(0, -1)), `${at} without its last element`);
        for (let j = 0; j < proof.length; j++)
          fails(v(m, n, roots[m]!, roots[n]!, withFlipped(proof, j)), `${at} element ${j}`);
      }
    }
  });

  it("equal sizes need equal roots and an empty proof; the empty tree is a prefix of all", () => {
    expect(fast.verifyConsistency(5, 5, roots[5]!, roots[5]!, [])).toBe(true);
    expect(fast.verifyConsistency(5, 5, roots[5]!, roots[4]!, [])).toBe(false);
    expect(fast.verifyConsistency(5, 5, roots[5]!, roots[5]!, [roots[5]!])).toBe(false);
    expect(fast.verifyConsistency(0, 9, roots[0]!, roots[9]!, [])).toBe(true);
    expect(fast.verifyConsistency(9, 5, roots[9]!, roots[5]!, [])).toBe(false);
    expect(() => fast.consistencyProof(leaves, 10, 9)).toThrow(RangeError);
  });

  it("hold for large logs beyond 2^31 positions only through the arithmetic (sizes as numbers)", () => {
    // A proof for a tree that cannot be built here must still be rejected, not loop or overflow.
    expect(fast.verifyConsistency(2 ** 40 + 3, 2 ** 41 + 5, roots[1]!, roots[2]!, [roots[3]!])).toBe(false);
    expect(fast.verifyInclusion(roots[1]!, 2 ** 40, 2 ** 41, [roots[2]!], roots[3]!)).toBe(false);
  });
});
