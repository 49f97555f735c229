import { hexToBytes } from "@noble/hashes/utils.js";
import { otsFile, stampTimestamp } from "../../core/ots-file.js";
import type { AnchorRepository } from "../anchors/anchor-repository.js";
import { calendarTimestamp } from "../anchors/bitcoin-anchor.js";
import { conflict, notFound, ServiceError } from "../errors.js";
import type { StampRepository } from "../stamps/stamp-repository.js";
import type { ProofRepository } from "./proof-repository.js";

export interface OtsExportDeps {
  stamps: Pick<StampRepository, "get">;
  proofs: Pick<ProofRepository, "proofOf">;
  anchors: Pick<AnchorRepository, "forBatch">;
  /** The `Retry-After` of a stamp whose batch is not sealed, or not yet answered by a calendar. */
  pendingRetryAfterSeconds: number;
  /** Why the `bitcoin` anchor cannot work here (no calendar configured), or null. */
  unavailable: string | null;
}

/**
 * `GET /stamps/{id}/timestamp.ots`: a stamp's `bitcoin` anchor as the OpenTimestamps proof file
 * `ots verify -f <document>` checks, from the document's SHA-256 through the stamp document and
 * the audit path to the batch root, then what the calendars answered for that root
 * (core/ots-file.ts, docs/stamps.md "OpenTimestamps").
 */
export class OtsExport {
  constructor(private readonly deps: OtsExportDeps) {}

  async file(stampId: string): Promise<Uint8Array> {
    const stamp = await this.deps.stamps.get(stampId);
    if (!stamp) throw notFound(`stamp ${stampId} not found`, "stamp_not_found");
    if (!stamp.document.anchors.includes("bitcoin"))
      throw notFound(`stamp ${stampId} did not request the bitcoin anchor`, "ots_not_requested");
    const { algorithm, hash } = stamp.document.document;
    if (algorithm !== "sha256") {
      throw unsupported(
        `a ${algorithm} stamp has no OpenTimestamps proof (OpenTimestamps files start from SHA-256 here)`,
      );
    }
    const leaf = await this.deps.proofs.proofOf(stampId);
    if (!leaf)
      throw this.pending(`stamp ${stampId} is pending; its batch is not sealed yet`, "stamp_not_confirmed");
    const record = (await this.deps.anchors.forBatch(leaf.batch.id)).find((r) => r.type === "bitcoin");
    const fromRoot = record?.evidence ? calendarTimestamp(record.evidence, leaf.batch.root) : null;
    if (!fromRoot && this.deps.unavailable) {
      // No calendar will be asked until one is configured: retrying would not help.
      throw conflict(`stamp ${stampId}: ${this.deps.unavailable}`, "ots_pending");
    }
    if (!fromRoot && record && record.status !== "pending") {
      // Submitted before stampd kept the calendars' answers: nothing will come to export.
      throw conflict(
        `the bitcoin anchor of stamp ${stampId} kept no calendar answer to export`,
        "ots_pending",
      );
    }
    if (!fromRoot) {
      throw this.pending(
        `no OpenTimestamps calendar has answered for the batch of stamp ${stampId} yet`,
        "ots_pending",
      );
    }
    try {
      const place = { leafIndex: leaf.leafIndex, treeSize: leaf.batch.treeSize, auditPath: leaf.auditPath };
      return otsFile(hexToBytes(hash), stampTimestamp(stamp.document, place, fromRoot));
    } catch (err) {
      if (err instanceof RangeError) throw unsupported(`stamp ${stampId}: ${err.message}`);
      throw err;
    }
  }

  private pending(message: string, reason: "stamp_not_confirmed" | "ots_pending"): ServiceError {
    return new ServiceError("conflict", message, reason, undefined, this.deps.pendingRetryAfterSeconds);
  }
}

const unsupported = (message: string) =>
  new ServiceError("unprocessable", message, "timestamp_algorithm_unsupported");
