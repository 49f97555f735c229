import { bytesToHex } from "@noble/hashes/utils.js";
import type { Clock } from "../clock.js";
import type { EventBus } from "../events/bus.js";
import type { Signer } from "../keys/ed25519.js";
import type { DeploymentKeyRing } from "../keys/key-ring.js";
import { vouchedSigner } from "../keys/vouched-signer.js";
import type { ProofRepository, SealedBatch } from "./proof-repository.js";
import { newMerkleBatchId, sealStamps } from "./seal.js";

export interface BatcherDeps {
  proofs: ProofRepository;
  signer: Signer;
  /** The key ring, which must vouch for the signer's key before a batch is sealed with it. */
  ring?: Pick<DeploymentKeyRing, "vouches">;
  clock: Clock;
  events: EventBus;
  /** Most stamps in one batch (`BATCH_MAX`). */
  maxStamps: number;
}

/**
 * Aggregation, as OpenTimestamps calendars do per round: every waiting stamp goes into a Merkle
 * batch with one signature, however many there are. Stamps are claimed in the store's
 * transaction, so several instances can seal side by side and none seals a stamp twice.
 */
export class Batcher {
  constructor(private readonly deps: BatcherDeps) {}

  /** Seals batches of up to `maxStamps` until no stamp waits; returns what was sealed. */
  async sealPending(): Promise<SealedBatch[]> {
    const sealed: SealedBatch[] = [];
    for (;;) {
      const batch = await this.sealOne();
      if (batch) sealed.push(batch);
      if (!batch || batch.batch.treeSize < this.deps.maxStamps) return sealed;
    }
  }

  private async sealOne(): Promise<SealedBatch | null> {
    const { proofs, ring, clock, maxStamps } = this.deps;
    const { signer, at } = await vouchedSigner(ring, "service", this.deps.signer, clock);
    const id = newMerkleBatchId(at);
    const batch = await proofs.sealBatch(maxStamps, (claimed) => sealStamps(id, claimed, signer, at));
    if (batch) this.announce(batch);
    return batch;
  }

  /** `stamp_confirmed` for every stamp of the batch, after the commit. */
  private announce({ batch, leaves }: SealedBatch): void {
    const proof = { primeSignature: batch.signature, merkleRoot: bytesToHex(batch.root) };
    for (const leaf of leaves) {
      this.deps.events.publish({
        type: "stamp_confirmed",
        data: { stampId: leaf.stampId, proof },
        scope: { accountId: leaf.accountId, stampId: leaf.stampId },
      });
    }
  }
}
