import { parseIJson } from "../../../core/i-json.js";
import type { components } from "../../../gen/openapi/types.js";

/** A proof bundle (`<name>.stampd.json`): the spec's `ProofBundle`. */
export type ProofBundle = components["schemas"]["ProofBundle"];

/** The only bundle format this SDK reads and writes. */
export const PROOF_BUNDLE_FORMAT: ProofBundle["format"] = "stampd.bundle/v1";

/** A file that is not a proof bundle this SDK can read. */
export class ProofBundleError extends Error {
  override readonly name = "ProofBundleError";
}

/**
 * Reads a proof bundle from its JSON text: I-JSON (a member named twice is refused, as other
 * readers could read it differently) in the format `stampd.bundle/v1` with a stamp document. The
 * parts are checked by `verifyProofBundle`, not here, so a damaged part is reported, not fatal.
 *
 * @example
 * const bundle = parseProofBundle(await readFile("contract.pdf.stampd.json", "utf8"));
 */
export function parseProofBundle(text: string): ProofBundle {
  let value: unknown;
  try {
    value = parseIJson(text);
  } catch (err) {
    throw new ProofBundleError(`not JSON: ${(err as Error).message}`);
  }
  const bundle = value as Partial<ProofBundle> | null;
  if (typeof bundle !== "object" || bundle === null || !("format" in bundle)) {
    throw new ProofBundleError("not a proof bundle (no format)");
  }
  if (bundle.format !== PROOF_BUNDLE_FORMAT) {
    throw new ProofBundleError(
      `unknown bundle format ${JSON.stringify(bundle.format)} (this version reads ${PROOF_BUNDLE_FORMAT})`,
    );
  }
  if (typeof bundle.stamp?.stamp_json !== "object" || bundle.stamp.stamp_json === null) {
    throw new ProofBundleError("the bundle holds no stamp document");
  }
  return bundle as ProofBundle;
}

/**
 * Whether parsed JSON is meant as a proof bundle (has its format field), to tell it from a stamp
 * file; `parseProofBundle` then reads it or says why not.
 *
 * @example
 * const value = JSON.parse(text);
 * const bundle = looksLikeProofBundle(value) ? parseProofBundle(text) : undefined;
 */
export function looksLikeProofBundle(value: unknown): boolean {
  return typeof value === "object" && value !== null && "format" in value && "stamp" in value;
}
