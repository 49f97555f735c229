import { replacedPartials, tilePath, tilesOfGrowth } from "../../core/tile-path.js";
import type { Clock } from "../clock.js";
import type { Logger } from "../logger.js";
import type { StoredCheckpoint } from "./log-repository.js";
import type { LogTileRepository } from "./log-tile-repository.js";

/** What a mirror copies from: a tiled log's stored files (the transparency log's or the stamp log's). */
export type TileSource = Pick<LogTileRepository, "get" | "paths">;

/**
 * Where a tiled log is copied so that something other than stampd can serve it, laid out as
 * served (`checkpoint`, `tile/…`): a folder (`LOG_TILES_DIR`, directory-tile-mirror.ts) or an
 * S3-compatible bucket (`LOG_TILES_S3_*`, s3-tile-mirror.ts), the stamp log in its `stamps/`
 * (tile-mirrors.ts). The writer drives any of them alike.
 */
export interface TileMirror {
  /** For log lines: the folder or bucket (never a credential). */
  readonly name: string;
  /** Clears what an interrupted earlier run left half-written; called before the first write. */
  recover(): Promise<void>;
  /** Which of these paths the mirror does not hold. */
  missing(paths: readonly string[]): Promise<string[]>;
  /** Writes a tile (or the checkpoint) so that a reader sees the old file or the new one, never part. */
  write(path: string, data: Uint8Array): Promise<void>;
  /** Writes the checkpoint last, after its tiles; never replaces one of a larger tree. */
  writeCheckpoint(note: string, treeSize: number): Promise<void>;
  /** Removes the partial versions of a tile that is full now (`<tile path>.p/`). */
  removePartials(fullTilePath: string): Promise<void>;
}

/** How long a mirror is left alone after its n-th failure in a row: 5 s doubling to 5 minutes. */
export function mirrorRetryDelay(failures: number): number {
  return Math.min(5000 * 2 ** Math.max(0, failures - 1), 300_000);
}

/**
 * Keeps one mirror up to the log's latest checkpoint. The first pass re-syncs it whole (every
 * stored tile it lacks, after a crash, a new folder or bucket, a lost file); later passes copy the
 * growth since the last checkpoint it holds, tiles first, checkpoint last. A failed pass is logged
 * once and the mirror left alone until its retry delay has passed (on the deployment's clock),
 * then caught up from where it stood: a mirror down never stops the log, nor floods its output.
 */
export class TileMirrorSync {
  /** The tree size the mirror holds every tile of; undefined until the first (full) re-sync. */
  private mirroredSize: number | undefined;
  /**
   * The checkpoint it holds: one of the same size signed again (its log key revoked since, the
   * log re-signs it) is written over it, so the mirror's verifies with the keys the log's does.
   */
  private mirroredNote: string | undefined;
  private failures = 0;
  private retryAt = 0;

  constructor(
    private readonly mirror: TileMirror,
    private readonly source: TileSource,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Whether the last attempt to copy to the mirror failed (`GET /health`'s `mirror` check). */
  get failing(): boolean {
    return this.failures > 0;
  }

  /** Brings the mirror up to `checkpoint`, unless it is waiting out a failure; never throws. */
  async follow(checkpoint: StoredCheckpoint): Promise<void> {
    const now = this.clock.now().getTime();
    if (this.mirroredNote === checkpoint.note || now < this.retryAt) return;
    try {
      if (this.mirroredSize === undefined) await this.resync();
      else await this.copyGrowth(this.mirroredSize, checkpoint.treeSize);
      await this.mirror.writeCheckpoint(checkpoint.note, checkpoint.treeSize);
      this.mirroredSize = checkpoint.treeSize;
      this.mirroredNote = checkpoint.note;
      if (this.failures > 0)
        this.logger.info(
          { mirror: this.mirror.name, treeSize: checkpoint.treeSize },
          "log tiles: mirror caught up",
        );
      this.failures = 0;
    } catch (err) {
      this.failures += 1;
      const delay = mirrorRetryDelay(this.failures);
      this.retryAt = now + delay;
      this.logger.error(
        { err, mirror: this.mirror.name, failures: this.failures, retryInSeconds: delay / 1000 },
        "log tiles: mirroring failed; the log goes on and the mirror is caught up at the first pass after the retry delay",
      );
    }
  }

  private async resync(): Promise<void> {
    await this.mirror.recover();
    for (const path of await this.mirror.missing(await this.source.paths())) {
      const data = await this.source.get(path);
      // Absent: a partial tile pruned since it was listed (its full tile is listed too).
      if (data) await this.mirror.write(path, data);
    }
  }

  private async copyGrowth(from: number, to: number): Promise<void> {
    const refs = tilesOfGrowth(from, to);
    for (const ref of refs) {
      const path = tilePath(ref);
      const data = await this.source.get(path);
      // Absent: a partial tile another instance has since replaced by the full one (copied later).
      if (data) await this.mirror.write(path, data);
    }
    for (const path of replacedPartials(refs, from)) await this.mirror.removePartials(path);
  }
}
