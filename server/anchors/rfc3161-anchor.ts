import type { X509Certificate } from "node:crypto";
import type { AnchorAdapter, AnchorOutcome, AnchorSubject } from "./anchor.js";

/**
 * The `rfc3161` anchor: the batch root, a SHA-256 value, time-stamped by an external TSA
 * (`TSA_URL`). It confirms with the granted token, whose SHA-256 is the reference and which is
 * kept as the evidence. With `trustedCas` (`TSA_CA_FILE`) a token must chain to one of them. The
 * client (and its ASN.1 library) is loaded on the first attempt, so a service without `TSA_URL`
 * never holds it.
 */
export class Rfc3161Anchor implements AnchorAdapter {
  readonly type = "rfc3161" as const;

  constructor(
    private readonly url: string | undefined,
    readonly unavailable: string | null,
    private readonly trustedCas?: readonly X509Certificate[],
  ) {}

  async attempt(subject: AnchorSubject): Promise<AnchorOutcome> {
    const { requestTimestamp, TsaRejection, tokenReference } = await import("./tsp-client.js");
    try {
      const { token, genTime } = await requestTimestamp(this.url!, subject.root, {
        trustedCas: this.trustedCas,
      });
      return { status: "confirmed", reference: tokenReference(token), confirmedAt: genTime, evidence: token };
    } catch (err) {
      if (err instanceof TsaRejection) return { status: "failed", reason: err.message };
      throw err;
    }
  }
}
