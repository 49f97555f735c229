import type { components } from "../../gen/openapi/types.js";
import { fingerprintStream } from "./stream.js";
import type { FingerprintDocument } from "./types.js";

type StampFingerprint = components["schemas"]["StampFingerprint"];

/**
 * The engine as stamping uses it for `generate_fp` (the StampFingerprinter of
 * server/stamps/fingerprinter.ts): the default method, the members of the fingerprint a stamp
 * document signs, and the whole document to store for the shadow endpoint.
 */
export const stampFingerprinter = {
  async fingerprint(
    file: AsyncIterable<Uint8Array>,
  ): Promise<{ summary: StampFingerprint; document: FingerprintDocument }> {
    const document = await fingerprintStream(file, "hierarchical");
    const { standard_hash, merkle_root, chunk_count, decomposition_method } = document;
    return { summary: { standard_hash, merkle_root, chunk_count, decomposition_method }, document };
  },
};
