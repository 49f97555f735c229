import { jcs } from "../../core/jcs.js";
import type { StampDocument } from "./stamp-repository.js";

/** A stamp document before the service signs it: everything but `signatures`. */
export type UnsignedDocument = Omit<StampDocument, "signatures">;

/**
 * A stamp document's RFC 8785 text kept as the text of its members (`"name":<JCS of the value>`,
 * in JCS's order) before and after the place of `signatures`, so the document with its signatures
 * costs one concatenation instead of a second canonicalization. A stamp needs two texts of nearly
 * the same object: its signed payload (no `signatures`) and the stored document (with them).
 *
 * The members are the spec's StampDocument's, written in the order JCS sorts their names (UTF-16
 * code units), not found and sorted per stamp: a batch call writes thousands of these, and the
 * generic walk (keys, sort, a name and a value check per member) was a tenth of its CPU.
 */
export class CanonicalMembers {
  /** The members before `signatures`, each followed by a comma. */
  private readonly before: string;
  /** The members after it, each preceded by a comma. */
  private readonly after: string;

  constructor(d: UnsignedDocument) {
    const { document } = d;
    this.before =
      `"anchors":${JSON.stringify(d.anchors)},` +
      `"author_public_key":${JSON.stringify(d.author_public_key)},` +
      `"created_at":${JSON.stringify(d.created_at)},` +
      (d.description === undefined ? "" : `"description":${JSON.stringify(d.description)},`) +
      `"document":{"algorithm":${JSON.stringify(document.algorithm)},` +
      `"hash":${JSON.stringify(document.hash)},` +
      `"size_bytes":${canonical(document.size_bytes)},` +
      `"version":${JSON.stringify(document.version)}},` +
      `"encryption":${JSON.stringify(d.encryption)},` +
      `"fingerprint":${canonical(d.fingerprint)},` +
      `"format":${JSON.stringify(d.format)},` +
      (d.metadata === undefined ? "" : `"metadata":${canonical(d.metadata)},`) +
      `"preset":${JSON.stringify(d.preset)},` +
      `"service_public_key":${JSON.stringify(d.service_public_key)},`;
    this.after =
      `,"stamp_id":${JSON.stringify(d.stamp_id)}` +
      `,"storage_mode":${JSON.stringify(d.storage_mode)}` +
      `,"trust_threshold":${canonical(d.trust_threshold)}`;
  }

  /** The unsigned document's JCS text: the signed payload. */
  text(): string {
    return `{${this.before}${this.after.slice(1)}}`;
  }

  /** The JCS text of the document with its `signatures`. */
  textWith(signatures: StampDocument["signatures"]): string {
    return `{${this.before}"signatures":${canonical(signatures)}${this.after}}`;
  }
}

/**
 * JCS of a value. JCS writes strings, finite numbers, booleans and null exactly as JSON.stringify
 * does (RFC 8785 3.2.2 takes both from ECMAScript), and arrays in their order; it differs only in
 * ordering object members by name. So a value whose objects already list their members in that
 * order is written by JSON.stringify alone, without the library's walk (which builds its text by
 * concatenation at every level: a share of a batch's garbage); other values go through it.
 */
export function canonical(value: unknown): string {
  return inCanonicalOrder(value) ? JSON.stringify(value) : jcs(value);
}

/** Whether JSON.stringify writes `value` as JCS does (see canonical()). */
function inCanonicalOrder(value: unknown): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((item) => item !== undefined && inCanonicalOrder(item));
  if (typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype) return false;
  let previous: string | null = null;
  for (const name in value) {
    const member = (value as Record<string, unknown>)[name];
    if ((previous !== null && previous >= name) || member === undefined || !inCanonicalOrder(member)) {
      return false;
    }
    previous = name;
  }
  return true;
}
