import { PassThrough, type Readable } from "node:stream";
import type { StampFingerprint } from "./stamp-document.js";

/**
 * What stamping needs from the fingerprint engine (server/fingerprints) for `generate_fp`: read a
 * whole document stream, return the summary the stamp document commits to and the full
 * fingerprint document that is stored beside the stamp.
 */
export interface StampFingerprinter {
  fingerprint(file: Readable): Promise<{ summary: StampFingerprint; document: unknown }>;
}

/**
 * Splits one stream into two that receive the same bytes, so the hash and the fingerprint are
 * computed in one pass; the source slows to the slower reader. An error on the source fails both.
 */
export function tee(source: Readable): [Readable, Readable] {
  const branches: [PassThrough, PassThrough] = [new PassThrough(), new PassThrough()];
  for (const branch of branches) source.pipe(branch);
  source.once("error", (err) => {
    for (const branch of branches) branch.destroy(err);
  });
  return branches;
}
