import { bytesToHex } from "@noble/hashes/utils.js";
import { stampLeafData } from "../../core/stamp-leaf.js";
import type { AnchorState } from "../../core/types.js";
import type { AnchorRecord, AnchorRepository } from "../anchors/anchor-repository.js";
import type { AnchorAvailability } from "../anchors/availability.js";
import { merkle } from "../fingerprints/merkle.js";
import type { LogRepository } from "../log/log-repository.js";
import { type EvidenceSource, initialEvidence, type StampEvidence } from "../stamps/stamp-evidence.js";
import type { StoredStamp } from "../stamps/stamp-repository.js";
import type { AnchorType } from "../stamps/stamp-settings.js";
import type { Batch, LeafProof, ProofRepository } from "./proof-repository.js";

/** Reads a stamp's evidence from the proof, anchor and log records. */
export class StampEvidenceSource implements EvidenceSource {
  /**
   * The largest tree a signed checkpoint was read to cover. Checkpoints only grow, so a batch
   * below it is logged without reading them again: a stamp's read skipped that query once its
   * batch was logged (about 3 % of a `GET /stamps/{id}`'s CPU, issue #24).
   */
  private loggedBelow = 0;

  constructor(
    private readonly proofs: ProofRepository,
    private readonly anchors: AnchorRepository,
    private readonly log: Pick<LogRepository, "latestCheckpoint">,
    private readonly availability: AnchorAvailability,
  ) {}

  /** The evidence of a stamp just made, read from nothing: no batch holds it yet. */
  initial(stamp: StoredStamp): StampEvidence {
    return initialEvidence(stamp, this.availability);
  }

  /**
   * With `withEvidence` (the stamp proof), a confirmed anchor whose proof a third party can check
   * carries it (the `rfc3161` token); the stamp's other answers leave it out to stay small.
   */
  async of(stamp: StoredStamp, { withEvidence = false } = {}): Promise<StampEvidence> {
    const leaf = await this.proofs.proofOf(stamp.id);
    const requested = stamp.document.anchors;
    const records = leaf ? await this.anchors.forBatch(leaf.batch.id) : [];
    const anchors = requested.map((type) => {
      const record = records.find((r) => r.type === type);
      const state = this.state(type, record);
      return withEvidence ? withServedEvidence(state, record) : state;
    });
    if (!leaf) return { anchors, sealed: false, logged: false, proof: null };
    if (!sealsThisDocument(stamp, leaf)) {
      // The stored document was changed after sealing: the batch and its anchors are about
      // another document, as the SDK's offline check of the proof would find (stamp-proof.ts).
      const reason = "the stored stamp is not the document its batch sealed";
      return {
        anchors: requested.map((type): AnchorState => ({ type, status: "failed", reason })),
        sealed: false,
        logged: false,
        proof: null,
      };
    }
    const logged = await this.logged(leaf.batch, records);
    const confirmed = records
      .filter((r) => r.status === "confirmed" && requested.includes(r.type))
      .sort((a, b) => a.confirmedAt!.getTime() - b.confirmedAt!.getTime());
    const chain = confirmed.filter((r) => r.type === "bitcoin" || r.type === "ethereum").pop();
    return {
      anchors,
      sealed: true,
      logged,
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
    // Worked out on every read, so configuring the endpoint later turns it pending at once.
    const reason = this.availability[type];
    return reason ? { type, status: "unavailable", reason } : { type, status: "pending" };
  }

  /**
   * Whether a signed checkpoint covers the batch root. When some stamp of the batch requested the
   * `log` anchor, its record is that fact (so the anchor and the evidence never disagree);
   * otherwise the latest checkpoint is asked.
   */
  private async logged(batch: Batch, records: readonly AnchorRecord[]): Promise<boolean> {
    const record = records.find((r) => r.type === "log");
    if (record) return record.status === "confirmed";
    if (batch.logIndex === null) return false;
    if (batch.logIndex < this.loggedBelow) return true;
    const checkpoint = await this.log.latestCheckpoint();
    if (checkpoint === undefined) return false;
    this.loggedBelow = Math.max(this.loggedBelow, checkpoint.treeSize);
    return checkpoint.treeSize > batch.logIndex;
  }
}

/**
 * Only the `rfc3161` evidence is a proof on its own (the TSA's DER TimeStampToken over the batch
 * root); the chain anchors keep working data (calendar receipts, a transaction hash).
 */
function withServedEvidence(state: AnchorState, record: AnchorRecord | undefined): AnchorState {
  if (state.status !== "confirmed" || record?.type !== "rfc3161" || !record.evidence) return state;
  return { ...state, evidence: Buffer.from(record.evidence).toString("base64") };
}

const witness = (record: AnchorRecord) => `${record.type}:${record.reference}`;

/**
 * Whether the leaf's audit path leads from this stamp document, as stored now, to its batch root.
 * The stored text is tried first: it is the sealed RFC 8785 text unless the row was changed, and
 * hashing it as read spares canonicalizing the parsed document again on every read. Text that was
 * rewritten but still means the same document is found by the second try, as before.
 */
function sealsThisDocument(stamp: StoredStamp, leaf: LeafProof & { batch: Batch }): boolean {
  const seals = (data: Uint8Array) =>
    merkle.verifyInclusion(
      merkle.leafHash(data),
      leaf.leafIndex,
      leaf.batch.treeSize,
      leaf.auditPath,
      leaf.batch.root,
    );
  return (stamp.json !== undefined && seals(Buffer.from(stamp.json))) || seals(stampLeafData(stamp.document));
}
