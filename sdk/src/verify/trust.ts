import type { AnchorState } from "./types.js";

/** The evidence a trust score is computed from. */
export interface TrustEvidence {
  /** The service signature is valid and made by a trusted service key. */
  serviceSignature: boolean;
  /** The author signature is valid (false when the stamp is unsigned). */
  authorSignature: boolean;
  hasFingerprint: boolean;
  anchors: readonly Pick<AnchorState, "status">[];
}

const points = { service: 1, author: 2, fingerprint: 1, pending: 1, confirmed: 3, failed: 0 } as const;

/**
 * The trust score of docs/design.md, the one function used at creation and at every verification
 * (server and offline): service signature +1, author signature +2, fingerprint +1, each pending
 * anchor +1, each confirmed anchor +3, a failed anchor nothing.
 */
export function trustScore(evidence: TrustEvidence): number {
  let score = 0;
  if (evidence.serviceSignature) score += points.service;
  if (evidence.authorSignature) score += points.author;
  if (evidence.hasFingerprint) score += points.fingerprint;
  for (const anchor of evidence.anchors) score += points[anchor.status];
  return score;
}
