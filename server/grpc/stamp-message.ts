import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { formatContentHash } from "../../core/content-hash.js";
import type { HashAlgorithm as Algorithm } from "../../core/types.js";
import { HashAlgorithm, type Proof, type Stamp, StampStatus } from "../../gen/proto/svc/v1/stamp_pb.js";
import type { StampEvidenceProof } from "../stamps/stamp-evidence.js";
import type { StampStatus as Status } from "../stamps/stamp-repository.js";
import type { StampView } from "../stamps/stamp-view.js";

/** The proto enum of each algorithm (a Record, so an algorithm added to hashing/ must get its value). */
export const algorithmEnum: Record<Algorithm, HashAlgorithm> = {
  "sha3-256": HashAlgorithm.SHA3_256,
  sha256: HashAlgorithm.SHA256,
  blake3: HashAlgorithm.BLAKE3,
};

const statusEnum: Record<Status, StampStatus> = {
  pending: StampStatus.PENDING,
  confirmed: StampStatus.CONFIRMED,
  anchored: StampStatus.ANCHORED,
};

/**
 * A stamp as svc.v1.Stamp: the same stamp REST and WebSocket show, in the proto's terms. Written as
 * the message's plain object (protobuf-es messages are plain objects; the generated type makes
 * every field's presence a compile-time check) rather than through `create()`, whose walk of the
 * schema and zero message per call are a bulk call's per-stamp cost (BatchStamp answers 1000).
 */
export function toStampMessage(view: StampView): Stamp {
  const { stamp } = view;
  const { document } = stamp;
  return {
    $typeName: "svc.v1.Stamp",
    id: stamp.id,
    contentHash: formatContentHash({ algorithm: document.document.algorithm, hex: document.document.hash }),
    algorithm: algorithmEnum[document.document.algorithm],
    timestamp: timestampOf(document.created_at),
    status: statusEnum[view.status],
    description: document.description ?? "",
    metadata: document.metadata ?? {},
    proof: view.proof ? proofMessage(view.proof) : undefined,
  };
}

/** google.protobuf.Timestamp of an RFC 3339 time, as `timestampFromDate` makes it. */
function timestampOf(time: string): Timestamp {
  const ms = Date.parse(time);
  const seconds = Math.floor(ms / 1000);
  return {
    $typeName: "google.protobuf.Timestamp",
    seconds: BigInt(seconds),
    nanos: (ms - seconds * 1000) * 1_000_000,
  };
}

/** The Merkle batch proof and the anchors confirmed so far; absent while the stamp is pending. */
function proofMessage(proof: StampEvidenceProof): Proof {
  const { primeSignature, witnesses, chainAnchor, merkleRoot, merkleProof } = proof;
  return { $typeName: "svc.v1.Proof", primeSignature, witnesses, chainAnchor, merkleRoot, merkleProof };
}
