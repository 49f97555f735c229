import type { AnchorState, AnchorType, StampStatus, VerifyResult } from "./types.js";

/**
 * What has been checked about a stamp. Only evidence counts: what a stamp asked for (a preset, an
 * anchor still pending, one this deployment cannot provide) proves nothing yet.
 */
export interface TrustEvidence {
  /** The service signature is valid and made by a trusted service key. */
  serviceSignature: boolean;
  /** The author signature is valid (false when the stamp is unsigned). */
  authorSignature: boolean;
  /** The stamp is a leaf of a proof batch whose Merkle root the service signed. */
  sealed: boolean;
  /** That root is included in a signed checkpoint of the transparency log. */
  logged: boolean;
  anchors: readonly Pick<AnchorState, "type" | "status">[];
}

/** One line of the score: a piece of evidence, what it is worth, and whether this stamp has it. */
export interface TrustItem {
  evidence: string;
  points: number;
  earned: boolean;
}

/** The rule in words, as the verification page, the docs and the spec state it. */
export const TRUST_RULE =
  "Only evidence earns points: service signature +1, author signature +2, sealed in a batch the service signed +1, " +
  "in a signed checkpoint of the transparency log +3, each other confirmed anchor (RFC 3161, Bitcoin, Ethereum) +3. " +
  "Pending, unavailable and failed anchors add nothing.";

const externalNames: Record<Exclude<AnchorType, "log">, string> = {
  rfc3161: "RFC 3161 time-stamp",
  bitcoin: "Bitcoin anchor",
  ethereum: "Ethereum anchor",
};

/**
 * The score's lines for this evidence. The `log` anchor is the log inclusion itself, so it is
 * counted once, whether or not it was requested: every sealed batch goes into the log.
 *
 * @example
 * for (const item of trustItems(evidence)) console.log(item.evidence, item.earned ? item.points : 0);
 */
export function trustItems(evidence: TrustEvidence): TrustItem[] {
  const logged =
    evidence.logged || evidence.anchors.some((a) => a.type === "log" && a.status === "confirmed");
  const items: TrustItem[] = [
    { evidence: "Service signature", points: 1, earned: evidence.serviceSignature },
    { evidence: "Author signature", points: 2, earned: evidence.authorSignature },
    { evidence: "Sealed in a batch the service signed", points: 1, earned: evidence.sealed },
    { evidence: "In a signed checkpoint of the transparency log", points: 3, earned: logged },
  ];
  for (const anchor of evidence.anchors) {
    if (anchor.type === "log") continue;
    items.push({ evidence: externalNames[anchor.type], points: 3, earned: anchor.status === "confirmed" });
  }
  return items;
}

/**
 * The trust score of docs/design.md ("Trust score"), the one function used when a stamp is made,
 * read and verified, by the server, the SDK's offline verifier and the verification page.
 *
 * @example
 * trustScore({ serviceSignature: true, authorSignature: false, sealed: true, logged: true, anchors: [] }); // 5
 */
export function trustScore(evidence: TrustEvidence): number {
  return trustItems(evidence).reduce((sum, item) => sum + (item.earned ? item.points : 0), 0);
}

/** The evidence a verification result reports, for showing its score line by line. */
export function evidenceOf(result: Pick<VerifyResult, "details">): TrustEvidence {
  const { details } = result;
  return {
    serviceSignature: details.service_signature === "valid",
    authorSignature: details.author_signature === "valid",
    sealed: details.sealed,
    logged: details.logged,
    anchors: details.anchors,
  };
}

/**
 * A stamp's status from its evidence: `pending` until sealed; `anchored` once it requested anchors
 * and every one of them has confirmed; otherwise `confirmed`. An anchor that is pending, failed or
 * unavailable on this deployment keeps a stamp `confirmed`: anchored by nothing is not anchored.
 */
export function stampStatus(sealed: boolean, anchors: readonly Pick<AnchorState, "status">[]): StampStatus {
  if (!sealed) return "pending";
  return anchors.length > 0 && anchors.every((a) => a.status === "confirmed") ? "anchored" : "confirmed";
}
