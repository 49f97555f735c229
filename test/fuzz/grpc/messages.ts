import {
  create,
  type DescField,
  type DescMessage,
  fromBinary,
  ScalarType,
  toBinary,
} from "@bufbuild/protobuf";
import fc from "fast-check";
import { anyText, type Rng } from "../random.js";

/** Strings that reach the server's validation paths: content hashes, stamp ids, filters, service names. */
const meaningful = fc.oneof(
  fc.stringMatching(/^(sha3-256|sha256|blake3):[0-9a-f]{64}$/),
  fc.stringMatching(/^stp_[0-9A-HJKMNP-TV-Z]{26}$/),
  fc.constantFrom(
    "status=pending",
    "algorithm=sha256 project=x",
    "status=nope",
    "=x",
    "novalue",
    "svc.v1.StampService",
    "",
  ),
);

/**
 * A random message of `schema`, built field by field from its descriptor (svc.v1 in
 * specs/proto): strings realistic or nasty, numbers and enums across their range (unknown enum
 * numbers included), lists and maps of a few entries and now and then of many.
 */
export function randomMessage(rng: Rng, schema: DescMessage, depth = 0): Uint8Array {
  return toBinary(schema, create(schema, fields(rng, schema, depth) as never));
}

function fields(rng: Rng, schema: DescMessage, depth: number): Record<string, unknown> {
  const init: Record<string, unknown> = {};
  for (const field of schema.fields) {
    if (!rng.chance(0.7)) continue;
    init[field.localName] = fieldValue(rng, field, depth);
  }
  return init;
}

function fieldValue(rng: Rng, field: DescField, depth: number): unknown {
  switch (field.fieldKind) {
    case "scalar":
      return scalar(rng, field.scalar);
    case "enum":
      return rng.pick([0, 1, 2, 3, 99, -1]);
    case "message":
      return depth > 2 ? undefined : fields(rng, field.message, depth + 1);
    case "list": {
      const n = rng.chance(0.02) ? 1001 : rng.int(4);
      return Array.from({ length: n }, () =>
        field.listKind === "message"
          ? fields(rng, field.message, depth + 1)
          : field.listKind === "enum"
            ? 1
            : scalar(rng, field.scalar),
      );
    }
    case "map": {
      const n = rng.chance(0.05) ? 40 : rng.int(4);
      // Now and then a key JavaScript objects treat specially, which must reach the server's checks.
      const key = (i: number) =>
        rng.chance(0.1) ? rng.pick(["__proto__", "constructor"]) : `${rng.draw(anyText)}${i}`;
      return Object.fromEntries(Array.from({ length: n }, (_, i) => [key(i), rng.draw(anyText)]));
    }
  }
}

function scalar(rng: Rng, type: ScalarType): unknown {
  switch (type) {
    case ScalarType.STRING:
      // A long value, which a status message must not echo whole (a 70 KB trailer resets the stream).
      if (rng.chance(0.01)) return "n".repeat(70_000);
      return rng.chance(0.6)
        ? rng.draw(meaningful)
        : rng.draw(anyText).replaceAll(/[\ud800-\udfff]/g, "\ufffd");
    case ScalarType.BOOL:
      return rng.chance(0.5);
    case ScalarType.BYTES:
      return rng.draw(fc.uint8Array({ maxLength: 32 }));
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return BigInt(rng.int(2 ** 31));
    default:
      return rng.int(2 ** 31);
  }
}

/** Whether bytes decode as a message of `schema` (what the server must do before anything else). */
export function decodes(schema: DescMessage, bytes: Uint8Array): boolean {
  try {
    fromBinary(schema, bytes);
    return true;
  } catch {
    return false;
  }
}

/** Bytes that are, or may no longer be, a message: random, cut, flipped, with a wrong wire type or a huge length. */
export function spoil(rng: Rng, bytes: Uint8Array): { bytes: Uint8Array; how: string } {
  const copy = Buffer.from(bytes);
  switch (rng.int(7)) {
    case 0:
      return { bytes: rng.draw(fc.uint8Array({ minLength: 1, maxLength: 64 })), how: "random bytes" };
    case 1:
      return {
        bytes: copy.subarray(0, Math.max(0, copy.length - 1 - rng.int(Math.max(1, copy.length)))),
        how: "cut short",
      };
    case 2:
      if (copy.length > 0) copy[rng.int(copy.length)]! ^= 1 << rng.int(8);
      return { bytes: copy, how: "bit flipped" };
    case 3:
      // Field 1 with wire type 6 or 7: no such wire type.
      return { bytes: Buffer.concat([Buffer.from([0x0e | rng.int(2)]), copy]), how: "unknown wire type" };
    case 4:
      // Field 1, length-delimited, declaring 2^32 bytes.
      return {
        bytes: Buffer.concat([Buffer.from([0x0a, 0x80, 0x80, 0x80, 0x80, 0x10]), copy]),
        how: "huge length",
      };
    case 5:
      // A string field (1) holding bytes that are not UTF-8.
      return {
        bytes: Buffer.concat([Buffer.from([0x0a, 0x03, 0xc3, 0x28, 0xff]), copy]),
        how: "string not UTF-8",
      };
    default:
      // An unknown field (number 999) is legal and must be skipped.
      return { bytes: Buffer.concat([copy, Buffer.from([0xb8, 0x3e, 0x01])]), how: "unknown field" };
  }
}
