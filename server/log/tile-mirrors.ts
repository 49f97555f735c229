import type { Clock } from "../clock.js";
import { type Config, ConfigError } from "../config.js";
import { readKeyFile } from "../keys/key-file.js";
import type { Logger } from "../logger.js";
import { DirectoryTileMirror } from "./directory-tile-mirror.js";
import type { LogTileRepository } from "./log-tile-repository.js";
import { S3TileMirror } from "./s3-tile-mirror.js";
import { type TileMirror, TileMirrorSync } from "./tile-mirror.js";

type MirrorConfig = Pick<Config, "LOG_TILES_DIR" | (`LOG_TILES_S3_${string}` & keyof Config)>;

/** The mirrors the configuration names (a folder, a bucket, both or none), each kept up by its own sync. */
export function tileMirrors(
  config: MirrorConfig,
  repo: LogTileRepository,
  clock: Clock,
  logger: Logger,
): TileMirrorSync[] {
  const mirrors: TileMirror[] = [];
  if (config.LOG_TILES_DIR) mirrors.push(new DirectoryTileMirror(config.LOG_TILES_DIR));
  if (config.LOG_TILES_S3_BUCKET) mirrors.push(s3Mirror(config, config.LOG_TILES_S3_BUCKET, logger));
  return mirrors.map((mirror) => new TileMirrorSync(mirror, repo, clock, logger));
}

function s3Mirror(config: MirrorConfig, bucket: string, logger: Logger): S3TileMirror {
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
    prefix: config.LOG_TILES_S3_PREFIX ?? "",
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
