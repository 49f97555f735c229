/**
 * I-JSON (RFC 7493) member names: JSON.parse keeps the last of two members with the same name,
 * another parser may keep the first, so a signed document with a repeated name can show one
 * reader a value it never showed the signer (a backdated `created_at` before the real one).
 * Documents with a repeated name are refused wherever they are read (RFC 7493 section 2.3).
 *
 * A scanner of its own, not a library: the JSON AST parsers that report duplicates (momoa,
 * jsonc-parser's visitor, json-bigint's strict mode) build every value a second time and cost
 * several times JSON.parse; this one only skips strings with indexOf and keeps one Set of names
 * per open object. Portable: no node: imports.
 */

/** A member name repeated in one object: where (a JSON pointer to the object) and which name. */
export interface DuplicateMember {
  /** JSON pointer (RFC 6901) to the object holding the name twice; "" for the top level. */
  pointer: string;
  name: string;
}

/**
 * JSON.parse that refuses repeated member names: throws a SyntaxError for text that is not JSON
 * and a DuplicateMemberError for a name repeated in one object.
 *
 * @example
 * parseIJson('{"a":1,"a":2}'); // throws DuplicateMemberError: duplicate member name "a" at ""
 */
export function parseIJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  // Only objects can hold members; a scalar or an array of scalars needs no scan.
  if (typeof value === "object" && value !== null) {
    const duplicate = findDuplicateMember(text);
    if (duplicate) throw new DuplicateMemberError(duplicate);
  }
  return value;
}

export class DuplicateMemberError extends Error {
  readonly pointer: string;
  readonly member: string;

  constructor({ pointer, name }: DuplicateMember) {
    super(
      `duplicate member name ${JSON.stringify(name)} at ${JSON.stringify(pointer)} (RFC 7493: names must be unique)`,
    );
    this.name = "DuplicateMemberError";
    this.pointer = pointer;
    this.member = name;
  }
}

interface ObjectFrame {
  names: Set<string>;
  /** The name of the member being read: the next step of a pointer. */
  last: string;
  expectName: boolean;
}
interface ArrayFrame {
  names: null;
  index: number;
}
type Frame = ObjectFrame | ArrayFrame;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The first member name repeated in one object of `text`, or null. `text` must be JSON that
 * JSON.parse accepted: the scanner checks no syntax, it only follows nesting and strings.
 * Names are compared after unescaping ("a" and "\u0061" are the same name). No recursion.
 */
export function findDuplicateMember(text: string): DuplicateMember | null {
  const stack: Frame[] = [];
  let top: Frame | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (top?.names && top.expectName) {
        const raw = text.slice(i + 1, end);
        const name = raw.includes("\\") ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
        if (top.names.has(name)) return { pointer: pointerOf(stack), name };
        top.names.add(name);
        top.last = name;
        top.expectName = false;
      }
      i = end;
    } else if (c === 0x7b /* { */) {
      top = { names: new Set(), last: "", expectName: true };
      stack.push(top);
    } else if (c === 0x5b /* [ */) {
      top = { names: null, index: 0 };
      stack.push(top);
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
      top = stack[stack.length - 1];
    } else if (c === 0x2c /* , */ && top) {
      if (top.names) top.expectName = true;
      else top.index++;
    }
  }
  return null;
}

/** Index of the quote closing the string that opens at `start` (one not escaped by a backslash). */
function stringEnd(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  while (end !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
  return text.length;
}

/** JSON pointer to the innermost open object (RFC 6901: "~" as "~0", "/" as "~1"). */
function pointerOf(stack: Frame[]): string {
  return stack
    .slice(0, -1)
    .map((frame) => `/${frame.names ? frame.last.replace(/~/g, "~0").replace(/\//g, "~1") : frame.index}`)
    .join("");
}
