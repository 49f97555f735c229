import { bytesToHex, concatBytes } from "@noble/hashes/utils.js";
import { jcs } from "./jcs.js";
import {
  OTS_APPEND,
  OTS_HEXLIFY,
  OTS_PREPEND,
  OTS_SHA256,
  type OtsOp,
  OtsReader,
  type OtsTimestamp,
  readTimestamp,
  serializeTimestamp,
} from "./ots.js";
import type { StampDocument } from "./types.js";

/**
 * OpenTimestamps proof files (python-opentimestamps `DetachedTimestampFile`, what `ots verify`
 * reads): the magic, major version 1, the file hash operation, the file's digest, then the
 * timestamp from that digest. A stamp's file starts from its document's SHA-256 and reaches its
 * batch root through the stamp document and the audit path (docs/stamps.md, "OpenTimestamps").
 */
const MAGIC = Uint8Array.from([
  0x00,
  ...new TextEncoder().encode("OpenTimestamps"),
  0x00,
  0x00,
  ...new TextEncoder().encode("Proof"),
  0x00,
  0xbf,
  0x89,
  0xe2,
  0xe8,
  0x84,
  0xe8,
  0x92,
  0x94,
]);
const MAJOR_VERSION = 1;
// python-opentimestamps refuses a message or a result longer than this (op.py, MAX_MSG_LENGTH).
const MAX_MESSAGE = 4096;

/** The `.ots` file of a SHA-256 file digest and the timestamp from it. */
export function otsFile(fileDigest: Uint8Array, timestamp: OtsTimestamp): Uint8Array {
  return concatBytes(
    MAGIC,
    Uint8Array.of(MAJOR_VERSION, OTS_SHA256),
    fileDigest,
    serializeTimestamp(timestamp),
  );
}

/** A `.ots` file read back: its file digest and timestamp (SHA-256 files only, as stampd writes). */
export function readOtsFile(bytes: Uint8Array): { fileDigest: Uint8Array; timestamp: OtsTimestamp } {
  const reader = new OtsReader(bytes);
  if (bytesToHex(reader.bytes(MAGIC.length)) !== bytesToHex(MAGIC))
    throw new SyntaxError("not an OpenTimestamps proof file");
  if (reader.varUint() !== MAJOR_VERSION) throw new SyntaxError("unsupported OpenTimestamps file version");
  if (reader.byte() !== OTS_SHA256) throw new SyntaxError("not a SHA-256 OpenTimestamps file");
  const fileDigest = reader.bytes(32).slice();
  const timestamp = readTimestamp(reader);
  if (!reader.done) throw new SyntaxError("trailing bytes after the timestamp");
  return { fileDigest, timestamp };
}

/** Where a stamp sits in its batch (`GET /stamps/{id}/proof`'s leaf_index, tree_size, merkle_proof). */
export interface BatchPlace {
  leafIndex: number;
  treeSize: number;
  auditPath: readonly Uint8Array[];
}

/**
 * The operations from a stamp's document hash to its batch root, followed by `fromRoot`: the
 * hash's hex spelled out (`hexlify`), wrapped in the rest of the stamp document's RFC 8785 text
 * and RFC 6962's 0x00 leaf prefix, hashed (the leaf), then an RFC 9162 section 2.1.3.2 audit path
 * walk, one node hash H(0x01 ‖ left ‖ right) a step. Throws a RangeError when the stamp document
 * is too long for OpenTimestamps' operations.
 */
export function stampTimestamp(
  stamp: StampDocument,
  place: BatchPlace,
  fromRoot: OtsTimestamp,
): OtsTimestamp {
  const { prefix, suffix } = aroundHash(stamp);
  if (1 + prefix.length + 64 + suffix.length > MAX_MESSAGE)
    throw new RangeError(
      `the stamp document is longer than OpenTimestamps operations take (${MAX_MESSAGE} bytes)`,
    );
  const ops: OtsOp[] = [
    { op: OTS_HEXLIFY },
    { op: OTS_PREPEND, arg: concatBytes(Uint8Array.of(0x00), prefix) },
    ...(suffix.length > 0 ? [{ op: OTS_APPEND, arg: suffix }] : []),
    { op: OTS_SHA256 },
    ...auditOps(place),
  ];
  return ops.reduceRight<OtsTimestamp>((next, op) => [{ ...op, next }], fromRoot);
}

/** The stamp document's canonical text before and after its document hash. */
function aroundHash(stamp: StampDocument): { prefix: Uint8Array; suffix: Uint8Array } {
  const { hash } = stamp.document;
  // Same length as the hash, so the marker sorts and escapes as the hash does in RFC 8785 form.
  const marker = "~".repeat(hash.length);
  const text = jcs({ ...stamp, document: { ...stamp.document, hash: marker } });
  const at = text.indexOf(`"${marker}"`) + 1;
  const [before, after] = [text.slice(0, at), text.slice(at + marker.length)];
  if (before + hash + after !== jcs(stamp) || hash !== hash.toLowerCase())
    throw new RangeError("the stamp document does not spell its hash in lowercase hex");
  const encoder = new TextEncoder();
  return { prefix: encoder.encode(before), suffix: encoder.encode(after) };
}

function auditOps({ leafIndex, treeSize, auditPath }: BatchPlace): OtsOp[] {
  let fn = leafIndex;
  let sn = treeSize - 1;
  return auditPath.flatMap((sibling) => {
    const left = fn % 2 === 1 || fn === sn;
    if (left) while (fn % 2 === 0 && fn !== 0) [fn, sn] = [fn / 2, Math.floor(sn / 2)];
    [fn, sn] = [Math.floor(fn / 2), Math.floor(sn / 2)];
    return left
      ? [{ op: OTS_PREPEND, arg: concatBytes(Uint8Array.of(0x01), sibling) }, { op: OTS_SHA256 }]
      : [{ op: OTS_APPEND, arg: sibling }, { op: OTS_PREPEND, arg: Uint8Array.of(0x01) }, { op: OTS_SHA256 }];
  });
}
