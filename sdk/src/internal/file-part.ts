import type { FileLike } from "form-data-encoder";
import { StampdError } from "./errors.js";

/**
 * form-data-encoder (4.1.0) cuts a chunk longer than this into pieces taken from `chunk.buffer`
 * without its `byteOffset`, which sends the wrong bytes for a view into a larger buffer (a slice
 * of a Node `Buffer`, say). Handing it no chunk longer than this keeps it from cutting at all.
 */
const MAX_CHUNK_BYTES = 65_536;

/**
 * A document given as bytes or as a stream, in the shape form-data-encoder takes a file in,
 * without copying it into a Blob. Bytes have a size and are sent again on a retry. A stream's size
 * is unknown (NaN), so its request has no Content-Length and goes out chunked, and it can be read
 * only once: after an attempt has started reading it, no retry can send it again.
 */
export class FilePart implements FileLike {
  readonly [Symbol.toStringTag] = "File";
  readonly type = "";
  readonly lastModified = Date.now();
  private started = false;

  private constructor(
    readonly name: string,
    readonly size: number,
    private readonly chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    private readonly once: boolean,
  ) {}

  static fromBytes(name: string, bytes: Uint8Array): FilePart {
    return new FilePart(name, bytes.byteLength, [bytes], false);
  }

  static fromStream(name: string, stream: AsyncIterable<Uint8Array>): FilePart {
    return new FilePart(name, Number.NaN, stream, true);
  }

  /** Whether the next attempt can send the whole part: always, except a stream already started. */
  get replayable(): boolean {
    return !(this.once && this.started);
  }

  async *stream(): AsyncGenerator<Uint8Array, void, undefined> {
    if (!this.replayable) throw new StampdError("an upload given as a stream can be sent only once");
    this.started = true;
    for await (const chunk of this.chunks) {
      for (let at = 0; at < chunk.byteLength; at += MAX_CHUNK_BYTES) {
        yield chunk.subarray(at, at + MAX_CHUNK_BYTES);
      }
    }
  }
}
