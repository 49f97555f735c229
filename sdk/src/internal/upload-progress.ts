import type { FileLike } from "form-data-encoder";

/** What `onUploadProgress` is called with: bytes of the document sent so far, of `total`. */
export interface UploadProgress {
  loaded: number;
  /** The document's size; undefined for a stream of unknown length. */
  total: number | undefined;
}

/** The encoder's own chunk size (see file-part.ts): no piece is cut again, and none is copied. */
const STEP_BYTES = 65_536;

export type UploadProgressListener = (progress: UploadProgress) => void;

/**
 * The document part as form-data-encoder reads it, counting its bytes on the way. The encoder
 * reads a part only as the request sends it (the body is a pull stream), so what was read is what
 * left for the server, give or take one chunk in flight.
 */
export class CountedFile implements FileLike {
  readonly [Symbol.toStringTag] = "File";

  constructor(
    private readonly file: FileLike,
    private readonly listener: UploadProgressListener,
  ) {}

  get name(): string {
    return this.file.name;
  }
  get size(): number {
    return this.file.size;
  }
  get type(): string {
    return this.file.type;
  }
  get lastModified(): number {
    return this.file.lastModified;
  }

  async *stream(): AsyncGenerator<Uint8Array, void, undefined> {
    const total = Number.isNaN(this.size) ? undefined : this.size;
    let loaded = 0;
    this.listener({ loaded, total });
    for await (const chunk of this.file.stream() as AsyncIterable<Uint8Array>) {
      // A Blob in memory comes as one chunk: steps of at most STEP_BYTES let progress move.
      for (let at = 0; at < chunk.byteLength; at += STEP_BYTES) {
        const piece = chunk.subarray(at, at + STEP_BYTES);
        yield piece;
        loaded += piece.byteLength;
        this.listener({ loaded, total });
      }
    }
  }
}
