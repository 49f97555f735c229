import { HashAlgorithm } from "../../gen/proto/svc/v1/stamp_pb.js";
import { invalid } from "../errors.js";
import { contentHashArgument } from "../hashing/content-hash-argument.js";
import type { HashStampRequest } from "../stamps/stamp-service.js";
import { algorithmEnum } from "./stamp-message.js";

const stampIdPattern = /^stp_[0-9A-HJKMNP-TV-Z]{26}$/;
// `bat_`, shared with Merkle batches until 2026-11, is still accepted: clients may have kept it.
const batchIdPattern = /^(sbt|bat)_[0-9A-HJKMNP-TV-Z]{26}$/;

/** The fields CreateStampRequest, a BatchStamp item and StreamStampRequest share. */
export interface StampInput {
  contentHash: string;
  /** Absent on StreamStampRequest: its algorithm is always the prefix's. */
  algorithm?: HashAlgorithm;
  description?: string;
  metadata: Record<string, string>;
}

/**
 * A stamp request as the stamps domain takes it, after the checks only gRPC has: the content_hash
 * form of stamp.proto, parsed here once (hex lower-cased), and the algorithm field agreeing with its
 * prefix. The domain checks description and metadata itself, for every transport alike.
 */
export function toHashStampRequest(input: StampInput, accountId: string | null): HashStampRequest {
  const hash = contentHashArgument(input.contentHash);
  const given = input.algorithm ?? HashAlgorithm.UNSPECIFIED;
  if (given !== HashAlgorithm.UNSPECIFIED && given !== algorithmEnum[hash.algorithm]) {
    const name = HashAlgorithm[given] ? `HASH_ALGORITHM_${HashAlgorithm[given]}` : String(given);
    throw invalid(`algorithm: ${name} disagrees with the content_hash prefix ${hash.algorithm}`);
  }
  // JSON parsers that assign members (JavaScript's own, in most clients) drop this key or turn it
  // into the object's prototype: a signed document holding it would read differently elsewhere.
  if (Object.hasOwn(input.metadata, "__proto__")) throw invalid('metadata: key "__proto__" is not allowed');
  return {
    accountId,
    contentHash: hash,
    description: input.description,
    metadata: input.metadata,
  };
}

/** A stamp_id as GetStamp and Verify take it: `stp_` and a ULID. */
export function requireStampId(id: string): string {
  if (id === "") throw invalid("stamp_id: required");
  if (!stampIdPattern.test(id)) throw invalid("stamp_id: must be stp_ followed by a 26-character ULID");
  return id;
}

/** A client-chosen stamping batch id (`x-batch-id` metadata): `sbt_` (or `bat_`) and a ULID. */
export function requireBatchId(id: string): string {
  if (!batchIdPattern.test(id))
    throw invalid("x-batch-id: must be sbt_ (or bat_) followed by a 26-character ULID");
  return id;
}
