import { anchorTypes, decompositionMethods, presetNames } from "../gen/openapi/enums.js";
import { hashAlgorithms } from "./content-hash.js";
import { quote } from "./quote.js";
import type { StampDocument } from "./types.js";

/**
 * The `stampd.stamp/v1` format, checked by hand so that offline verification needs no schema
 * library in a browser bundle. It mirrors the spec's `StampDocument` schema rule for rule;
 * test/stamps/document-format.test.ts holds the two to the same verdicts.
 */
export const STAMP_FORMAT = "stampd.stamp/v1";

type Check = (value: unknown) => string | null;

const HEX64 = /^[0-9a-f]{64}$/;
const SIGNATURE = /^[0-9a-f]{128}$/;
const PUBLIC_KEY = /^ed25519:[0-9a-f]{64}$/;
const STAMP_ID = /^stp_[0-9A-HJKMNP-TV-Z]{26}$/;
const STANDARD_HASH = /^(sha3-256|sha256|blake3):[0-9a-f]{64}$/;
// RFC 3339 date-time, the JSON Schema `date-time` format.
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
// JSON Schema counts string length in code points, not UTF-16 units.
const length = (s: string) => [...s].length;

const pattern =
  (re: RegExp, what: string): Check =>
  (v) =>
    typeof v === "string" && re.test(v) ? null : `must be ${what}`;
const oneOf =
  (values: readonly unknown[]): Check =>
  (v) =>
    values.includes(v) ? null : `must be one of ${values.map(String).join(", ")}`;
const nullable =
  (check: Check): Check =>
  (v) =>
    v === null ? null : check(v);
const integer =
  (min: number, max = Number.MAX_SAFE_INTEGER): Check =>
  (v) =>
    Number.isInteger(v) && (v as number) >= min && (v as number) <= max
      ? null
      : `must be an integer from ${min}${max === Number.MAX_SAFE_INTEGER ? "" : ` to ${max}`}`;
const text =
  (min: number, max: number): Check =>
  (v) =>
    typeof v === "string" && length(v) >= min && length(v) <= max
      ? null
      : `must be a string of ${min} to ${max} characters`;
const dateTime: Check = (v) =>
  typeof v === "string" && DATE_TIME.test(v) && !Number.isNaN(Date.parse(v))
    ? null
    : "must be an RFC 3339 date-time";

function object(required: Record<string, Check>, optional: Record<string, Check> = {}): Check {
  return (v) => {
    if (!isObject(v)) return "must be an object";
    // Own names only: `in` finds Object.prototype's, so a member named "constructor" passed as known.
    for (const key of Object.keys(v)) {
      if (!Object.hasOwn(required, key) && !Object.hasOwn(optional, key)) {
        return `has an unknown member "${key}"`;
      }
    }
    for (const [key, check] of Object.entries(required)) {
      if (!Object.hasOwn(v, key)) return `lacks "${key}"`;
      const problem = check(v[key]);
      if (problem) return `${key} ${problem}`;
    }
    for (const [key, check] of Object.entries(optional)) {
      const problem = Object.hasOwn(v, key) ? check(v[key]) : null;
      if (problem) return `${key} ${problem}`;
    }
    return null;
  };
}

const anchorList: Check = (v) => {
  if (!Array.isArray(v)) return "must be an array";
  if (new Set(v).size !== v.length) return "must not repeat an anchor type";
  const bad = v.find((a) => !(anchorTypes as readonly unknown[]).includes(a));
  return bad === undefined ? null : `holds an unknown anchor type ${quote(bad)}`;
};

const metadata: Check = (v) => {
  if (!isObject(v)) return "must be an object";
  const entries = Object.entries(v);
  if (entries.length < 1 || entries.length > 32) return "must have 1 to 32 keys";
  for (const [key, value] of entries) {
    if (length(key) < 1 || length(key) > 64) return "keys must be 1 to 64 characters";
    if (typeof value !== "string" || length(value) > 512)
      return `${key} must be a string of at most 512 characters`;
  }
  return null;
};

const fingerprint = object({
  standard_hash: pattern(STANDARD_HASH, "<algorithm>:<64 hex>"),
  merkle_root: pattern(HEX64, "64 lowercase hex characters"),
  chunk_count: integer(0),
  decomposition_method: oneOf(decompositionMethods),
});

const auditPath: Check = (v) => {
  if (!Array.isArray(v)) return "must be an array";
  if (v.length > 64) return "must hold at most 64 hashes";
  return v.every((h) => typeof h === "string" && HEX64.test(h))
    ? null
    : "must hold only 64 lowercase hex characters each";
};

const serviceBatch = object({
  root: pattern(HEX64, "64 lowercase hex characters"),
  leaf_index: integer(0),
  tree_size: integer(1),
  audit_path: auditPath,
  signature: pattern(SIGNATURE, "128 lowercase hex characters"),
});

const signatureMembers = object(
  {
    service: nullable(pattern(SIGNATURE, "128 lowercase hex characters")),
    author: nullable(pattern(SIGNATURE, "128 lowercase hex characters")),
  },
  { service_batch: serviceBatch },
);

// Exactly one of the two forms signs for the service key (StampDocument.signatures' oneOf).
const signatures: Check = (v) => {
  const problem = signatureMembers(v);
  if (problem) return problem;
  const { service, service_batch } = v as { service: string | null; service_batch?: unknown };
  if (service === null && service_batch === undefined) return "lacks both service and service_batch";
  if (service !== null && service_batch !== undefined) return "holds both service and service_batch";
  return null;
};

const stampDocument = object(
  {
    format: oneOf([STAMP_FORMAT]),
    stamp_id: pattern(STAMP_ID, "stp_ followed by a ULID"),
    created_at: dateTime,
    document: object({
      hash: pattern(HEX64, "64 lowercase hex characters"),
      algorithm: oneOf(hashAlgorithms),
      size_bytes: nullable(integer(0)),
      version: text(1, 64),
    }),
    anchors: anchorList,
    trust_threshold: integer(0, 100),
    preset: oneOf([...presetNames, null]),
    storage_mode: oneOf(["local"]),
    encryption: oneOf(["none"]),
    fingerprint: nullable(fingerprint),
    author_public_key: nullable(pattern(PUBLIC_KEY, "ed25519:<64 hex>")),
    service_public_key: pattern(PUBLIC_KEY, "ed25519:<64 hex>"),
    signatures,
  },
  { description: text(1, 1000), metadata },
);

/** Why `value` is not a `stampd.stamp/v1` document, or null when it is one. */
export function formatProblem(value: unknown): string | null {
  return stampDocument(value);
}

export function isStampDocument(value: unknown): value is StampDocument {
  return formatProblem(value) === null;
}
