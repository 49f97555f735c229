import { readFile } from "node:fs/promises";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { type Command, Option } from "commander";
import { type Checkpoint, stampLogVerifierKey, verifyCheckpoint } from "../../core/checkpoint.js";
import { LogForkError, LogMonitor } from "../../core/log-monitor.js";
import { equalBytes, verifyConsistency, verifyInclusion } from "../../core/merkle.js";
import { httpTileSource, TiledLog, TileError } from "../../core/tiled-log.js";
import { tiledCheckpoint, verifyEntryInTiles } from "../../core/tiled-log-checks.js";
import type { StampdClient } from "../../sdk/src/client.js";
import { clientFor, print, type RemoteFlags, withRemoteOptions } from "../client.js";
import { EXIT_FAILURE, UsageError } from "../errors.js";
import { integerBetween } from "../parsers.js";

interface LogFlags extends RemoteFlags {
  logKey?: string;
}

/** A fetched proof that does not verify: exit 1 with the reason. */
class LogProofError extends Error {}

const size = integerBetween(0, Number.MAX_SAFE_INTEGER);

export function registerLog(program: Command): void {
  const log = program
    .command("log")
    .description("the transparency log of batch roots: fetch its checkpoint and proofs, and verify them");
  const withLogOptions = (command: Command) =>
    withRemoteOptions(command).addOption(
      new Option(
        "--log-key <verifier-key>",
        "the log's verifier key to check checkpoints with (default: the key GET /log presents, not pinned)",
      ).env("STAMPD_LOG_KEY"),
    );

  withLogOptions(
    log.command("checkpoint").description("fetch the latest signed checkpoint and verify its signature"),
  ).action(
    run(async (flags: LogFlags) => {
      const { checkpoint, note, key } = await signedCheckpoint(clientFor(flags), flags);
      const value = { ...json(checkpoint), checkpoint: note, verifier_key: key, signature: "valid" };
      print(flags, value, () =>
        [
          `checkpoint of ${checkpoint.origin}: ${checkpoint.treeSize} entries`,
          `  root hash  ${value.root_hash}`,
          `  signature  valid (${pinning(flags)})`,
        ].join("\n"),
      );
    }),
  );

  withLogOptions(
    log
      .command("inclusion")
      .description(
        "fetch the inclusion proof of a log entry (a batch root) and verify it against the signed checkpoint",
      )
      .argument("<index>", "the entry's index (`log.index` of a stamp's proof)", size)
      .option("--tree-size <n>", "the tree size to prove it in (default: the latest checkpoint's)", size)
      .option(
        "--tiles <url>",
        "read the checkpoint, the entry and the proof from the C2SP tiles at this prefix (the service's /log/tiles/ or any mirror) instead of the API",
      ),
  ).action(
    run(async (index: number, flags: LogFlags & { treeSize?: number; tiles?: string }) => {
      if (flags.tiles) return inclusionFromTiles(index, flags.tiles, flags);
      const client = clientFor(flags);
      const { checkpoint } = await signedCheckpoint(client, flags);
      const treeSize = flags.treeSize ?? checkpoint.treeSize;
      const root = await rootAt(client, checkpoint, treeSize);
      const proof = await client.log.inclusion(index, treeSize);
      if (!verifyInclusion(hexToBytes(proof.leaf_hash), index, treeSize, proof.proof.map(hexToBytes), root))
        throw new LogProofError(
          `entry ${index} is not in the tree of ${treeSize} entries the checkpoint signs`,
        );
      print(
        flags,
        { ...proof, root_hash: bytesToHex(root), verified: true },
        () =>
          `entry ${index} (batch ${proof.batch_id}, leaf ${proof.leaf_hash}) is in the log of ${treeSize} entries: verified (${pinning(flags)})`,
      );
    }),
  );

  withLogOptions(
    log
      .command("monitor")
      .description(
        "follow the checkpoints of tiled logs (C2SP tlog-tiles prefixes: the service's /log/tiles/, mirrors) and prove from their tiles that each extends every other; a fork prints both checkpoints and exits 1",
      )
      .argument(
        "<url...>",
        "tiled log prefixes: views of the transparency log (/log/tiles/) and of the stamp log (/log/stamps/tiles/), each checked against the others of its log",
      )
      .option("--interval <seconds>", "between polls", integerBetween(1, 86_400), 60)
      .option(
        "--count <n>",
        "polls of every URL before exiting 0 (default: until a fork or an error)",
        integerBetween(1, Number.MAX_SAFE_INTEGER),
      ),
  ).action(
    run(async (urls: string[], flags: LogFlags & { interval: number; count?: number }) =>
      monitor(urls, flags),
    ),
  );

  withLogOptions(
    log
      .command("consistency")
      .description(
        "fetch the consistency proof between two log sizes and verify that the larger tree extends the smaller",
      )
      .argument("<first>", "the older tree size", size)
      .argument("[second]", "the newer tree size (default: the latest checkpoint's)", size)
      .option(
        "--checkpoint <file>",
        "a checkpoint saved earlier (signed note): its root must be the older tree's",
      ),
  ).action(
    run(async (first: number, second: number | undefined, flags: LogFlags & { checkpoint?: string }) => {
      const client = clientFor(flags);
      const { checkpoint, key } = await signedCheckpoint(client, flags);
      const newer = second ?? checkpoint.treeSize;
      if (first > newer) throw new UsageError(`the older size ${first} is larger than ${newer}`);
      const rootN = await rootAt(client, checkpoint, newer);
      const proof = await client.log.consistency(first, newer);
      const rootM = hexToBytes(proof.first_root);
      if (!verifyConsistency(first, newer, rootM, rootN, proof.proof.map(hexToBytes)))
        throw new LogProofError(`the tree of ${newer} entries does not extend the tree of ${first}`);
      if (flags.checkpoint) await checkSaved(flags.checkpoint, key, first, rootM);
      print(
        flags,
        { ...proof, verified: true },
        () =>
          `the log of ${newer} entries extends the log of ${first} (root ${proof.first_root}): verified (${pinning(flags)}${flags.checkpoint ? `; matches ${flags.checkpoint}` : ""})`,
      );
    }),
  );
}

