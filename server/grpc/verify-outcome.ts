import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { type ContentHash, formatContentHash } from "../../core/content-hash.js";
import type { VerifyResult } from "../../core/types.js";
import { type VerifyResponse, VerifyResponseSchema } from "../../gen/proto/svc/v1/stamp_pb.js";
import type { StoredStamp } from "../stamps/stamp-repository.js";

/**
 * Verify's answer: `verified` is the domain's `is_valid` (signatures valid and, when a hash was
 * supplied, no mismatch), `message` says in words what decided it, and the trust fields are the
 * REST verification's.
 */
export function verifyResponse(
  stamp: StoredStamp,
  result: VerifyResult,
  supplied: ContentHash | undefined,
): VerifyResponse {
  const recorded = stamp.document.document;
  return create(VerifyResponseSchema, {
    verified: result.is_valid,
    stampId: stamp.id,
    contentHash: formatContentHash({ algorithm: recorded.algorithm, hex: recorded.hash }),
    timestamp: timestampFromDate(new Date(stamp.document.created_at)),
    message: messageOf(result, supplied, recorded.algorithm),
    trustScore: result.trust_score,
    trustThreshold: result.trust_threshold,
    trustMet: result.trust_met,
  });
}

function messageOf(result: VerifyResult, supplied: ContentHash | undefined, algorithm: string): string {
  if (!result.signature_valid) return "stamp signature invalid";
  switch (result.details.content_hash) {
    case "match":
      return "content hash matches";
    case "mismatch":
      return supplied?.algorithm === algorithm
        ? "content hash does not match"
        : `algorithm differs: stamp uses ${algorithm}`;
    default:
      return "stamp signature valid; content hash not checked";
  }
}
