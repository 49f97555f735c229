import { jcs } from "../../core/jcs.js";

/**
 * An object's RFC 8785 text kept as the text of its members (`"name":<JCS of the value>`, in JCS's
 * order) before and after the place of one member still to come, so the same object with that
 * member costs one concatenation instead of a second canonicalization. A stamp needs two texts of
 * nearly the same object: its signed payload (no `signatures`) and the stored document (with
 * them). JCS orders members by their names' UTF-16 code units, as sort() does.
 */
export class CanonicalMembers {
  /** The members before the one to come, each followed by a comma. */
  private readonly before: string;
  /** The members after it, each preceded by a comma. */
  private readonly after: string;

  /** `object`'s members, split where a member named `coming` (not among them) goes. */
  constructor(
    object: Record<string, unknown>,
    private readonly coming: string,
  ) {
    let before = "";
    let after = "";
    for (const name of Object.keys(object).sort()) {
      const value = object[name];
      if (value === undefined) continue;
      const member = `${JSON.stringify(name)}:${canonical(value)}`;
      if (name < coming) before += `${member},`;
      else after += `,${member}`;
    }
    this.before = before;
    this.after = after;
  }

  /** The object's JCS text. */
  text(): string {
    if (this.after === "") return `{${this.before.slice(0, -1)}}`;
    return `{${this.before}${this.after.slice(1)}}`;
  }

  /** The JCS text of the object with the member to come, whose value is `value`. */
  textWith(value: unknown): string {
    return `{${this.before}${JSON.stringify(this.coming)}:${canonical(value)}${this.after}}`;
  }
}

/**
 * JCS of a member's value. JCS writes strings, finite numbers, booleans and null exactly as
 * JSON.stringify does (RFC 8785 3.2.2 takes both from ECMAScript), and arrays in their order; it
 * differs only in ordering object members by name. So a value whose objects already list their
 * members in that order is written by JSON.stringify alone, without the library's walk (which
 * builds its text by concatenation at every level: a share of a batch's garbage); other values go
 * through it.
 */
function canonical(value: unknown): string {
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
