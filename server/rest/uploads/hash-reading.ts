import type { Readable } from "node:stream";
import type { HashAlgorithm } from "../../../core/types.js";
import { hashStreamMany, type StreamDigests } from "../../hashing/hash-stream.js";

/**
 * How the uploads that are only hashed (`POST /hash`, both verifications) read their file: with
 * every algorithm the form may still ask for, in one pass. So they never spool: when the algorithm
 * is not known yet as the file starts, all three are computed, which on a 1 GiB upload cost about
 * what spooling it to disk cost, without the disk (bench/README.md, "5. upload").
 */
export const hashReading = {
  read: (file: Readable, algorithms: readonly HashAlgorithm[]): Promise<StreamDigests> =>
    hashStreamMany(file, algorithms),
  reuse: (digest: StreamDigests, _readWith: readonly HashAlgorithm[], final: readonly HashAlgorithm[]) =>
    final.every((algorithm) => digest.hashes[algorithm] !== undefined) ? digest : null,
};

/** The digest of `algorithm` from a read that computed it. */
export function digestOf(digest: StreamDigests, algorithm: HashAlgorithm): string {
  const hex = digest.hashes[algorithm];
  if (hex === undefined) throw new Error(`the upload was not hashed with ${algorithm}`);
  return hex;
}
