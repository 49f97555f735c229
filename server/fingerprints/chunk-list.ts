import { hash } from "node:crypto";
import type { components } from "../../gen/openapi/types.js";

type FingerprintChunk = components["schemas"]["FingerprintChunk"];
type FingerprintSection = components["schemas"]["FingerprintSection"];

/**
 * The chunks cut so far: a chunker writes a chunk's bytes as they arrive and then cuts; only each
 * chunk's offset, length and SHA-256 are kept. The open chunk's bytes are staged in one reused
 * buffer (chunks are at most 32 KiB) and hashed in one call at the cut: a Hash object per chunk
 * cost more in allocation and garbage collection than the copy (bench/fingerprint.bench.ts).
 */
export class ChunkList {
  readonly chunks: FingerprintChunk[] = [];
  readonly sections: FingerprintSection[] = [];
  private staged = new Uint8Array(32 * 1024);
  private stagedLength = 0;
  private start = 0;
  private sectionStart = 0;
  private sectionFirstChunk = 0;

  /** Bytes written to the current (open) chunk. */
  get openLength(): number {
    return this.stagedLength;
  }

  write(bytes: Uint8Array): void {
    const needed = this.stagedLength + bytes.length;
    if (needed > this.staged.length) this.grow(needed);
    this.staged.set(bytes, this.stagedLength);
    this.stagedLength = needed;
  }

  /** Closes the open chunk (if it has any bytes); `endsSection` also closes its section. */
  cut(endsSection = false): void {
    if (this.stagedLength === 0) return;
    const length = this.stagedLength;
    this.chunks.push({
      offset: this.start,
      length,
      hash: hash("sha256", this.staged.subarray(0, length), "hex"),
    });
    this.start += length;
    this.stagedLength = 0;
    if (endsSection) this.closeSection();
  }

  /** Closes the last chunk and section. */
  finish(): void {
    this.cut();
    if (this.start > this.sectionStart) this.closeSection();
  }

  private grow(needed: number): void {
    const bigger = new Uint8Array(Math.max(needed, 2 * this.staged.length));
    bigger.set(this.staged.subarray(0, this.stagedLength));
    this.staged = bigger;
  }

  private closeSection(): void {
    this.sections.push({
      offset: this.sectionStart,
      length: this.start - this.sectionStart,
      first_chunk: this.sectionFirstChunk,
      chunk_count: this.chunks.length - this.sectionFirstChunk,
    });
    this.sectionStart = this.start;
    this.sectionFirstChunk = this.chunks.length;
  }
}
