import { stampLogOrigin } from "../../core/checkpoint.js";
import { logOrigin } from "../config.js";
import type { AppContext } from "../context.js";
import { LogTiles } from "../log/log-tiles.js";
import { TileMirrorLoop } from "../log/tile-mirror-loop.js";
import { STAMP_LOG_MIRROR_FOLDER, tileMirrors } from "../log/tile-mirrors.js";
import type { TimestampAuthority } from "../proofs/tsa/authority.js";
import { outsideTsaOf } from "./outside-tsa.js";
import { SigstoreService } from "./sigstore-service.js";
import { StampLog } from "./stamp-log.js";

export type SigstorePorts = Pick<AppContext, "config" | "store" | "keys" | "clock" | "logger">;

export interface SigstoreDomain {
  /** Stamps as Sigstore bundles, and the trusted root. */
  service: SigstoreService;
  /** The stamp log, served as tiles. */
  log: StampLog;
  /** Copies the stamp log's tiles into the tile mirrors (`LOG_TILES_DIR`, `LOG_TILES_S3_*`), if any. */
  mirroring: TileMirrorLoop;
}

/** Assembles the stamp log and the Sigstore bundles of stamps (docs/sigstore.md). */
export function createSigstoreDomain(ports: SigstorePorts, tsa: TimestampAuthority): SigstoreDomain {
  const { config, store, keys, clock, logger } = ports;
  if (!keys.ring) throw new Error("Sigstore bundles are signed with the key ring's keys: open them first");
  const origin = stampLogOrigin(logOrigin(config));
  const mirrorLogger = logger.child({ component: "stamp-log-tiles" });
  const mirrors = tileMirrors(config, store.stampLogTiles, clock, mirrorLogger, STAMP_LOG_MIRROR_FOLDER);
  const tiles = new LogTiles(store.stampLogTiles, mirrors);
  const log = new StampLog(store.stampLog, keys.log ?? keys.signing, origin, clock, tiles, keys.ring);
  const service = new SigstoreService({
    stamps: store.stamps,
    log,
    ring: keys.ring,
    tsa,
    outside: outsideTsaOf(config, clock, logger.child({ component: "sigstore" })),
    clock,
    pendingRetryAfterSeconds: Math.ceil(config.BATCH_INTERVAL_MS / 1000),
  });
  const mirroring = new TileMirrorLoop({
    tiles,
    latest: () => store.stampLog.latestCheckpoint(),
    intervalMs: config.BATCH_INTERVAL_MS,
    logger: mirrorLogger,
  });
  return { service, log, mirroring };
}
