import { jcs } from "../../sdk/src/verify/jcs.js";

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
 * JCS of a member's value. A string, a finite number, a boolean or null is written by JCS exactly
 * as JSON.stringify writes it (RFC 8785 3.2.2 takes both from ECMAScript), without the library's
 * walk; objects and arrays go through it.
 */
function canonical(value: unknown): string {
  const plain =
    typeof value === "string" ||
    typeof value === "boolean" ||
    value === null ||
    (typeof value === "number" && Number.isFinite(value));
  return plain ? JSON.stringify(value) : jcs(value);
}