/**
 * Entry `index` proven from the tiles alone: the tiled checkpoint (signed by the log key), the entry
 * from its bundle and the audit path from the hash tiles.
 */
async function inclusionFromTiles(index: number, prefix: string, flags: LogFlags & { treeSize?: number }) {
  const key = flags.logKey ?? (await clientFor(flags).log.info()).verifier_key;
  const log = new TiledLog(httpTileSource(prefix));
  const { checkpoint } = await tiledCheckpoint(log, [key]).catch((err: Error) => {
    throw new LogProofError(`the tiled checkpoint does not verify: ${err.message}`);
  });
  if (flags.treeSize !== undefined && flags.treeSize !== checkpoint.treeSize)
    throw new UsageError(`with --tiles the tree is the tiled checkpoint's (${checkpoint.treeSize} entries)`);
  const entry = await verifyEntryInTiles(log, index, checkpoint).catch((err: Error) => {
    if (err instanceof TileError || err instanceof RangeError) throw new LogProofError(err.message);
    throw err;
  });
  if (!entry)
    throw new LogProofError(
      `entry ${index} is not in the tiles of the checkpoint of ${checkpoint.treeSize} entries`,
    );
  const value = { index, tree_size: checkpoint.treeSize, batch_root: bytesToHex(entry), verified: true };
  print(
    flags,
    value,
    () =>
      `entry ${index} (batch root ${value.batch_root}) is in the tiled log of ${checkpoint.treeSize} entries: verified from tiles (${pinning(flags)})`,
  );
}

/**
 * Follows the checkpoints of tiled logs (one URL per view: the service, mirrors, a witness's copy),
 * proving each new one consistent with all seen before of the same log (by the checkpoint's
 * origin: the transparency log and the stamp log are followed side by side) from the tiles. A fork
 * prints both signed checkpoints as evidence and exits 1.
 */
