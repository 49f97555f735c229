import { CHUNK_MASK_LARGE, GEAR, PIECE_MASK } from "./gear.js";
import { FNV_OFFSET, FNV_PRIME, fmix32 } from "./mix.js";
import type { ShadowSketch } from "./shadow-sketch.js";

/**
 * Where the gear hash allows a content-defined chunk cut inside one buffer: pairs of (index of the
 * byte that completed the match, gear hash after it). Only the chunkers of content_addressed and
 * hierarchical binary input read them.
 */
export type CutCandidates = number[];

/**
 * The one pass every byte goes through, whatever the method: the byte histogram (for entropy),
 * the gear rolling hash, and the FNV-1a hash of the current piece. A piece ends after a byte whose
 * gear hash has its top 6 bits clear; its hash feeds the shadow sketch. This loop is the engine's
 * hot path (bench/fingerprint.bench.ts), so it calls nothing: piece hashes are collected and handed
 * to the sketch after it, and module constants are read into locals first.
 */
export class Scanner {
  readonly histogram = new Float64Array(256);
  private gear = 0;
  private piece = FNV_OFFSET;
  private pieceOpen = false;
  private readonly pieces: number[] = [];

  constructor(private readonly sketch: ShadowSketch) {}

  /** Scans `data`, filling `candidates` with its chunk-cut candidates. */
  scan(data: Uint8Array, candidates: CutCandidates): void {
    candidates.length = 0;
    const pieces = this.pieces;
    const gear = GEAR;
    const pieceMask = PIECE_MASK;
    const chunkMask = CHUNK_MASK_LARGE;
    const prime = FNV_PRIME;
    const histogram = this.histogram;
    let h = this.gear;
    let piece = this.piece;
    let lastEnd = -1;
    for (let i = 0; i < data.length; i++) {
      const b = data[i]!;
      histogram[b]!++;
      h = ((h << 1) + gear[b]!) | 0;
      piece = Math.imul(piece ^ b, prime);
      if ((h & pieceMask) === 0) {
        pieces.push(piece);
        piece = FNV_OFFSET;
        lastEnd = i;
        if ((h & chunkMask) === 0) candidates.push(i, h);
      }
    }
    this.gear = h;
    this.piece = piece;
    this.pieceOpen = lastEnd === -1 ? this.pieceOpen || data.length > 0 : lastEnd + 1 < data.length;
    for (const p of pieces) this.sketch.addPiece(fmix32(p));
    pieces.length = 0;
  }

  /** Ends the last piece, if any bytes follow the last piece boundary. */
  finish(): void {
    if (this.pieceOpen) this.sketch.addPiece(fmix32(this.piece));
    this.pieceOpen = false;
  }
}
