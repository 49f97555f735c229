import type { ChunkList } from "./chunk-list.js";
import type { CutCandidates } from "./scanner.js";

/** Decides where chunks end, writing every byte it is given to `list` in order. */
export interface Chunker {
  readonly list: ChunkList;
  push(data: Uint8Array, candidates: CutCandidates): void;
  finish(): void;
}
