import { STANDARD_PIECE_BYTES } from "../../core/shadows.js";
import { GEAR } from "./gear.js";
import { FNV_OFFSET, FNV_PRIME, fmix32 } from "./mix.js";
import { ShadowSketch } from "./shadow-sketch.js";
import type { FineShadows, ShadowTransform } from "./types.js";

/** Pieces a document is cut into at its finest piece size: 128 to 255 (every byte below 256 bytes). */
const MIN_PIECES_LOG2 = 7;
const STANDARD_BITS = Math.log2(STANDARD_PIECE_BYTES);

/**
 * Below this size a document gets `fine_shadows`; from here on it has 128 or more of the 64-byte
 * pieces of `shadows`, enough that a small edit leaves most features of every scale intact.
 */
export const FINE_SHADOW_LIMIT = STANDARD_PIECE_BYTES << MIN_PIECES_LOG2;

/**
 * Fine pieces end where bits 8 − b … 7 of the gear hash are zero (b = log2 of the piece size), so
 * each decision depends on the last 8 bytes only: an edit moves the piece ends of the 8 bytes after
 * it, not of the 32 that the top bits would, which at 2-byte pieces is the difference between
 * losing 4 pieces and losing 16 (measured in docs/fingerprint.md).
 */
const FINE_WINDOW_BYTES = 8;

/** log2 of the finest piece size for a document of `size` bytes (at least 1). */
export function finestPieceBits(size: number): number {
  return Math.max(0, 31 - Math.clz32(size) - MIN_PIECES_LOG2);
}

/**
 * The fine shadows of a whole document shorter than FINE_SHADOW_LIMIT (none for an empty or longer
 * one): from the finest piece size for its size up to 32 bytes, finest first. Keeping the coarser
 * sizes too lets two documents of different sizes compare at the finest size both carry
 * (docs/fingerprint.md).
 */
export function fineShadows(bytes: Uint8Array): FineShadows[] {
  if (bytes.length === 0 || bytes.length >= FINE_SHADOW_LIMIT) return [];
  const levels: FineShadows[] = [];
  for (let bits = finestPieceBits(bytes.length); bits < STANDARD_BITS; bits++) {
    const piece_bytes = (1 << bits) as FineShadows["piece_bytes"];
    levels.push({ piece_bytes, shadows: shadowsOver(bytes, bits) });
  }
  return levels;
}

/**
 * The byte pass of docs/fingerprint.md part 1 with pieces of 2^bits bytes on average (every byte
 * a piece when `bits` is 0), then the shadows of part 5 over those pieces.
 */
function shadowsOver(bytes: Uint8Array, bits: number): ShadowTransform[] {
  const sketch = new ShadowSketch();
  const mask = ((1 << bits) - 1) << (FINE_WINDOW_BYTES - bits);
  let h = 0;
  let piece = FNV_OFFSET;
  let open = false;
  for (const b of bytes) {
    h = ((h << 1) + GEAR[b]!) | 0;
    piece = Math.imul(piece ^ b, FNV_PRIME);
    open = true;
    if ((h & mask) === 0) {
      sketch.addPiece(fmix32(piece));
      piece = FNV_OFFSET;
      open = false;
    }
  }
  if (open) sketch.addPiece(fmix32(piece));
  return sketch.finish();
}
