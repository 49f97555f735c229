import { compareShadows } from "../../core/shadows.js";
import type { components } from "../../gen/openapi/types.js";
import { requireConsistentShadows } from "./consistency.js";
import type { FingerprintDocument } from "./types.js";

type CompareResponse = components["schemas"]["CompareResponse"];

/**
 * Compares two fingerprints by their shadows only (chunks play no part, so documents cut by
 * different methods compare fine). Symmetric and deterministic; see docs/fingerprint.md.
 */
export function compareFingerprints(a: FingerprintDocument, b: FingerprintDocument): CompareResponse {
  requireConsistentShadows(a, "/body/fingerprint1");
  requireConsistentShadows(b, "/body/fingerprint2");
  return compareShadows(a, b);
}
