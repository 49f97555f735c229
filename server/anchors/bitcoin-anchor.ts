import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { attestations, graft, mergeTimestamps, type OtsTimestamp, parseTimestamp } from "../../core/ots.js";
import type { AnchorAdapter, AnchorOutcome, AnchorSubject } from "./anchor.js";

/**
 * What is kept between attempts and as the proof: for each calendar, the commitment it promised
 * to timestamp; the calendars' answers for the root and the upgrade that confirmed it (hex), from
 * which `GET /stamps/{id}/timestamp.ots` is made. Receipts stored before the answers were kept
 * have only `pending`.
 */
interface Receipts {
  pending: { calendar: string; commitment: string }[];
  answers?: string[];
  upgrade?: { commitment: string; timestamp: string };
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
      const upgrade = await this.upgraded(calendar, hexToBytes(commitment));
      if (upgrade !== null) {
        const kept = { ...receipts, upgrade: { commitment, timestamp: bytesToHex(upgrade.timestamp) } };
        return {
          status: "confirmed",
          reference: String(upgrade.height),
          confirmedAt: this.clock.now(),
          evidence: new TextEncoder().encode(JSON.stringify(kept satisfies Receipts)),
        };
      }
    }
    return { status: "pending", retryInMs: POLL_MS };
  }

  private async submit(root: Uint8Array): Promise<AnchorOutcome> {
    const settled = await Promise.allSettled(this.calendars.map((calendar) => this.post(calendar, root)));
    const accepted = settled.flatMap((s) =>
      s.status === "fulfilled" && s.value.pending.length > 0 ? [s.value] : [],
    );
    const pending = accepted.flatMap((a) => a.pending);
    if (pending.length === 0) throw new Error("no OpenTimestamps calendar accepted the digest");
    const answers = accepted.map((a) => a.answer);
    const evidence = new TextEncoder().encode(JSON.stringify({ pending, answers } satisfies Receipts));
    return { status: "pending", retryInMs: POLL_MS, evidence };
  }

  private async post(
    calendar: string,
    root: Uint8Array,
  ): Promise<{ pending: Receipts["pending"]; answer: string }> {
    const response = await this.fetchImpl(`${calendar.replace(/\/+$/, "")}/digest`, {
      method: "POST",
      headers: { ...ACCEPT, "content-type": "application/x-www-form-urlencoded" },
      body: new Uint8Array(root),
      signal: AbortSignal.timeout(30_000),
    });
    if (!response.ok) throw new Error(`calendar ${calendar} answered HTTP ${response.status}`);
    const answer = new Uint8Array(await response.arrayBuffer());
    const found = attestations(answer, root);
    // A pending attestation names where to ask for the upgrade; only configured calendars are
    // ever contacted, so one naming another host is asked of the calendar that issued it (an
    // aggregator, or a calendar answering for a peer, is configured by the operator or not used).
    const pending = found.flatMap((a) =>
      a.kind === "pending"
        ? [{ calendar: this.configured(a.uri) ? a.uri : calendar, commitment: bytesToHex(a.commitment) }]
        : [],
    );
    return { pending, answer: bytesToHex(answer) };
  }

  private configured(uri: string): boolean {
    const wanted = normalized(uri);
    return this.calendars.some((c) => normalized(c) === wanted);
  }

  /** The attested block height and the calendar's timestamp, once it has one for the commitment. */
  private async upgraded(
    calendar: string,
    commitment: Uint8Array,
  ): Promise<{ height: number; timestamp: Uint8Array } | null> {
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
    const timestamp = new Uint8Array(await response.arrayBuffer());
    const heights = attestations(timestamp, commitment).flatMap((a) =>
      a.kind === "bitcoin" ? [a.height] : [],
    );
    return heights.length > 0 ? { height: Math.min(...heights), timestamp } : null;
  }
}

/**
 * The OpenTimestamps timestamp of a batch root kept in a `bitcoin` anchor's evidence: every
 * calendar's answer, joined with the upgrade that confirmed the anchor. Null when no answer was
 * kept (no calendar answered yet, or receipts stored before answers were kept).
 */
export function calendarTimestamp(evidence: Uint8Array, root: Uint8Array): OtsTimestamp | null {
  const receipts = JSON.parse(new TextDecoder().decode(evidence)) as Receipts;
  if (!receipts.answers?.length) return null;
  const answered = mergeTimestamps(...receipts.answers.map((hex) => parseTimestamp(hexToBytes(hex))));
  const { upgrade } = receipts;
  if (!upgrade) return answered;
  return graft(answered, root, hexToBytes(upgrade.commitment), parseTimestamp(hexToBytes(upgrade.timestamp)));
}

const normalized = (uri: string) => uri.replace(/\/+$/, "").toLowerCase();
