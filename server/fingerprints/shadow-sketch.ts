import { resolutionOf, SHADOW_SCALES, SKETCH_SIZE, shadowHash } from "../../core/shadows.js";
import { BottomK } from "./bottom-k.js";
import { fmix32 } from "./mix.js";
import type { ShadowScale, ShadowTransform } from "./types.js";

const SEED = 0x9e3779b9 | 0;
const CHAIN = 0x85ebca77 | 0; // an odd multiplier: each chain step is a bijection of the chain value
const LONGEST = 13;
const RING = 16; // a power of two above LONGEST, so positions wrap with a mask

/**
 * Shadow transforms as bottom-k MinHash sketches (docs/fingerprint.md). The feature at scale s ends
 * at each piece and hashes the s pieces up to it (a shingle of s content-defined pieces), so an
 * edit changes only the features whose shingles overlap it, more of them at larger scales. Holds
 * the last 13 piece hashes and the six sketches, nothing else.
 */
export class ShadowSketch {
  private readonly ring = new Int32Array(RING);
  private readonly sketches = SHADOW_SCALES.map(() => new BottomK(SKETCH_SIZE));
  private pieces = 0;
  private chain = SEED;

  addPiece(pieceHash: number): void {
    const ring = this.ring;
    ring[this.pieces & (RING - 1)] = pieceHash;
    this.pieces++;
    // Chain from the newest piece back; after j steps it stands for the j-piece shingle.
    let x = SEED;
    let scale = 0;
    const depth = Math.min(this.pieces, LONGEST);
    for (let j = 1; j <= depth; j++) {
      x = Math.imul(x ^ ring[(this.pieces - j) & (RING - 1)]!, CHAIN);
      if (j === SHADOW_SCALES[scale]) this.sketches[scale++]!.offer(fmix32(x));
    }
    this.chain = x;
  }

  /** The six transforms; a document of fewer than s pieces has one feature at scale s, all of it. */
  finish(): ShadowTransform[] {
    return SHADOW_SCALES.map((scale, i) => {
      const sketch = this.sketches[i]!;
      if (this.pieces > 0 && this.pieces < scale) sketch.offer(fmix32(this.chain));
      return shadowTransform(scale, sketch.values());
    });
  }
}

function shadowTransform(scale: ShadowScale, values: number[]): ShadowTransform {
  return { scale, resolution: resolutionOf(scale), length: values.length, hash: shadowHash(values), values };
}
