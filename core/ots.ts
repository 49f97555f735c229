import { sha1 as nobleSha1, ripemd160 } from "@noble/hashes/legacy.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, concatBytes } from "@noble/hashes/utils.js";

/**
 * The OpenTimestamps timestamp serialization (python-opentimestamps `Timestamp.serialize`), as
 * calendars return it from `POST /digest` and `GET /timestamp/<commitment>` and as `.ots` files
 * hold it: a tree of operations from a message to attestations. Read into a tree (to find
 * attestations, to join calendars' answers into one proof) and written back. Portable: the
 * server's anchor and the SDK's bundle check both read it.
 */
export type Attestation =
  | { kind: "pending"; uri: string; commitment: Uint8Array }
  | { kind: "bitcoin"; height: number; commitment: Uint8Array }
  | { kind: "other"; commitment: Uint8Array };

/** A timestamp: what is attested of its message, and operations leading to further timestamps. */
export type OtsTimestamp = OtsItem[];
/** An operation: its tag, and its argument for append and prepend. */
export interface OtsOp {
  op: number;
  arg?: Uint8Array;
}
export type OtsItem =
  | { attestation: Uint8Array } // the 8-byte tag and the payload, as serialized after 0x00
  | (OtsOp & { next: OtsTimestamp });

export const OTS_SHA256 = 0x08;
export const OTS_APPEND = 0xf0;
export const OTS_PREPEND = 0xf1;
export const OTS_HEXLIFY = 0xf3;

const TAG_PENDING = "83dfe30d2ef90c8e";
const TAG_BITCOIN = "0588960d73d71901";

type Unary = (msg: Uint8Array) => Uint8Array;
const unaryOps: Record<number, Unary> = {
  2: (msg) => nobleSha1(msg),
  3: (msg) => ripemd160(msg),
  [OTS_SHA256]: (msg) => sha256(msg),
  103: (msg) => keccak_256(msg),
  242: (msg) => msg.slice().reverse(),
  [OTS_HEXLIFY]: (msg) => new TextEncoder().encode(bytesToHex(msg)),
};
const binaryOps: Record<number, (msg: Uint8Array, arg: Uint8Array) => Uint8Array> = {
  [OTS_APPEND]: (msg, arg) => concatBytes(msg, arg),
  [OTS_PREPEND]: (msg, arg) => concatBytes(arg, msg),
};

/** The message an operation makes of `msg`. */
export function applyOp(item: OtsOp, msg: Uint8Array): Uint8Array {
  const binary = binaryOps[item.op];
  return binary ? binary(msg, item.arg!) : unaryOps[item.op]!(msg);
}

/** Every attestation reachable from `message` in the serialized timestamp `bytes`. */
export function attestations(bytes: Uint8Array, message: Uint8Array): Attestation[] {
  return attestationsOf(parseTimestamp(bytes), message);
}

/** Every attestation of a timestamp tree whose first message is `message`, depth first. */
export function attestationsOf(timestamp: OtsTimestamp, message: Uint8Array): Attestation[] {
  return timestamp.flatMap((item) =>
    "attestation" in item
      ? [readAttestation(item.attestation, message)]
      : attestationsOf(item.next, applyOp(item, message)),
  );
}

/** Whether some message of the tree, starting from `message`, is `target` (a batch root, say). */
export function reaches(timestamp: OtsTimestamp, message: Uint8Array, target: Uint8Array): boolean {
  if (bytesToHex(message) === bytesToHex(target)) return true;
  return timestamp.some((item) => "op" in item && reaches(item.next, applyOp(item, message), target));
}

/**
 * The tree with `extra` joined to the timestamp of every message equal to `at`: how an upgrade a
 * calendar returns for a commitment (`GET /timestamp/<commitment>`) joins the proof, as `ots
 * upgrade` does.
 */
export function graft(
  timestamp: OtsTimestamp,
  message: Uint8Array,
  at: Uint8Array,
  extra: OtsTimestamp,
): OtsTimestamp {
  const items = timestamp.map((item) =>
    "op" in item ? { ...item, next: graft(item.next, applyOp(item, message), at, extra) } : item,
  );
  return bytesToHex(message) === bytesToHex(at) ? mergeTimestamps(items, extra) : items;
}

/**
 * One timestamp holding what each of `timestamps` (all of the same message) holds. An operation
 * two of them share is kept once with both continuations, since a reader keeps one timestamp per
 * operation (python-opentimestamps' `Timestamp.ops` is a dict): two calendars' answers both
 * starting with `sha256` must not hide one another.
 */
