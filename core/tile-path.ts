/**
 * The tile layout of a tiled transparency log (c2sp.org/tlog-tiles), shared by the server that
 * writes tiles and the clients that read them. Portable: no node: imports.
 *
 * Tiles have height 8: a level-L tile holds up to 256 consecutive hashes of the tree's complete
 * subtrees of 256^L leaves (level 0: leaf hashes). Tile N of level L holds hashes 256N … 256N+W-1
 * of its level; a partial tile holds only the W < 256 hashes a tree of the checkpoint's size has.
 * Entry bundles (`tile/entries/…`) hold the entries themselves, laid out as level 0.
 */

export const TILE_HEIGHT = 8;
export const TILE_WIDTH = 2 ** TILE_HEIGHT;
/** Bytes of one hash in a hash tile (SHA-256). */
export const HASH_SIZE = 32;

/** One tile: a hash tile of `level`, or the entry bundle (`"entries"`) at level 0's positions. */
export interface TileRef {
  level: number | "entries";
  index: number;
  /** How many hashes (entries) it holds: 256 for a full tile, fewer for a partial one. */
  width: number;
}

/** A tile path that does not follow the grammar. */
export class TilePathError extends Error {
  override readonly name = "TilePathError";
}

/**
 * The tile's path below the log's prefix: `tile/<L>/<N>[.p/<W>]`, where N is written in groups of
 * three digits, every group but the last prefixed with `x` (1234067 → `x001/x234/067`).
 *
 * @example
 * tilePath({ level: 0, index: 1234067, width: 8 }); // "tile/0/x001/x234/067.p/8"
 */
export function tilePath(tile: TileRef): string {
  const groups: string[] = [];
  let rest = tile.index;
  do {
    groups.unshift(String(rest % 1000).padStart(3, "0"));
    rest = Math.floor(rest / 1000);
  } while (rest > 0);
  const index = groups.map((g, i) => (i < groups.length - 1 ? `x${g}` : g)).join("/");
  const partial = tile.width < TILE_WIDTH ? `.p/${tile.width}` : "";
  return `tile/${tile.level}/${index}${partial}`;
}

/**
 * Parses a tile path; throws TilePathError for anything tilePath() would not produce.
 *
 * @example
 * parseTilePath("tile/entries/x001/067"); // { level: "entries", index: 1067, width: 256 }
 */
export function parseTilePath(path: string): TileRef {
  const found =
    /^tile\/(entries|0|[1-9][0-9]?)\/((?:x[0-9]{3}\/)*)([0-9]{3})(?:\.p\/([1-9][0-9]{0,2}))?$/.exec(path);
  const width = found?.[4] === undefined ? TILE_WIDTH : Number(found[4]);
  const level = found?.[1] === "entries" ? "entries" : Number(found?.[1]);
  if (
    !found ||
    (found[4] !== undefined && width >= TILE_WIDTH) ||
    (typeof level === "number" && level > 63)
  ) {
    throw new TilePathError(`not a tile path: ${path}`);
  }
  const groups = [
    ...found[2]!
      .split("/")
      .filter(Boolean)
      .map((g) => g.slice(1)),
    found[3]!,
  ];
  // tilePath() writes no leading x000 group.
  if (groups.length > 1 && groups[0] === "000") throw new TilePathError(`not a tile path: ${path}`);
  const index = Number(groups.join(""));
  if (!Number.isSafeInteger(index)) throw new TilePathError(`tile index out of range: ${path}`);
  return { level, index, width };
}

/** How many complete subtrees of 256^level leaves a tree of `treeSize` leaves has. */
export function hashesAtLevel(level: number, treeSize: number): number {
  return Math.floor(treeSize / TILE_WIDTH ** level);
}

/**
 * The tile that holds hash number `position` of tile level `level` (or entry `position`) in the
 * tree of `treeSize` leaves, as wide as that tree has it.
 */
export function tileHolding(level: TileRef["level"], position: number, treeSize: number): TileRef {
  const count = hashesAtLevel(level === "entries" ? 0 : level, treeSize);
  if (position >= count)
    throw new RangeError(`no hash ${position} at level ${level} of a tree of ${treeSize}`);
  const index = Math.floor(position / TILE_WIDTH);
  return { level, index, width: Math.min(TILE_WIDTH, count - index * TILE_WIDTH) };
}

/**
 * Every tile that changes when the log grows from `from` to `to` leaves, as wide as the tree of
 * `to` leaves has it: the hash tiles of each level and the entry bundles. Level by level upwards;
 * a level whose count did not change ends the list (no level above it changed either).
 */
export function tilesOfGrowth(from: number, to: number): TileRef[] {
  const tiles: TileRef[] = [];
  for (let level = 0; ; level++) {
    const [before, after] = [hashesAtLevel(level, from), hashesAtLevel(level, to)];
    if (after <= before) break;
    for (let index = Math.floor(before / TILE_WIDTH); index * TILE_WIDTH < after; index++) {
      const width = Math.min(TILE_WIDTH, after - index * TILE_WIDTH);
      tiles.push({ level, index, width });
      if (level === 0) tiles.push({ level: "entries", index, width });
    }
  }
  return tiles;
}

/**
 * The full tiles among `refs` (tiles of a growth from `from` leaves) that were partial in the tree
 * of `from` leaves: once they are written, their partial versions (`<path>.p/`) can go.
 */
export function replacedPartials(refs: readonly TileRef[], from: number): string[] {
  return refs
    .filter((r) => r.width === TILE_WIDTH)
    .filter((r) => r.index * TILE_WIDTH < hashesAtLevel(r.level === "entries" ? 0 : r.level, from))
    .map(tilePath);
}

/** The right-most tile of each level in the tree of `treeSize` leaves: the last ones written for it. */
export function edgeTiles(treeSize: number): TileRef[] {
  const tiles: TileRef[] = [];
  for (let level = 0; hashesAtLevel(level, treeSize) > 0; level++) {
    const last = hashesAtLevel(level, treeSize) - 1;
    tiles.push(tileHolding(level, last, treeSize));
    if (level === 0) tiles.push(tileHolding("entries", last, treeSize));
  }
  return tiles;
}
