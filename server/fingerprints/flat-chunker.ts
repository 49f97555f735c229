import type { ChunkList } from "./chunk-list.js";
import type { Chunker } from "./chunker.js";

/** `flat`: fixed-size chunks of FLAT_CHUNK_BYTES, the last one shorter. Buffers nothing. */
export const FLAT_CHUNK_BYTES = 4096;

export class FlatChunker implements Chunker {
  constructor(readonly list: ChunkList) {}

  push(data: Uint8Array): void {
    let at = 0;
    while (at < data.length) {
      const room = FLAT_CHUNK_BYTES - this.list.openLength;
      const take = Math.min(room, data.length - at);
      this.list.write(data.subarray(at, at + take));
      at += take;
      if (take === room) this.list.cut();
    }
  }

  finish(): void {
    this.list.finish();
  }
}
