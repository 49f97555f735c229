import { createHash } from "node:crypto";
import { keccak_256 } from "@noble/hashes/sha3.js";

/**
 * The OpenTimestamps timestamp serialization (python-opentimestamps `Timestamp.serialize`), as
 * calendars return it from `POST /digest` and `GET /timestamp/<commitment>`: a tree of operations
 * from a message to attestations. Only what anchoring needs is read: pending attestations (which
 * calendar to ask, for which commitment) and Bitcoin block-header attestations (the height).
 */
export type Attestation =
  | { kind: "pending"; uri: string; commitment: Uint8Array }
  | { kind: "bitcoin"; height: number; commitment: Uint8Array }
  | { kind: "other"; commitment: Uint8Array };

const TAG_PENDING = "83dfe30d2ef90c8e";
const TAG_BITCOIN = "0588960d73d71901";

type Unary = (msg: Uint8Array) => Uint8Array;
const hashOp =
  (algorithm: string): Unary =>
  (msg) =>
    new Uint8Array(createHash(algorithm).update(msg).digest());
const unaryOps: Record<number, Unary> = {
  2: hashOp("sha1"),
  3: hashOp("ripemd160"),
  8: hashOp("sha256"),
  103: (msg) => keccak_256(msg),
  242: (msg) => msg.slice().reverse(),
  243: (msg) => new TextEncoder().encode(Buffer.from(msg).toString("hex")),
};
const binaryOps: Record<number, (msg: Uint8Array, arg: Uint8Array) => Uint8Array> = {
  240: (msg, arg) => new Uint8Array([...msg, ...arg]),
  241: (msg, arg) => new Uint8Array([...arg, ...msg]),
};

/** Every attestation reachable from `message` in the serialized timestamp `bytes`. */
export function attestations(bytes: Uint8Array, message: Uint8Array): Attestation[] {
  const reader = new Reader(bytes);
  const found: Attestation[] = [];
  readTimestamp(reader, message, found, 0);
  if (!reader.done) throw new SyntaxError("trailing bytes after the timestamp");
  return found;
}

function readTimestamp(reader: Reader, message: Uint8Array, found: Attestation[], depth: number): void {
  if (depth > 256) throw new SyntaxError("timestamp nested too deeply");
  for (let tag = reader.byte(); ; tag = reader.byte()) {
    const fork = tag === 0xff;
    readItem(reader, fork ? reader.byte() : tag, message, found, depth);
    if (!fork) return;
  }
}

function readItem(
  reader: Reader,
  tag: number,
  message: Uint8Array,
  found: Attestation[],
  depth: number,
): void {
  if (tag === 0x00) {
    found.push(readAttestation(reader, message));
    return;
  }
  const binary = binaryOps[tag];
  const unary = unaryOps[tag];
  if (!binary && !unary) throw new SyntaxError(`unknown operation 0x${tag.toString(16)}`);
  const next = binary ? binary(message, reader.varBytes()) : unary!(message);
  readTimestamp(reader, next, found, depth + 1);
}

function readAttestation(reader: Reader, commitment: Uint8Array): Attestation {
  const tag = Buffer.from(reader.bytes(8)).toString("hex");
  const payload = new Reader(reader.varBytes());
  if (tag === TAG_PENDING)
    return { kind: "pending", uri: new TextDecoder().decode(payload.varBytes()), commitment };
  if (tag === TAG_BITCOIN) return { kind: "bitcoin", height: payload.varUint(), commitment };
  return { kind: "other", commitment };
}

class Reader {
  private at = 0;

  constructor(private readonly data: Uint8Array) {}

  get done(): boolean {
    return this.at === this.data.length;
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

  /** Unsigned LEB128, as OpenTimestamps writes lengths and heights. */
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
