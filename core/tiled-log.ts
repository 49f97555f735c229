import { decodeEntryBundle, EntryBundleError } from "./entry-bundle.js";
import {
  auditPath,
  consistencyPath,
  merkleRoot,
  nodeHash,
  type SubtreeHash,
  splitPoint,
  treeHeight,
} from "./merkle.js";
import { HASH_SIZE, TILE_HEIGHT, TILE_WIDTH, type TileRef, tileHolding, tilePath } from "./tile-path.js";

/**
 * Where a tiled log's files are read from: `checkpoint`, `tile/…`, relative to the log's prefix
 * (`https://stampd.example.com/log/tiles/`, a mirror's folder, a bucket). Resolves undefined for
 * a file that is not there (HTTP 404).
 */
export type TileSource = (path: string) => Promise<Uint8Array | undefined>;

/** A tile that is missing or malformed: the log (or its mirror) does not serve what it should. */
export class TileError extends Error {
  override readonly name = "TileError";
}

/**
 * Reads a tiled log over HTTP from its prefix URL; `fetch` may be injected.
 *
 * @example
 * const log = new TiledLog(httpTileSource("https://stampd.example.com/log/tiles/"));
 */
export function httpTileSource(prefix: string, fetchImpl: typeof fetch = fetch): TileSource {
  const base = prefix.endsWith("/") ? prefix : `${prefix}/`;
  return async (path) => {
    const res = await fetchImpl(new URL(path, base));
    if (res.status === 404) return undefined;
    if (!res.ok) throw new TileError(`GET ${path} answered ${res.status}`);
    return new Uint8Array(await res.arrayBuffer());
  };
}

/**
 * A tiled log (c2sp.org/tlog-tiles) read from its tiles alone: entries, leaf hashes, tree hashes,
 * and RFC 6962 inclusion and consistency proofs computed from the hash tiles for any tree size the
 * tiles cover. Nothing here is trusted: check what it computes against a verified checkpoint
 * (verifyCheckpoint, then verifyInclusion / verifyConsistency), as tiled-log-checks.ts does.
 * Tiles are cached (a tile of a given width never changes); a missing partial tile is read from
 * its full tile, which the log may have replaced it with.
 *
 * @example
 * const log = new TiledLog(httpTileSource(prefix));
 * const checkpoint = await verifyCheckpoint(await log.checkpointNote(), [verifierKey]);
 * const proof = await log.inclusionProof(index, checkpoint.treeSize);
 */
export class TiledLog {
  private readonly tiles = new Map<string, Uint8Array>();

  constructor(private readonly source: TileSource) {}

  /** The checkpoint the log serves now (a signed note, not yet verified). */
  async checkpointNote(): Promise<string> {
    const bytes = await this.source("checkpoint");
    if (!bytes) throw new TileError("the log serves no checkpoint");
    return new TextDecoder().decode(bytes);
  }

  /** Entry `index` of the tree of `treeSize` entries, from its entry bundle. */
  async entry(index: number, treeSize: number): Promise<Uint8Array> {
    const ref = tileHolding("entries", index, treeSize);
    await this.load([ref]);
    return this.entriesOf(ref)[index % TILE_WIDTH]!;
  }

  /** The entries of a bundle, as many as its width. */
  entriesOf(ref: TileRef): Uint8Array[] {
    const bundle = this.tiles.get(tilePath(ref))!;
    try {
      const entries = decodeEntryBundle(bundle);
      if (entries.length < ref.width)
        throw new EntryBundleError(`${entries.length} entries, not ${ref.width}`);
      return entries.slice(0, ref.width);
    } catch (err) {
      throw new TileError(`${tilePath(ref)}: ${(err as Error).message}`);
    }
  }

  /** MTH of the first `treeSize` leaves, from the hash tiles. */
  root(treeSize: number): Promise<Uint8Array> {
    if (treeSize === 0) return Promise.resolve(merkleRoot([]));
    return this.withTiles(treeSize, (mth) => mth(0, treeSize));
  }

  /** RFC 9162 audit path of leaf `index` in the tree of `treeSize` leaves, from the hash tiles. */
  inclusionProof(index: number, treeSize: number): Promise<Uint8Array[]> {
    if (!Number.isSafeInteger(index) || index < 0 || index >= treeSize)
      throw new RangeError(`entry ${index} is not in a tree of ${treeSize} entries`);
    return this.withTiles(treeSize, (mth) => auditPath(mth, index, treeSize));
  }

