import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { attestationsOf, reaches } from "../../../core/ots.js";
import { readOtsFile } from "../../../core/ots-file.js";

/** What an OpenTimestamps proof of a stamp holds, as far as it can be checked without Bitcoin. */
export interface OpenTimestampsReading {
  /** The calendars that hold the root pending (their pending attestations' URIs). */
  calendars: string[];
  /** Block heights a calendar attested; only `ots verify` with a Bitcoin node checks them. */
  bitcoinHeights: number[];
}

/**
 * Reads a stamp's `.ots` file (`GET /stamps/{id}/timestamp.ots`): it must be an OpenTimestamps
 * proof of the stamped SHA-256 hash whose operations reach the batch root (when a proof gives
 * it). Throws an Error saying what does not hold.
 *
 * @example
 * const { calendars, bitcoinHeights } = readStampOpenTimestamps(ots, stamp.stamp_json.document.hash, proof.batch.root);
 */
export function readStampOpenTimestamps(
  file: Uint8Array,
  stampedHash: string,
  batchRoot: string | undefined,
): OpenTimestampsReading {
  const { fileDigest, timestamp } = readOtsFile(file);
  if (bytesToHex(fileDigest) !== stampedHash.toLowerCase())
    throw new Error(`its file digest ${bytesToHex(fileDigest)} is not the stamped hash`);
  if (batchRoot !== undefined && !reaches(timestamp, fileDigest, hexToBytes(batchRoot)))
    throw new Error("its operations do not lead to the batch root");
  const found = attestationsOf(timestamp, fileDigest);
  return {
    calendars: found.flatMap((a) => (a.kind === "pending" ? [a.uri] : [])),
    bitcoinHeights: found.flatMap((a) => (a.kind === "bitcoin" ? [a.height] : [])),
  };
}
