import { jcs } from "../../core/jcs.js";

/**
 * An object's RFC 8785 text kept as its members (`"name":<JCS of the value>`, in JCS's order), so
 * the same object with one member more costs a join instead of a second canonicalization. A stamp
 * needs two texts of nearly the same object: its signed payload (no `signatures`) and the stored
 * document (with them). JCS orders members by their names' UTF-16 code units, as sort() does.
 */
export class CanonicalMembers {
  private readonly names: string[];
  private readonly members: string[];

  constructor(object: Record<string, unknown>) {
    this.names = Object.keys(object)
      .filter((name) => object[name] !== undefined)
      .sort();
    this.members = this.names.map((name) => `${JSON.stringify(name)}:${canonical(object[name])}`);
  }

  /** The object's JCS text. */
  text(): string {
    return `{${this.members.join(",")}}`;
  }

  /** The JCS text of the object with one more member, `name` (not among its members). */
  textWith(name: string, value: unknown): string {
    const at = this.names.findIndex((n) => n > name);
    const members = [...this.members];
    members.splice(at === -1 ? members.length : at, 0, `${JSON.stringify(name)}:${canonical(value)}`);
    return `{${members.join(",")}}`;
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
