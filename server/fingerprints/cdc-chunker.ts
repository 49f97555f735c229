import type { ChunkList } from "./chunk-list.js";
import type { Chunker } from "./chunker.js";
import { CHUNK_MASK_SMALL, SECTION_MASK } from "./gear.js";
import type { CutCandidates } from "./scanner.js";

/** FastCDC sizes (min = avg / 4, max = 8 × avg). */
export const CDC_MIN_BYTES = 1024;
export const CDC_AVG_BYTES = 4096;
export const CDC_MAX_BYTES = 32768;

/**
 * Content-defined chunking in the manner of FastCDC (Xia et al., USENIX ATC 2016): a chunk ends
 * after the first byte, at least CDC_MIN_BYTES in, whose gear hash has the top 14 bits clear
 * while the chunk is shorter than CDC_AVG_BYTES and the top 10 bits clear after (normalized
 * chunking), or at CDC_MAX_BYTES. Because the gear hash only sees the last 32 bytes, an edit moves
 * at most the cuts next to it. With `sections`, a cut whose hash also has the top 16 bits clear
 * ends a section as well (hierarchical input without text structure). Buffers nothing.
 */
export class CdcChunker implements Chunker {
  constructor(
    readonly list: ChunkList,
    private readonly sections = false,
  ) {}

  push(data: Uint8Array, candidates: CutCandidates): void {
    let written = 0;
    for (let k = 0; k < candidates.length; k += 2) {
      const boundary = candidates[k]! + 1;
      const hash = candidates[k + 1]!;
      written = this.cutAtMax(data, written, boundary);
      const length = this.list.openLength + boundary - written;
      if (length < CDC_MIN_BYTES) continue;
      if (length < CDC_AVG_BYTES && (hash & CHUNK_MASK_SMALL) !== 0) continue;
      this.list.write(data.subarray(written, boundary));
      written = boundary;
      this.list.cut(this.sections && (hash & SECTION_MASK) === 0);
    }
    written = this.cutAtMax(data, written, data.length);
    this.list.write(data.subarray(written));
  }

  finish(): void {
    this.list.finish();
  }

  /** Cuts every chunk that reaches CDC_MAX_BYTES before `end`; returns how far `data` was written. */
  private cutAtMax(data: Uint8Array, from: number, end: number): number {
    let at = from;
    while (this.list.openLength + end - at >= CDC_MAX_BYTES) {
      const take = CDC_MAX_BYTES - this.list.openLength;
      this.list.write(data.subarray(at, at + take));
      this.list.cut();
      at += take;
    }
    return at;
  }
}
