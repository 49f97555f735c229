import type { components } from "../../../gen/openapi/types.js";
import type { StampView } from "../../stamps/stamp-view.js";

export type StampResponse = components["schemas"]["StampResponse"];

/** The REST view of a stamp: the signed document plus this service's live view of it. */
export function toStampResponse(view: StampView, baseUrl: string): StampResponse {
  const { stamp } = view;
  const { document } = stamp;
  return {
    stamp_id: stamp.id,
    created_at: document.created_at,
    document_hash: document.document.hash,
    hash_algorithm: document.document.algorithm,
    author_public_key: document.author_public_key,
    is_signed: document.author_public_key !== null,
    anchors_requested: document.anchors,
    trust_score: view.trustScore,
    trust_threshold: document.trust_threshold,
    trust_met: view.trustMet,
    has_fingerprint: document.fingerprint !== null,
    status: view.status,
    anchors: view.anchors,
    verify_url: `${baseUrl}/verify/${stamp.id}`,
    stamp_json: document,
  };
}