async function monitor(prefixes: string[], flags: LogFlags & { interval: number; count?: number }) {
  // The log key checks both logs, the stamp log's under its own origin (docs/sigstore.md): pinned,
  // it follows both from their mirrors alone, with the service gone.
  const logKey = flags.logKey ?? (await clientFor(flags).log.info()).verifier_key;
  const keys = [logKey, stampLogVerifierKey(logKey)];
  const watchers = new Map<string, LogMonitor>();
  const watcherOf = (note: string) => {
    const origin = note.slice(0, note.indexOf("\n"));
    let watcher = watchers.get(origin);
    if (!watcher) {
      watcher = new LogMonitor(keys);
      watchers.set(origin, watcher);
    }
    return watcher;
  };
  const logs = prefixes.map((prefix) => ({ prefix, log: new TiledLog(httpTileSource(prefix)) }));
  for (let round = 1; ; round++) {
    for (const { prefix, log } of logs) {
      try {
        const note = await log.checkpointNote();
        const seen = await watcherOf(note).observe(note, log);
        if (seen.fresh) {
          const { treeSize, rootHash } = seen.checkpoint;
          print(
            flags,
            { url: prefix, tree_size: treeSize, root_hash: bytesToHex(rootHash), consistent: true },
            () =>
              `${prefix}: checkpoint of ${treeSize} entries (root ${bytesToHex(rootHash)}), consistent with every checkpoint seen`,
          );
        }
      } catch (err) {
        if (err instanceof LogForkError) {
          console.log(JSON.stringify({ fork: { url: prefix, ...err.evidence } }, null, 2));
          throw new LogProofError(`fork: ${err.message} (both checkpoints above)`);
        }
        if (err instanceof TileError) throw new LogProofError(`${prefix}: ${err.message}`);
        throw err;
      }
    }
    if (flags.count !== undefined && round >= flags.count) return;
    await new Promise((resolve) => setTimeout(resolve, flags.interval * 1000));
  }
}

/** The latest checkpoint, its signature checked with the pinned key or the one the log presents. */
async function signedCheckpoint(client: StampdClient, flags: LogFlags) {
  const key = flags.logKey ?? (await client.log.info()).verifier_key;
  const note = await client.log.checkpoint();
  const checkpoint = await verifyCheckpoint(note, [key]).catch((err: Error) => {
    throw new LogProofError(`the checkpoint does not verify: ${err.message}`);
  });
  return { checkpoint, note, key };
}

/**
 * The root of the log's first `size` entries, proven: the checkpoint's own root, or one that a
 * consistency proof links to it (the log serves proofs for any size up to its current one).
 */
async function rootAt(client: StampdClient, checkpoint: Checkpoint, size: number): Promise<Uint8Array> {
  if (size === checkpoint.treeSize) return checkpoint.rootHash;
  if (size > checkpoint.treeSize)
    throw new UsageError(`the log's checkpoint has ${checkpoint.treeSize} entries, fewer than ${size}`);
  const proof = await client.log.consistency(size, checkpoint.treeSize);
  const root = hexToBytes(proof.first_root);
  if (!verifyConsistency(size, checkpoint.treeSize, root, checkpoint.rootHash, proof.proof.map(hexToBytes)))
    throw new LogProofError(`the root the log gives for size ${size} is not consistent with its checkpoint`);
  return root;
}

async function checkSaved(file: string, key: string, size: number, root: Uint8Array): Promise<void> {
  const note = await readFile(file, "utf8").catch((err: Error) => {
    throw new UsageError(`cannot read ${file}: ${err.message}`);
  });
  const saved = await verifyCheckpoint(note, [key]).catch((err: Error) => {
    throw new LogProofError(`${file} does not verify: ${err.message}`);
  });
  if (saved.treeSize !== size || !equalBytes(saved.rootHash, root))
    throw new LogProofError(
      `${file} (size ${saved.treeSize}) is not the tree of ${size} entries the log proves`,
    );
}

const json = (checkpoint: Checkpoint) => ({
  origin: checkpoint.origin,
  tree_size: checkpoint.treeSize,
  root_hash: bytesToHex(checkpoint.rootHash),
});

const pinning = (flags: LogFlags) =>
  flags.logKey ? "pinned log key" : "log key from GET /log, not pinned: --log-key pins it";

/** A proof that fails verification prints its reason and exits 1; other errors go to main. */
function run<A extends unknown[]>(action: (...args: A) => Promise<void>) {
  return async (...args: A) => {
    try {
      await action(...args);
    } catch (err) {
      if (!(err instanceof LogProofError)) throw err;
      console.error(`stampd: ${err.message}`);
      process.exitCode = EXIT_FAILURE;
    }
  };
}