  /** RFC 9162 consistency proof from the first `first` leaves to the first `second`, from the hash tiles. */
  consistencyProof(first: number, second: number): Promise<Uint8Array[]> {
    if (!Number.isSafeInteger(first) || first < 0 || first > second)
      throw new RangeError(`no consistency proof from ${first} entries to ${second}`);
    return this.withTiles(second, (mth) => consistencyPath(mth, first, second));
  }

  /** The leaf hash of entry `index` (level-0 tile) in the tree of `treeSize` leaves. */
  leafHash(index: number, treeSize: number): Promise<Uint8Array> {
    return this.withTiles(treeSize, (mth) => mth(index, index + 1));
  }

  /**
   * Runs `compute` twice: once to learn which subtree hashes it asks for (the proof recursions
   * depend on sizes only), then, with those tiles fetched, on the real hashes.
   */
  private async withTiles<T>(treeSize: number, compute: (mth: SubtreeHash) => T): Promise<T> {
    const wanted = new Map<string, TileRef>();
    const placeholder = new Uint8Array(HASH_SIZE);
    compute((start, end) => {
      for (const ref of tilesOfRange(start, end, treeSize)) wanted.set(tilePath(ref), ref);
      return placeholder;
    });
    await this.load([...wanted.values()]);
    return compute((start, end) => this.mth(start, end, treeSize));
  }

  /** MTH(D[start:end]): a perfect subtree from its tile, or split as RFC 6962 does. */
  private mth(start: number, end: number, treeSize: number): Uint8Array {
    const perfect = perfectSubtree(start, end);
    if (!perfect) {
      const k = splitPoint(end - start);
      return nodeHash(this.mth(start, start + k, treeSize), this.mth(start + k, end, treeSize));
    }
    const { level, first, count } = perfect;
    const ref = tileHolding(level, first, treeSize);
    const tile = this.tiles.get(tilePath(ref))!;
    const at = (first % TILE_WIDTH) * HASH_SIZE;
    let nodes: Uint8Array[] = [];
    for (let i = 0; i < count; i++) nodes.push(tile.subarray(at + i * HASH_SIZE, at + (i + 1) * HASH_SIZE));
    while (nodes.length > 1) nodes = pairUp(nodes);
    return nodes[0]!;
  }

  /** Fetches the tiles not cached yet, checking each one's length. */
  async load(refs: readonly TileRef[]): Promise<void> {
    await Promise.all(
      refs
        .filter((ref) => !this.tiles.has(tilePath(ref)))
        .map(async (ref) => this.tiles.set(tilePath(ref), await this.fetchTile(ref))),
    );
  }

  private async fetchTile(ref: TileRef): Promise<Uint8Array> {
    const full = { ...ref, width: TILE_WIDTH };
    const bytes =
      (await this.source(tilePath(ref))) ??
      (ref.width < TILE_WIDTH ? await this.source(tilePath(full)) : undefined);
    if (!bytes) throw new TileError(`the log serves no ${tilePath(ref)}`);
    if (ref.level !== "entries" && bytes.length < ref.width * HASH_SIZE)
      throw new TileError(`${tilePath(ref)} holds ${bytes.length} bytes, not ${ref.width} hashes`);
    return ref.level === "entries" ? bytes : bytes.subarray(0, ref.width * HASH_SIZE);
  }
}

/**
 * A perfect (2^k-leaf, aligned) subtree as a run of hashes in one tile: `count` hashes of tile
 * level `level` from hash number `first`. Undefined for a ragged range, which is split instead.
 */
function perfectSubtree(start: number, end: number) {
  const width = end - start;
  const k = treeHeight(width);
  if (2 ** k !== width || start % width !== 0) return undefined;
  const level = Math.floor(k / TILE_HEIGHT);
  const span = TILE_WIDTH ** level;
  return { level, first: start / span, count: width / span };
}

/** The hash tiles a range's MTH reads. */
function tilesOfRange(start: number, end: number, treeSize: number): TileRef[] {
  const perfect = perfectSubtree(start, end);
  if (perfect) return [tileHolding(perfect.level, perfect.first, treeSize)];
  const k = splitPoint(end - start);
  return [...tilesOfRange(start, start + k, treeSize), ...tilesOfRange(start + k, end, treeSize)];
}

function pairUp(nodes: Uint8Array[]): Uint8Array[] {
  const up: Uint8Array[] = [];
  for (let i = 0; i < nodes.length; i += 2) up.push(nodeHash(nodes[i]!, nodes[i + 1]!));
  return up;
}
