import { encodeEntryBundle } from "../../core/entry-bundle.js";
import { equalBytes } from "../../core/merkle.js";
import {
  edgeTiles,
  parseTilePath,
  replacedPartials,
  TILE_HEIGHT,
  TILE_WIDTH,
  type TileRef,
  tilePath,
  tilesOfGrowth,
} from "../../core/tile-path.js";
import { merkle } from "../fingerprints/merkle.js";
import type { StoredCheckpoint } from "./log-repository.js";
import type { LogTileRepository, StoredTile } from "./log-tile-repository.js";
import type { LogTree } from "./log-tree.js";
import type { TileMirrorSync } from "./tile-mirror.js";

/** Tiles written per store transaction: a large catch-up is not one huge transaction. */
const TILES_PER_WRITE = 64;

/**
 * How a file of the tiled log is served, by the API and as a bucket object's metadata: a tile of a
 * given width never changes, the checkpoint changes with every append.
 */
export function tileHeaders(path: string): { contentType: string; cacheControl: string } {
  return path === "checkpoint"
    ? { contentType: "text/plain; charset=utf-8", cacheControl: "public, max-age=5" }
    : { contentType: "application/octet-stream", cacheControl: "public, max-age=31536000, immutable" };
}

/**
 * The log as C2SP tiles (docs/log-tiles.md): written to the store when the log grows, before the
 * checkpoint of the new size is saved, so every checkpoint the log serves has its tiles; then
 * copied to each mirror (a folder, a bucket), checkpoint last. Tiles are deterministic, so instances writing
 * the same growth side by side write the same bytes (stored once).
 */
export class LogTiles {
  private edgeChecked = false;

  constructor(
    private readonly repo: LogTileRepository,
    private readonly mirrors: readonly TileMirrorSync[],
  ) {}

  /**
   * Writes the tiles of the tree grown from `from` (the latest signed checkpoint's size) to `to`,
   * the size about to be signed (the tree may grow past it meanwhile: another request's catch-up).
   * The first call also checks that the tiles of `from` exist and writes the whole log's when they
   * do not (a log signed before tiles existed, or another store's tiles lost).
   */
  async extend(tree: LogTree, from: number, to: number): Promise<void> {
    if (!this.edgeChecked) {
      const edge = edgeTiles(from).map(tilePath);
      const found = await this.repo.existing(edge);
      if (found.size < edge.length) await this.write(tree, 0, from);
      this.edgeChecked = true;
    }
    if (to > from) await this.write(tree, from, to);
  }

  /** Whether a tile mirror is configured. */
  get hasMirrors(): boolean {
    return this.mirrors.length > 0;
  }

  /** Whether no mirror's last copy failed (`GET /health`'s `mirror` check). */
  mirrorsHealthy(): boolean {
    return this.mirrors.every((m) => !m.failing);
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

  /** Brings each mirror up to `checkpoint`; a failing one is logged and retried later (tile-mirror.ts). */
  async mirrorTo(checkpoint: StoredCheckpoint): Promise<void> {
    await Promise.all(this.mirrors.map((mirror) => mirror.follow(checkpoint)));
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
