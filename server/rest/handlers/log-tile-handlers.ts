import type { Request } from "express";
import { parseTilePath, TilePathError } from "../../../core/tile-path.js";
import { notFound } from "../../errors.js";
import type { StoredCheckpoint } from "../../log/log-repository.js";
import { type LogTiles, tileHeaders } from "../../log/log-tiles.js";
import type { Handler, Handlers } from "./handler.js";

// The same headers as the S3 mirror gives its objects (server/log/log-tiles.ts).
const TILE = tileHeaders("tile/");
const CHECKPOINT = tileHeaders("checkpoint");

/** A log served as tiles: the transparency log, the stamp log (docs/sigstore.md). */
interface TiledLog {
  readonly tiles: Pick<LogTiles, "tile">;
  checkpoint(): Promise<StoredCheckpoint>;
}

/** The checkpoint and tile handlers of one tiled log. */
function tiledLogHandlers(log: TiledLog): { checkpoint: Handler; tile: Handler } {
  return {
    checkpoint: async (_req, res) => {
      const { note } = await log.checkpoint();
      res.status(200).type(CHECKPOINT.contentType).set("Cache-Control", CHECKPOINT.cacheControl).send(note);
    },
    tile: async (req, res) => {
      const path = tilePathOf(req);
      const data = await log.tiles.tile(path);
      if (!data) throw notFound(`no ${path} in the tiled log`);
      res.status(200).type(TILE.contentType).set("Cache-Control", TILE.cacheControl).send(Buffer.from(data));
    },
  };
}

/**
 * The log as C2SP tiles under `/log/tiles/` (docs/log-tiles.md): the checkpoint and the stored tiles,
 * as a static server would answer them. The spec writes the tile grammar as one path per number of
 * index segments; all of them land here.
 */
export function logTileHandlers(log: TiledLog): Handlers {
  const { checkpoint, tile } = tiledLogHandlers(log);
  return {
    getLogTilesCheckpoint: checkpoint,
    getLogTile: tile,
    getLogTile2: tile,
    getLogTile3: tile,
    getLogTile4: tile,
  };
}

/** The stamp log as C2SP tiles under `/log/stamps/tiles/` (docs/sigstore.md), the same way. */
export function stampLogTileHandlers(log: TiledLog): Handlers {
  const { checkpoint, tile } = tiledLogHandlers(log);
  return {
    getStampLogTilesCheckpoint: checkpoint,
    getStampLogTile: tile,
    getStampLogTile2: tile,
    getStampLogTile3: tile,
    getStampLogTile4: tile,
  };
}

function tilePathOf(req: Request): string {
  const segments = ["s1", "s2", "s3", "s4"].map((name) => req.params[name]).filter(Boolean);
  const path = `tile/${req.params.level}/${segments.join("/")}`;
  try {
    parseTilePath(path);
  } catch (err) {
    // Not a tile is a file that does not exist: 404, as the static mirrors of the tiles answer it,
    // so a tile reader sees the same answer from stampd and from any copy.
    if (err instanceof TilePathError) throw notFound(err.message);
    throw err;
  }
  return path;
}
