import { join } from "node:path";
import type { Clock } from "../clock.js";
import { type Config, ConfigError } from "../config.js";
import { readKeyFile } from "../keys/key-file.js";
import type { Logger } from "../logger.js";
import { DirectoryTileMirror } from "./directory-tile-mirror.js";
import { S3TileMirror } from "./s3-tile-mirror.js";
import { type TileMirror, TileMirrorSync, type TileSource } from "./tile-mirror.js";

type MirrorConfig = Pick<Config, "LOG_TILES_DIR" | (`LOG_TILES_S3_${string}` & keyof Config)>;

/**
 * Where in each mirror the stamp log goes: the transparency log fills the mirror's root as it is
 * served under `/log/tiles/`, so the stamp log (served under `/log/stamps/tiles/`) takes a folder
 * (a key prefix in a bucket) of its own beside `checkpoint` and `tile/`, names tlog-tiles never uses
 * (docs/log-tiles.md, "The stamp log in the mirrors").
 */
export const STAMP_LOG_MIRROR_FOLDER = "stamps/";

/**
 * The mirrors the configuration names (a folder, a bucket, both or none), each kept up by its own
 * sync; `under` is the log's place in them: "" for the transparency log, STAMP_LOG_MIRROR_FOLDER.
 */
export function tileMirrors(
  config: MirrorConfig,
  source: TileSource,
  clock: Clock,
  logger: Logger,
  under = "",
): TileMirrorSync[] {
  const mirrors: TileMirror[] = [];
  if (config.LOG_TILES_DIR) mirrors.push(new DirectoryTileMirror(join(config.LOG_TILES_DIR, under)));
  if (config.LOG_TILES_S3_BUCKET) mirrors.push(s3Mirror(config, config.LOG_TILES_S3_BUCKET, under, logger));
  return mirrors.map((mirror) => new TileMirrorSync(mirror, source, clock, logger));
}

function s3Mirror(config: MirrorConfig, bucket: string, under: string, logger: Logger): S3TileMirror {
  const region = config.LOG_TILES_S3_REGION;
  return new S3TileMirror({
    endpoint: config.LOG_TILES_S3_ENDPOINT ?? `https://s3.${region}.amazonaws.com`,
    bucket,
    region,
    // Both checked present by the configuration schema when the bucket is set.
    accessKeyId: config.LOG_TILES_S3_ACCESS_KEY_ID!,
    secretAccessKey:
      config.LOG_TILES_S3_SECRET_ACCESS_KEY ??
      readSecret(config.LOG_TILES_S3_SECRET_ACCESS_KEY_FILE!, logger),
    prefix: `${config.LOG_TILES_S3_PREFIX ?? ""}${under}`,
    pathStyle: config.LOG_TILES_S3_PATH_STYLE,
  });
}

function readSecret(path: string, logger: Logger): string {
  try {
    return readKeyFile(path, logger).trim();
  } catch (err) {
    throw new ConfigError(
      `invalid configuration: LOG_TILES_S3_SECRET_ACCESS_KEY_FILE: cannot read ${path}: ${(err as Error).message}`,
    );
  }
}
