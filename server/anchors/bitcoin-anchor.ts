import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import type { AnchorAdapter, AnchorOutcome, AnchorSubject } from "./anchor.js";
import { attestations } from "./ots.js";

/** What is kept between attempts: for each calendar, the commitment it promised to timestamp. */
interface Receipts {
  pending: { calendar: string; commitment: string }[];
}

const ACCEPT = { accept: "application/vnd.opentimestamps.v1" };
// Calendars aggregate into a Bitcoin transaction every few hours: ask again every ten minutes.
const POLL_MS = 10 * 60_000;

/**
 * The `bitcoin` anchor through OpenTimestamps calendars (`OTS_CALENDAR_URLS`): the root is
 * submitted to each (`POST /digest`); later each pending commitment is asked for again
 * (`GET /timestamp/<commitment>`) until a calendar returns a timestamp with a Bitcoin block-header
 * attestation. The reference is the attested block height. stampd runs no Bitcoin node: the
 * height is the calendar's statement, checkable by anyone with `ots verify` and a node.
 */
export class BitcoinAnchor implements AnchorAdapter {
  readonly type = "bitcoin" as const;

  constructor(
    private readonly calendars: readonly string[],
    readonly unavailable: string | null,
    private readonly clock: { now(): Date },
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  async attempt(subject: AnchorSubject, evidence: Uint8Array | null): Promise<AnchorOutcome> {
    if (evidence === null) return this.submit(subject.root);
    const receipts = JSON.parse(new TextDecoder().decode(evidence)) as Receipts;
    // Receipts stored before calendars were checked may name any host: those are not asked.
    for (const { calendar, commitment } of receipts.pending.filter((p) => this.configured(p.calendar))) {
      const height = await this.upgraded(calendar, hexToBytes(commitment));
      if (height !== null) {
        return { status: "confirmed", reference: String(height), confirmedAt: this.clock.now() };
      }
    }
    return { status: "pending", retryInMs: POLL_MS };
  }

  private async submit(root: Uint8Array): Promise<AnchorOutcome> {
    const settled = await Promise.allSettled(this.calendars.map((calendar) => this.post(calendar, root)));
    const pending = settled.flatMap((s) => (s.status === "fulfilled" ? s.value : []));
    if (pending.length === 0) throw new Error("no OpenTimestamps calendar accepted the digest");
    const evidence = new TextEncoder().encode(JSON.stringify({ pending } satisfies Receipts));
    return { status: "pending", retryInMs: POLL_MS, evidence };
  }

  private async post(calendar: string, root: Uint8Array): Promise<Receipts["pending"]> {
    const response = await this.fetchImpl(`${calendar.replace(/\/+$/, "")}/digest`, {
      method: "POST",
      headers: { ...ACCEPT, "content-type": "application/x-www-form-urlencoded" },
      body: new Uint8Array(root),
      signal: AbortSignal.timeout(30_000),
    });
    if (!response.ok) throw new Error(`calendar ${calendar} answered HTTP ${response.status}`);
    const found = attestations(new Uint8Array(await response.arrayBuffer()), root);
    // A pending attestation names where to ask for the upgrade; only configured calendars are
    // ever contacted, so one naming another host is asked of the calendar that issued it (an
    // aggregator, or a calendar answering for a peer, is configured by the operator or not used).
    return found.flatMap((a) =>
      a.kind === "pending"
        ? [{ calendar: this.configured(a.uri) ? a.uri : calendar, commitment: bytesToHex(a.commitment) }]
        : [],
    );
  }

  private configured(uri: string): boolean {
    const wanted = normalized(uri);
    return this.calendars.some((c) => normalized(c) === wanted);
  }

  /** The attested block height once the calendar has one for the commitment, else null. */
  private async upgraded(calendar: string, commitment: Uint8Array): Promise<number | null> {
    const response = await this.fetchImpl(
      `${calendar.replace(/\/+$/, "")}/timestamp/${bytesToHex(commitment)}`,
      {
        headers: ACCEPT,
        signal: AbortSignal.timeout(30_000),
      },
    );
    // 404: "Pending confirmation in Bitcoin blockchain".
    if (response.status === 404) return null;
    if (!response.ok) throw new Error(`calendar ${calendar} answered HTTP ${response.status}`);
    const found = attestations(new Uint8Array(await response.arrayBuffer()), commitment);
    const heights = found.flatMap((a) => (a.kind === "bitcoin" ? [a.height] : []));
    return heights.length > 0 ? Math.min(...heights) : null;
  }
}

const normalized = (uri: string) => uri.replace(/\/+$/, "").toLowerCase();
