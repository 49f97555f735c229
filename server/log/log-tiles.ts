import { encodeEntryBundle } from "../../core/entry-bundle.js";
import { equalBytes } from "../../core/merkle.js";
import {
  edgeTiles,
  hashesAtLevel,
  parseTilePath,
  TILE_HEIGHT,
  TILE_WIDTH,
  type TileRef,
  tilePath,
  tilesOfGrowth,
} from "../../core/tile-path.js";
import { merkle } from "../fingerprints/merkle.js";
import type { Logger } from "../logger.js";
import type { TileMirror } from "./directory-tile-mirror.js";
import type { StoredCheckpoint } from "./log-repository.js";
import type { LogTileRepository, StoredTile } from "./log-tile-repository.js";
import type { LogTree } from "./log-tree.js";

/** Tiles written per store transaction: a large catch-up is not one huge transaction. */
const TILES_PER_WRITE = 64;

/**
 * The log as C2SP tiles (docs/log-tiles.md): written to the store when the log grows, before the
 * checkpoint of the new size is saved, so every checkpoint the log serves has its tiles; then
 * copied to the mirror, if any, checkpoint last. Tiles are deterministic, so instances writing
 * the same growth side by side write the same bytes (stored once).
 */
export class LogTiles {
  private edgeChecked = false;
  /** The tree size the mirror holds every tile of; undefined until the first (full) re-sync. */
  private mirroredSize: number | undefined;

  constructor(
    private readonly repo: LogTileRepository,
    private readonly mirror: TileMirror | undefined,
    private readonly logger: Logger,
  ) {}

  /**
   * Writes the tiles of the tree grown from `from` (the latest signed checkpoint's size) to
   * `tree.size`. The first call also checks that the tiles of `from` exist and writes the whole
   * log's when they do not (a log signed before tiles existed, or another store's tiles lost).
   */
  async extend(tree: LogTree, from: number): Promise<void> {
    if (!this.edgeChecked) {
      const edge = edgeTiles(from).map(tilePath);
      const found = await this.repo.existing(edge);
      if (found.size < edge.length) await this.write(tree, 0, from);
      this.edgeChecked = true;
    }
    if (tree.size > from) await this.write(tree, from, tree.size);
  }

  /** A stored tile by its path (`tile/…`); undefined when there is none (or the path is not a tile's). */
  async tile(path: string): Promise<Uint8Array | undefined> {
    try {
      parseTilePath(path);
    } catch {
      return undefined;
    }
    return this.repo.get(path);
  }

  /** Brings the mirror up to `checkpoint`; a failure is logged and retried at the next call. */
  async mirrorTo(checkpoint: StoredCheckpoint): Promise<void> {
    if (!this.mirror || this.mirroredSize === checkpoint.treeSize) return;
    try {
      if (this.mirroredSize === undefined) await this.resync(this.mirror);
      else await this.copyGrowth(this.mirror, this.mirroredSize, checkpoint.treeSize);
      await this.mirror.writeCheckpoint(checkpoint.note, checkpoint.treeSize);
      this.mirroredSize = checkpoint.treeSize;
    } catch (err) {
      this.logger.error(
        { err, mirror: this.mirror.name },
        "log tiles: mirroring failed, retried at the next append",
      );
    }
  }

  private async write(tree: LogTree, from: number, to: number): Promise<void> {
    const refs = tilesOfGrowth(from, to);
    for (let at = 0; at < refs.length; at += TILES_PER_WRITE) {
      const chunk = refs.slice(at, at + TILES_PER_WRITE);
      const tiles = await this.contents(tree, chunk);
      await this.repo.put(
        tiles,
        replacedPartials(chunk, from).map((p) => `${p}.p/`),
      );
    }
  }

  private async contents(tree: LogTree, refs: readonly TileRef[]): Promise<StoredTile[]> {
    const bundles = refs.filter((r) => r.level === "entries");
    const first = (bundles[0]?.index ?? 0) * TILE_WIDTH;
    const last = bundles.at(-1);
    const entries = last ? await this.repo.entryData(first, last.index * TILE_WIDTH + last.width) : [];
    return refs.map((ref) => {
      const positions = Array.from({ length: ref.width }, (_, i) => ref.index * TILE_WIDTH + i);
      if (ref.level !== "entries") {
        const level = ref.level * TILE_HEIGHT;
        return { path: tilePath(ref), data: concat(positions.map((p) => tree.subtree(level, p))) };
      }
      const data = positions.map((p) => entries[p - first]!);
      // The bundle must hold what the tree was built from: the entries' leaf hashes are the tree's leaves.
      positions.forEach((p, i) => {
        if (!data[i] || !equalBytes(merkle.leafHash(data[i]!), tree.leaf(p)))
          throw new Error(`log entry ${p}: its batch root does not hash to the log's leaf`);
      });
      return { path: tilePath(ref), data: encodeEntryBundle(data) };
    });
  }

  /** Copies every stored tile the mirror lacks (after a crash, a new folder, a pruned tile). */
  private async resync(mirror: TileMirror): Promise<void> {
    await mirror.recover();
    for (const path of await this.repo.paths()) {
      if (await mirror.has(path)) continue;
      const data = await this.repo.get(path);
      if (data) await mirror.write(path, data);
    }
  }

  private async copyGrowth(mirror: TileMirror, from: number, to: number): Promise<void> {
    const refs = tilesOfGrowth(from, to);
    for (const ref of refs) {
      const path = tilePath(ref);
      const data = await this.repo.get(path);
      // Absent: a partial tile another instance has since replaced by the full one (copied later).
      if (data) await mirror.write(path, data);
    }
    for (const path of replacedPartials(refs, from)) await mirror.removePartials(path);
  }
}

/** The full tiles among `refs` that were partial in the tree of `from` leaves: their partials go. */
function replacedPartials(refs: readonly TileRef[], from: number): string[] {
  return refs
    .filter((r) => r.width === TILE_WIDTH)
    .filter((r) => r.index * TILE_WIDTH < hashesAtLevel(r.level === "entries" ? 0 : r.level, from))
    .map(tilePath);
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