export function mergeTimestamps(...timestamps: OtsTimestamp[]): OtsTimestamp {
  const merged: OtsTimestamp = [];
  for (const item of timestamps.flat()) {
    const same = merged.findIndex((m) => itemKey(m) === itemKey(item));
    if (same < 0) merged.push(item);
    else if ("op" in item) {
      const kept = merged[same] as OtsOp & { next: OtsTimestamp };
      merged[same] = { ...kept, next: mergeTimestamps(kept.next, item.next) };
    }
  }
  return merged;
}

const itemKey = (item: OtsItem) =>
  "attestation" in item
    ? `a${bytesToHex(item.attestation)}`
    : `o${item.op}:${bytesToHex(item.arg ?? new Uint8Array())}`;

/** A serialized timestamp read whole: trailing bytes are refused. */
export function parseTimestamp(bytes: Uint8Array): OtsTimestamp {
  const reader = new OtsReader(bytes);
  const timestamp = readTimestamp(reader);
  if (!reader.done) throw new SyntaxError("trailing bytes after the timestamp");
  return timestamp;
}

/** Reads one timestamp from `reader`, leaving what follows it. */
export function readTimestamp(reader: OtsReader, depth = 0): OtsTimestamp {
  if (depth > 256) throw new SyntaxError("timestamp nested too deeply");
  const items: OtsTimestamp = [];
  for (let tag = reader.byte(); ; tag = reader.byte()) {
    const fork = tag === 0xff;
    items.push(readItem(reader, fork ? reader.byte() : tag, depth));
    if (!fork) return items;
  }
}

function readItem(reader: OtsReader, tag: number, depth: number): OtsItem {
  if (tag === 0x00) {
    const start = reader.offset;
    reader.bytes(8);
    reader.varBytes();
    return { attestation: reader.slice(start) };
  }
  if (binaryOps[tag]) return { op: tag, arg: reader.varBytes(), next: readTimestamp(reader, depth + 1) };
  if (unaryOps[tag]) return { op: tag, next: readTimestamp(reader, depth + 1) };
  throw new SyntaxError(`unknown operation 0x${tag.toString(16)}`);
}

/** The serialization of a timestamp: every item but the last after a 0xff fork marker. */
export function serializeTimestamp(timestamp: OtsTimestamp): Uint8Array {
  if (timestamp.length === 0) throw new RangeError("an empty timestamp cannot be serialized");
  const parts = timestamp.flatMap((item, i) => {
    const fork = i < timestamp.length - 1 ? [Uint8Array.of(0xff)] : [];
    if ("attestation" in item) return [...fork, Uint8Array.of(0x00), item.attestation];
    const arg = item.arg ? [varUint(item.arg.length), item.arg] : [];
    return [...fork, Uint8Array.of(item.op), ...arg, serializeTimestamp(item.next)];
  });
  return concatBytes(...parts);
}

function readAttestation(raw: Uint8Array, commitment: Uint8Array): Attestation {
  const reader = new OtsReader(raw);
  const tag = bytesToHex(reader.bytes(8));
  const payload = new OtsReader(reader.varBytes());
  if (tag === TAG_PENDING)
    return { kind: "pending", uri: new TextDecoder().decode(payload.varBytes()), commitment };
  if (tag === TAG_BITCOIN) return { kind: "bitcoin", height: payload.varUint(), commitment };
  return { kind: "other", commitment };
}

/** Unsigned LEB128, as OpenTimestamps writes lengths and heights. */
export function varUint(n: number): Uint8Array {
  const out: number[] = [];
  for (; n >= 0x80; n = Math.floor(n / 0x80)) out.push((n % 0x80) | 0x80);
  out.push(n);
  return Uint8Array.from(out);
}

export class OtsReader {
  private at = 0;

  constructor(private readonly data: Uint8Array) {}

  get done(): boolean {
    return this.at === this.data.length;
  }

  get offset(): number {
    return this.at;
  }

  slice(start: number): Uint8Array {
    return this.data.slice(start, this.at);
  }

  byte(): number {
    if (this.at >= this.data.length) throw new SyntaxError("timestamp ends early");
    return this.data[this.at++]!;
  }

  bytes(n: number): Uint8Array {
    if (this.at + n > this.data.length) throw new SyntaxError("timestamp ends early");
    this.at += n;
    return this.data.subarray(this.at - n, this.at);
  }

  varUint(): number {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const b = this.byte();
      value += (b & 0x7f) * 2 ** shift;
      if (!(b & 0x80)) return value;
      if (shift > 49) throw new SyntaxError("varuint too large");
    }
  }

  varBytes(): Uint8Array {
    return this.bytes(this.varUint());
  }
}
