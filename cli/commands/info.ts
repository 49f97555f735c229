import type { Command } from "commander";
import { fromBase64 } from "../../core/base64.js";
import { parseCheckpoint } from "../../core/checkpoint.js";
import type { ProofBundle } from "../../sdk/src/bundle/bundle.js";
import { readTimestampToken } from "../../sdk/src/bundle/timestamp-token.js";
import { readBundleFile } from "../bundle-file.js";
import { print } from "../client.js";

/** What `stampd info` tells of a bundle: what it holds, read as is (`stampd verify` checks it). */
interface BundleInfo {
  format: string;
  saved_at: string;
  service_url: string;
  stamp_id: string;
  status: string;
  created_at: string;
  document: string;
  anchors: ProofBundle["stamp"]["anchors"];
  batch: { id: string; tree_size: number; leaf_index: number; sealed_at: string } | null;
  log: { origin: string; index: number; tree_size: number; verifier_key: string | null } | null;
  consistency: { first: number; second: number } | null;
  timestamp: { gen_time: string; serial: string } | null;
  /** The outside TSA's token of the `rfc3161` anchor (over the batch root), when the proof holds it. */
  anchor_token: { gen_time: string; serial: string } | null;
}

export function registerInfo(program: Command): void {
  program
    .command("info")
    .description(
      "describe a proof bundle (*.stampd.json): the stamp and the proof it holds, without checking it",
    )
    .argument("<bundle>", "the proof bundle")
    .option("--json", "print the description as JSON")
    .action(async (file: string, flags: { json?: boolean }) => {
      const info = describeBundle(await readBundleFile(file));
      print(flags, info, () => humanInfo(info));
    });
}

function describeBundle(bundle: ProofBundle): BundleInfo {
  const { stamp, proof } = bundle;
  const { document } = stamp.stamp_json;
  const log = proof?.log;
  return {
    format: bundle.format,
    saved_at: bundle.saved_at,
    service_url: bundle.service_url,
    stamp_id: stamp.stamp_id,
    status: stamp.status,
    created_at: stamp.created_at,
    document: `${document.algorithm}:${document.hash}`,
    anchors: stamp.anchors,
    batch: proof
      ? {
          id: proof.batch.id,
          tree_size: proof.batch.tree_size,
          leaf_index: proof.leaf_index,
          sealed_at: proof.batch.sealed_at,
        }
      : null,
    log: log
      ? {
          origin: readable(
            () => parseCheckpoint(log.checkpoint.slice(0, log.checkpoint.indexOf("\n\n") + 1)).origin,
          ),
          index: log.index,
          tree_size: log.tree_size,
          verifier_key: bundle.log?.verifier_key ?? null,
        }
      : null,
    consistency: bundle.log?.consistency
      ? { first: bundle.log.consistency.first, second: bundle.log.consistency.second }
      : null,
    timestamp: bundle.timestamp ? tokenInfo(bundle.timestamp.token) : null,
    anchor_token: anchorToken(proof),
  };
}

function anchorToken(proof: ProofBundle["proof"]): BundleInfo["anchor_token"] {
  const evidence = proof?.anchors.find((a) => a.type === "rfc3161" && a.status === "confirmed")?.evidence;
  return evidence ? tokenInfo(evidence) : null;
}

function tokenInfo(base64: string): { gen_time: string; serial: string } {
  try {
    const { genTime, serial } = readTimestampToken(fromBase64(base64));
    return { gen_time: genTime.toISOString(), serial };
  } catch {
    return { gen_time: "unreadable", serial: "unreadable" };
  }
}

/** A part that does not parse is described as such; `stampd verify` says why. */
function readable(read: () => string): string {
  try {
    return read();
  } catch {
    return "unreadable";
  }
}

function humanInfo(info: BundleInfo): string {
  const anchors = info.anchors.map(
    (a) => `${a.type} ${a.status}${a.confirmed_at ? ` ${a.confirmed_at}` : ""}`,
  );
  const absent = "absent (run `stampd upgrade`)";
  return [
    `proof bundle ${info.format}, saved ${info.saved_at} from ${info.service_url}`,
    `stamp ${info.stamp_id}: ${info.status}`,
    `  created      ${info.created_at}`,
    `  document     ${info.document}`,
    `  anchors      ${anchors.join(", ") || "none requested"}`,
    `  batch proof  ${info.batch ? `leaf ${info.batch.leaf_index} of batch ${info.batch.id} (${info.batch.tree_size} stamps), sealed ${info.batch.sealed_at}` : absent}`,
    `  log          ${info.log ? `entry ${info.log.index} of checkpoint ${info.log.tree_size} of ${info.log.origin}` : absent}`,
    `  log key      ${info.log?.verifier_key ?? "absent"}`,
    `  consistency  ${info.consistency ? `checkpoint ${info.consistency.first} -> ${info.consistency.second}` : "none (no earlier checkpoint held)"}`,
    `  timestamp    ${info.timestamp ? `RFC 3161 token, time ${info.timestamp.gen_time}, serial ${info.timestamp.serial}` : absent}`,
    ...(info.anchors.some((a) => a.type === "rfc3161")
      ? [
          `  rfc3161      ${info.anchor_token ? `token of the outside TSA over the batch root, time ${info.anchor_token.gen_time}, serial ${info.anchor_token.serial}` : "no token held (run `stampd upgrade` once the anchor confirmed)"}`,
        ]
      : []),
  ].join("\n");
}
