import type { components } from "../../gen/openapi/types.js";
import { linkTo } from "./links.js";

type StampResponse = components["schemas"]["StampResponse"];

/**
 * Where to download a stamp's RFC 3161 time-stamp token (operation getStampTimestamp, GET
 * /stamps/{stamp_id}/timestamp.tsr), for a stamp that has one: the service grants it once the
 * stamp is in a sealed batch (a pending stamp answers 409), and never for BLAKE3, which has no
 * object identifier RFC 3161 could name (422). Undefined otherwise, so the page shows no dead link.
 */
export function tokenUrl(
  base: string,
  stamp: Pick<StampResponse, "stamp_id" | "status" | "hash_algorithm">,
): string | undefined {
  if (stamp.status === "pending" || stamp.hash_algorithm === "blake3") return undefined;
  return linkTo(base, "stamps", stamp.stamp_id, "timestamp.tsr");
}

/**
 * Where to download a stamp as a Sigstore bundle (operation getStampSigstoreBundle, GET
 * /stamps/{stamp_id}/sigstore, docs/sigstore.md): as the RFC 3161 token, once the stamp is in a
 * sealed batch, and never for BLAKE3, which no Sigstore digest names. Undefined otherwise.
 */
export function sigstoreUrl(
  base: string,
  stamp: Pick<StampResponse, "stamp_id" | "status" | "hash_algorithm">,
): string | undefined {
  if (stamp.status === "pending" || stamp.hash_algorithm === "blake3") return undefined;
  return linkTo(base, "stamps", stamp.stamp_id, "sigstore");
}

/**
 * Where to download a stamp's OpenTimestamps proof (operation getStampOpenTimestamps, GET
 * /stamps/{stamp_id}/timestamp.ots), for a sealed SHA-256 stamp whose `bitcoin` anchor this
 * deployment works on (pending or confirmed); undefined otherwise. Until a calendar has answered
 * for the batch (moments after sealing) the link answers 409 with Retry-After.
 */
export function otsUrl(
  base: string,
  stamp: Pick<StampResponse, "stamp_id" | "status" | "hash_algorithm" | "anchors">,
): string | undefined {
  const bitcoin = stamp.anchors.find((a) => a.type === "bitcoin");
  const working = bitcoin?.status === "pending" || bitcoin?.status === "confirmed";
  if (stamp.status === "pending" || stamp.hash_algorithm !== "sha256" || !working) return undefined;
  return linkTo(base, "stamps", stamp.stamp_id, "timestamp.ots");
}
