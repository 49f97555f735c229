import { bytesToHex } from "@noble/hashes/utils.js";
import { stampLeafData } from "../../core/stamp-leaf.js";
import type { components } from "../../gen/openapi/types.js";
import { conflict, notFound, ServiceError } from "../errors.js";
import { merkle } from "../fingerprints/merkle.js";
import type { TransparencyLog } from "../log/transparency-log.js";
import type { StampRepository, StoredStamp } from "../stamps/stamp-repository.js";
import type { ProofRepository } from "./proof-repository.js";
import type { StampEvidenceSource } from "./stamp-evidence.js";
import type { TimestampAuthority } from "./tsa/authority.js";
import { digestOids } from "./tsa/oids.js";

export type StampProofDocument = components["schemas"]["StampProof"];

export interface ProofServiceDeps {
  stamps: Pick<StampRepository, "get">;
  proofs: ProofRepository;
  evidence: StampEvidenceSource;
  log: TransparencyLog;
  tsa: TimestampAuthority;
}

/** A stamp's proofs as a third party takes them away: the proof bundle and the RFC 3161 export. */
export class ProofService {
  constructor(private readonly deps: ProofServiceDeps) {}

  /** `stampd.proof/v1`: leaf, audit path, signed batch, and the root's inclusion in the latest checkpoint. */
  async stampProof(stampId: string): Promise<StampProofDocument> {
    const stamp = await this.find(stampId);
    const leaf = await this.deps.proofs.proofOf(stampId);
    if (!leaf) throw notConfirmed(stampId);
    const { batch } = leaf;
    const { anchors } = await this.deps.evidence.of(stamp, { withEvidence: true });
    return {
      format: "stampd.proof/v1",
      stamp_id: stampId,
      leaf_index: leaf.leafIndex,
      leaf_hash: bytesToHex(merkle.leafHash(stampLeafData(stamp.document))),
      merkle_proof: leaf.auditPath.map(bytesToHex),
      batch: {
        id: batch.id,
        tree_size: batch.treeSize,
        root: bytesToHex(batch.root),
        signature: batch.signature,
        public_key: batch.publicKey,
        sealed_at: batch.sealedAt.toISOString(),
      },
      log: batch.logIndex === null ? null : await this.inclusion(batch.logIndex),
      anchors,
    };
  }

  /**
   * The stamp as a granted RFC 3161 response of this service's TSA: the document's own hash as the
   * imprint (so `openssl ts -verify -data <document>` checks the document), the stamp's creation
   * time as genTime, the stamp id's ULID as the serial number.
   */
  async timestamp(stampId: string): Promise<Uint8Array> {
    const stamp = await this.find(stampId);
    if (stamp.status === "pending") throw notConfirmed(stampId);
    const { algorithm, hash } = stamp.document.document;
    const digestOid = digestOids[algorithm];
    if (!digestOid) {
      throw new ServiceError(
        "unprocessable",
        `a ${algorithm} stamp cannot be exported as an RFC 3161 token (no object identifier for ${algorithm})`,
        "timestamp_algorithm_unsupported",
      );
    }
    return this.deps.tsa.respond({
      digestOid,
      hashedMessage: Buffer.from(hash, "hex"),
      genTime: new Date(stamp.document.created_at),
      serialNumber: ulidBytes(stamp.id.slice("stp_".length)),
    });
  }

  private async inclusion(index: number): Promise<StampProofDocument["log"]> {
    const checkpoint = await this.deps.log.checkpoint();
    if (checkpoint.treeSize <= index) return null;
    const { proof } = await this.deps.log.inclusion(index, checkpoint.treeSize);
    return {
      index,
      tree_size: checkpoint.treeSize,
      inclusion_proof: proof.map(bytesToHex),
      checkpoint: checkpoint.note,
    };
  }

  private async find(id: string): Promise<StoredStamp> {
    const stamp = await this.deps.stamps.get(id);
    if (!stamp) throw notFound(`stamp ${id} not found`, "stamp_not_found");
    return stamp;
  }
}

const notConfirmed = (stampId: string) =>
  conflict(`stamp ${stampId} is pending; its batch is not sealed yet`, "stamp_not_confirmed");

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/**
 * The 128 bits of a ULID (the part after an id's prefix), plus `offset`, as the content of a
 * positive DER INTEGER: an offset of 2^128 gives a second series of serials no ULID reaches.
 */
export function ulidBytes(ulid: string, offset = 0n): Uint8Array {
  let value = 0n;
  for (const char of ulid) {
    const digit = CROCKFORD.indexOf(char);
    if (digit < 0) throw new RangeError(`not a ULID: ${ulid}`);
    value = value * 32n + BigInt(digit);
  }
  value += offset;
  // DER INTEGER content: minimal, with a leading zero only where the top bit would make it negative.
  const bytes: number[] = [];
  for (; value > 0n; value >>= 8n) bytes.unshift(Number(value & 0xffn));
  if (bytes.length === 0 || bytes[0]! & 0x80) bytes.unshift(0);
  return Uint8Array.from(bytes);
}
