/** One file of the tiled log: its path below the prefix (`tile/0/001.p/12`) and its bytes. */
export interface StoredTile {
  path: string;
  data: Uint8Array;
}

/**
 * The tiled log's files (docs/log-tiles.md), written as the log grows (`store.logTiles`). Full tiles
 * and partial tiles of a given width never change once written, so writing one again is a no-op.
 */
export interface LogTileRepository {
  /**
   * In one transaction: stores the tiles not stored yet, and deletes the partial tiles whose paths
   * start with one of `prune` (the partial versions of tiles that are full now).
   */
  put(tiles: readonly StoredTile[], prune: readonly string[]): Promise<void>;
  get(path: string): Promise<Uint8Array | undefined>;
  /** Which of these paths are stored. */
  existing(paths: readonly string[]): Promise<Set<string>>;
  /** Every stored path (a mirror's re-sync compares them with what it holds). */
  paths(): Promise<string[]>;
  /** The entries of the log from index `from` up to `to` (excluded): their batch roots, in order. */
  entryData(from: number, to: number): Promise<Uint8Array[]>;
}
