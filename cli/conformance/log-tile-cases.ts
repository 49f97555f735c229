import { HASH_SIZE, TILE_WIDTH, type TileRef, tilePath } from "../../core/tile-path.js";
import { APIError, type RequestOptions } from "../../sdk/src/index.js";
import { CheckFailed, expectThat } from "./check.js";
import type { Ctx, OperationCases } from "./rest-recipe.js";

/** What a tile request got: the tile's bytes, or the 404 of a tile of that shape the log lacks. */
interface TileAnswer {
  path: string;
  /** The tile read, when the log has one of the operation's shape. */
  tile?: TileRef;
  bytes?: Uint8Array;
}

/** A path of each shape (one to four index segments); a mock answers any with the spec's example. */
const EXAMPLE_PATHS = ["tile/0/000", "tile/0/000.p/1", "tile/0/x001/x000/000", "tile/0/x001/x000/x000/000"];
/** A tiled log of the target: the transparency log, or the stamp log (docs/sigstore.md). */
interface TiledLog {
  checkpoint(c: Ctx, o?: RequestOptions): Promise<string>;
  tile(c: Ctx, path: string, o?: RequestOptions): Promise<Uint8Array>;
  /** With --write, gives the log an entry, so even a new log has a partial tile. */
  grow(c: Ctx): Promise<unknown>;
}

export const transparencyLog: TiledLog = {
  checkpoint: (c, o) => c.client.log.tilesCheckpoint(o),
  tile: (c, path, o) => c.client.log.tile(path, o),
  grow: (c) => c.fx.confirmedStampId(),
};

export const stampLog: TiledLog = {
  checkpoint: (c, o) => c.client.log.stampLogTilesCheckpoint(o),
  tile: (c, path, o) => c.client.log.stampLogTile(path, o),
  grow: async (c) => c.client.stamps.sigstoreBundle(await c.fx.confirmedStampId()),
};

/** Reads of a partial tile that may meet the log growing past it. */
const ATTEMPTS = 3;

/**
 * The cases of `getLogTile` (`segments` 1) to `getLogTile4` (4): the spec writes the tile grammar
 * as one path per number of index segments (docs/log-tiles.md). The valid call reads the
 * checkpoint and then a level-0 tile of the operation's shape that a tree of its size has, checking
 * its width; a log too small to have one (a one-segment full tile needs 256 entries, three segments
 * 256 000) must answer that shape's first tile with the documented 404. A level-63 tile, which no
 * log has, must answer 404 whatever the log's size.
 */
export function logTileCases(segments: number, log: TiledLog = transparencyLog): OperationCases {
  const cases: OperationCases<TileAnswer> = {
    call: async (c, o) => {
      if (!c.mock) return readTile(c, log, segments, o);
      const path = EXAMPLE_PATHS[segments - 1]!;
      return { path, bytes: await log.tile(c, path, o) };
    },
    check: (b, c) => {
      if (c.mock || !b.tile) return;
      const { width } = b.tile;
      const actual = b.bytes?.length ?? 0;
      expectThat(
        actual === width * HASH_SIZE,
        `${width * HASH_SIZE} bytes (${width} hashes)`,
        () => `${actual} bytes`,
      );
    },
    errors: [
      {
        name: "a tile no log has (level 63)",
        // The Error body of a missing tile carries no code (server/rest/handlers/log-tile-handlers.ts).
        status: 404,
        provoke: (c) => log.tile(c, tilePath({ level: 63, index: firstIndex(segments), width: TILE_WIDTH })),
      },
    ],
  };
  return cases as OperationCases;
}

async function readTile(c: Ctx, log: TiledLog, segments: number, o?: RequestOptions): Promise<TileAnswer> {
  if (c.write) await log.grow(c);
  for (let attempt = 1; ; attempt++) {
    const size = Number((await log.checkpoint(c, o)).split("\n")[1]);
    const tile = tileOfShape(size, segments);
    if (!tile) return missing(c, log, size, segments, o);
    const path = tilePath(tile);
    try {
      return { path, tile, bytes: await log.tile(c, path, o) };
    } catch (err) {
      // A partial tile is deleted once the log grows past it (docs/log-tiles.md): read the new checkpoint.
      const grown = err instanceof APIError && err.status === 404 && tile.width < TILE_WIDTH;
      if (!grown || attempt === ATTEMPTS) throw err;
    }
  }
}

/** The first tile of the shape, which a log of `size` entries does not have, answered 404. */
async function missing(
  c: Ctx,
  log: TiledLog,
  size: number,
  segments: number,
  o?: RequestOptions,
): Promise<TileAnswer> {
  const path = tilePath({ level: 0, index: firstIndex(segments), width: TILE_WIDTH });
  try {
    await log.tile(c, path, o);
  } catch (err) {
    if (err instanceof APIError && err.status === 404) return { path };
    throw err;
  }
  throw new CheckFailed(`404 for ${path} (the checkpoint has ${size} entries)`, "the tile");
}

/** A level-0 tile a tree of `size` entries has, whose path takes `segments` index segments. */
export function tileOfShape(size: number, segments: number): TileRef | undefined {
  const complete = Math.floor(size / TILE_WIDTH);
  const partial = { level: 0, index: complete, width: size % TILE_WIDTH };
  if (partial.width > 0 && segmentsOf(partial) === segments) return partial;
  const first = firstIndex(segments);
  return first < complete ? { level: 0, index: first, width: TILE_WIDTH } : undefined;
}

/** The smallest full tile index whose path takes `segments` segments (groups of three digits). */
const firstIndex = (segments: number) => (segments === 1 ? 0 : 1000 ** (segments - 1));
const segmentsOf = (tile: TileRef) => tilePath(tile).split("/").length - 2;
