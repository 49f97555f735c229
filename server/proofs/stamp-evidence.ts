import { bytesToHex } from "@noble/hashes/utils.js";
import type { AnchorState } from "../../sdk/src/verify/types.js";
import type { AnchorRecord, AnchorRepository } from "../anchors/anchor-repository.js";
import type { AnchorAvailability } from "../anchors/availability.js";
import type { StoredStamp } from "../stamps/stamp-repository.js";
import type { AnchorType } from "../stamps/stamp-settings.js";
import type { ProofRepository } from "./proof-repository.js";

/** A stamp's cryptographic proof, in the terms of the gRPC `Proof` message (hex strings). */
export interface StampProof {
  batchId: string;
  leafIndex: number;
  treeSize: number;
  /** RFC 6962 root of the batch. */
  merkleRoot: string;
  /** Audit path from the stamp's leaf to `merkleRoot`, leaf level first. */
  merkleProof: string[];
  /** Ed25519 over the 32 root bytes. */
  primeSignature: string;
  /** `<type>:<reference>` of each confirmed anchor, in confirmation order. */
  witnesses: string[];
  /** The latest confirmed chain anchor (`bitcoin:…`, `ethereum:…`), or "". */
  chainAnchor: string;
}

/** What is live about a stamp: its anchors' states and its proof once its batch is sealed. */
export interface StampEvidence {
  anchors: AnchorState[];
  proof: StampProof | null;
}

/** Reads a stamp's evidence from the proof and anchor records. */
export class StampEvidenceSource {
  constructor(
    private readonly proofs: ProofRepository,
    private readonly anchors: AnchorRepository,
    private readonly availability: AnchorAvailability,
  ) {}

  async of(stamp: StoredStamp): Promise<StampEvidence> {
    const leaf = await this.proofs.proofOf(stamp.id);
    const requested = stamp.document.anchors;
    // Only the records of requested types are ever read: a stamp that requested none needs none.
    const records = leaf && requested.length > 0 ? await this.anchors.forBatch(leaf.batch.id) : [];
    const anchors = requested.map((type) =>
      this.state(
        type,
        records.find((r) => r.type === type),
      ),
    );
    if (!leaf) return { anchors, proof: null };
    const confirmed = records
      .filter((r) => r.status === "confirmed" && requested.includes(r.type))
      .sort((a, b) => a.confirmedAt!.getTime() - b.confirmedAt!.getTime());
    const chain = confirmed.filter((r) => r.type === "bitcoin" || r.type === "ethereum").pop();
    return {
      anchors,
      proof: {
        batchId: leaf.batch.id,
        leafIndex: leaf.leafIndex,
        treeSize: leaf.batch.treeSize,
        merkleRoot: bytesToHex(leaf.batch.root),
        merkleProof: leaf.auditPath.map(bytesToHex),
        primeSignature: leaf.batch.signature,
        witnesses: confirmed.map(witness),
        chainAnchor: chain ? witness(chain) : "",
      },
    };
  }

  private state(type: AnchorType, record: AnchorRecord | undefined): AnchorState {
    if (record?.status === "confirmed") {
      return {
        type,
        status: "confirmed",
        reference: record.reference!,
        confirmed_at: record.confirmedAt!.toISOString(),
      };
    }
    if (record?.status === "failed")
      return { type, status: "failed", reason: record.reason ?? "anchor failed" };
    const reason = this.availability[type];
    return reason ? { type, status: "pending", reason } : { type, status: "pending" };
  }
}

const witness = (record: AnchorRecord) => `${record.type}:${record.reference}`;
