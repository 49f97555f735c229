import { bytesToHex } from "@noble/hashes/utils.js";
import { type Checkpoint, verifyCheckpoint } from "./checkpoint.js";
import { equalBytes } from "./merkle.js";
import { type TiledLog, TileError } from "./tiled-log.js";
import { consistentInTiles } from "./tiled-log-checks.js";

/** Two checkpoints, both signed by the log, of trees where neither extends the other: a split view. */
export interface ForkEvidence {
  /** The signed notes, the smaller tree first. */
  older: string;
  newer: string;
  reason: string;
}

/** The log signed two checkpoints that cannot both be true: `evidence` proves it to anyone. */
export class LogForkError extends Error {
  override readonly name = "LogForkError";
  constructor(readonly evidence: ForkEvidence) {
    super(evidence.reason);
  }
}

/** A checkpoint the monitor saw: where it came from and whether it was new. */
export interface Observation {
  checkpoint: Checkpoint;
  note: string;
  /** Not seen before (another size, or the first sight). */
  fresh: boolean;
}

interface Seen extends Observation {
  log: TiledLog;
}

/**
 * Follows the checkpoints of a tiled log (one or more views of it: the service, its mirrors, a
 * witness's copy) and proves, from the tiles, that every checkpoint it sees is consistent with
 * every other: the log only ever grew. Checkpoints are kept ordered by size and each new one is
 * proved consistent with its neighbours; consistency is transitive, so that covers every pair.
 * Two signed checkpoints that fail it are a fork (LogForkError with both as evidence); tiles that
 * do not hash to their own checkpoint are a TileError.
 *
 * @example
 * const monitor = new LogMonitor([verifierKey]);
 * const log = new TiledLog(httpTileSource("https://stampd.example.com/log/tiles/"));
 * setInterval(() => monitor.poll(log).catch(alert), 60_000);
 */
export class LogMonitor {
  /** Distinct checkpoints seen, by tree size. */
  private readonly seen: Seen[] = [];

  constructor(private readonly trustedLogKeys: readonly string[]) {}

  /** Every distinct checkpoint seen so far, smallest tree first. */
  get checkpoints(): readonly Observation[] {
    return this.seen;
  }

  /** Reads the log's current checkpoint and checks it against everything seen. */
  async poll(log: TiledLog): Promise<Observation> {
    return this.observe(await log.checkpointNote(), log);
  }

  /**
   * Checks a checkpoint obtained anywhere (a stamp's proof, a witness, a peer) whose tree `log`
   * serves the tiles of; throws CheckpointError when it is not signed by a trusted key.
   */
  async observe(note: string, log: TiledLog): Promise<Observation> {
    const checkpoint = await verifyCheckpoint(note, this.trustedLogKeys);
    const same = this.seen.find((s) => s.checkpoint.treeSize === checkpoint.treeSize);
    if (same) {
      if (!equalBytes(same.checkpoint.rootHash, checkpoint.rootHash))
        this.fork(same, { note }, `two roots for the tree of ${checkpoint.treeSize} entries`);
      return { checkpoint, note, fresh: false };
    }
    const root = await log.root(checkpoint.treeSize);
    if (!equalBytes(root, checkpoint.rootHash))
      throw new TileError(
        `the tiles hash to ${bytesToHex(root)}, not the root the checkpoint of ${checkpoint.treeSize} entries signs`,
      );
    const at = this.seen.findIndex((s) => s.checkpoint.treeSize > checkpoint.treeSize);
    const [before, after] = [
      this.seen[(at < 0 ? this.seen.length : at) - 1],
      at < 0 ? undefined : this.seen[at],
    ];
    const current = { checkpoint, note, log, fresh: true };
    if (before && !(await consistentInTiles(log, before.checkpoint, checkpoint)))
      this.fork(before, current, inconsistent(before.checkpoint, checkpoint));
    if (after && !(await consistentInTiles(after.log, checkpoint, after.checkpoint)))
      this.fork(current, after, inconsistent(checkpoint, after.checkpoint));
    this.seen.splice(at < 0 ? this.seen.length : at, 0, current);
    return { checkpoint, note, fresh: true };
  }

  private fork(older: Pick<Seen, "note">, newer: Pick<Seen, "note">, reason: string): never {
    throw new LogForkError({ older: older.note, newer: newer.note, reason });
  }
}

const inconsistent = (older: Checkpoint, newer: Checkpoint) =>
  `the tree of ${newer.treeSize} entries does not extend the tree of ${older.treeSize} (no consistency proof from the tiles)`;
