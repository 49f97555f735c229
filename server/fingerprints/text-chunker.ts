import { ByteWindow } from "./byte-window.js";
import type { ChunkList } from "./chunk-list.js";
import type { Chunker } from "./chunker.js";
import { blankSinceLineStart, fallbackCut, sectionStartsAt } from "./text-boundaries.js";

export const TEXT_MIN_BYTES = 1024;
export const TEXT_MAX_BYTES = 16384;

const NEWLINE = 0x0a;

/**
 * Chunks text at its own structure: a chunk ends at the first paragraph break (the end of a blank
 * line) at least TEXT_MIN_BYTES in; if none comes within TEXT_MAX_BYTES, at the last sentence end,
 * else line end, else space, else at TEXT_MAX_BYTES. With `sections` (hierarchical), the start of a
 * heading line (`#` to `######` and a blank) or of a form-feed line begins a new section, and so
 * ends the chunk, once the current section has TEXT_MIN_BYTES: a section then ends with at most one
 * short chunk, which bounds the chunk count by twice size / TEXT_MIN_BYTES. Buffers the open chunk
 * only: at most TEXT_MAX_BYTES plus one input buffer.
 */
export class TextChunker implements Chunker {
  private readonly window = new ByteWindow();
  /** Whether the line containing the window's first byte is blank up to there. */
  private blankBefore = true;
  /** Window index from which newlines have not been looked at yet. */
  private scanned = 0;
  /** Bytes of the current section in chunks already cut. */
  private sectionBytes = 0;

  constructor(
    readonly list: ChunkList,
    private readonly sections = false,
  ) {}

  push(data: Uint8Array): void {
    this.window.append(data);
    this.cutWhilePossible(false);
  }

  finish(): void {
    this.cutWhilePossible(true);
    this.emit(this.window.length, false);
    this.list.finish();
  }

  private cutWhilePossible(final: boolean): void {
    for (;;) {
      const cut = this.findCut(final);
      if (!cut) return;
      this.emit(cut.at, cut.endsSection);
    }
  }

  private findCut(final: boolean): { at: number; endsSection: boolean } | null {
    const bytes = this.window.view();
    const limit = Math.min(bytes.length, TEXT_MAX_BYTES);
    for (let nl = bytes.indexOf(NEWLINE, this.scanned); nl !== -1 && nl < limit; ) {
      const at = nl + 1;
      if (this.sections && this.sectionBytes + at >= TEXT_MIN_BYTES) {
        const section = sectionStartsAt(bytes, at, final);
        if (section === undefined) return null;
        if (section) return { at, endsSection: true };
      }
      if (at >= TEXT_MIN_BYTES && blankSinceLineStart(bytes, nl, this.blankBefore)) {
        return { at, endsSection: false };
      }
      this.scanned = at;
      nl = bytes.indexOf(NEWLINE, at);
    }
    if (bytes.length >= TEXT_MAX_BYTES) {
      return { at: fallbackCut(bytes, TEXT_MIN_BYTES, TEXT_MAX_BYTES), endsSection: false };
    }
    return null;
  }

  private emit(length: number, endsSection: boolean): void {
    if (length === 0) return;
    const chunk = this.window.view().subarray(0, length);
    this.blankBefore = blankSinceLineStart(chunk, chunk.length, this.blankBefore);
    this.list.write(chunk);
    this.list.cut(endsSection);
    this.window.consume(length);
    this.scanned = 0;
    this.sectionBytes = endsSection ? 0 : this.sectionBytes + length;
  }
}
