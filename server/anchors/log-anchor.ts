import type { TransparencyLog } from "../log/transparency-log.js";
import type { AnchorAdapter, AnchorOutcome, AnchorSubject } from "./anchor.js";

/**
 * The `log` anchor: stampd's own transparency log. It confirms as soon as a signed checkpoint
 * covers the batch root's entry; the reference is the entry's index.
 */
export class LogAnchor implements AnchorAdapter {
  readonly type = "log" as const;
  readonly unavailable = null;

  constructor(private readonly log: TransparencyLog) {}

  async attempt(subject: AnchorSubject): Promise<AnchorOutcome> {
    const checkpoint = await this.log.checkpoint();
    if (subject.logIndex === null || checkpoint.treeSize <= subject.logIndex) {
      // Sequenced on the pipeline's next pass.
      return { status: "pending", retryInMs: 0 };
    }
    return { status: "confirmed", reference: String(subject.logIndex), confirmedAt: checkpoint.signedAt };
  }
}
