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
 * How deep objects and arrays may nest in JSON that is read as I-JSON (the value itself is level
 * 1; RFC 8259 section 9 lets a parser set this). JSON.parse reads 100 000 levels, but whatever
 * walks the value afterwards by recursion (JCS canonicalization, schema validators,
 * JSON.stringify) runs out of stack on it. A constant of the format, not a setting: a document
 * one deployment accepts must read alike in every other one and in offline verifiers; the
 * deepest body the service defines nests 9 levels (a vault's metadata may nest 8 of its own).
 */
export const MAX_JSON_DEPTH = 64;

/** What the scan of JSON text finds first: a repeated name, or nesting past the bound. */
export type MemberViolation =
  | ({ kind: "duplicate" } & DuplicateMember)
  | {
      kind: "depth";
      /** JSON pointer to the container at the bound's level, whose member opens one more. */
      pointer: string;
    };

/**
 * JSON.parse that refuses repeated member names and hostile nesting: throws a SyntaxError for
 * text that is not JSON, a DuplicateMemberError for a name repeated in one object, a
 * NestingTooDeepError for objects and arrays nested deeper than MAX_JSON_DEPTH.
 *
 * @example
 * parseIJson('{"a":1,"a":2}'); // throws DuplicateMemberError: duplicate member name "a" at ""
 */
export function parseIJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  // Only objects and arrays can hold members or nest; a scalar needs no scan.
  if (typeof value === "object" && value !== null) {
    const violation = findMemberViolation(text);
    if (violation?.kind === "duplicate") throw new DuplicateMemberError(violation);
    if (violation?.kind === "depth") throw new NestingTooDeepError(violation.pointer);
  }
  const lone = findLoneSurrogate(text);
  if (lone) throw new LoneSurrogateError(lone);
  return value;
}

/**
 * The first `\uXXXX` escape of `text` (JSON text) that writes half of a surrogate pair alone, or
 * undefined. I-JSON strings must be valid Unicode (RFC 7493 section 2.1): `"\ud800"` parses in
 * JavaScript, but a document holding it cannot be written as UTF-8, `jq` refuses it, and another
 * language's JCS cannot reproduce the bytes a signature covers. Text without a backslash needs no
 * scan; raw surrogate code units cannot arrive in UTF-8, so escapes are the only way in.
 */
export function findLoneSurrogate(text: string): string | undefined {
  for (let k = text.indexOf("\\"); k !== -1; k = text.indexOf("\\", k)) {
    if (text[k + 1] !== "u") {
      k += 2; // an escaped character, a backslash included
      continue;
    }
    const unit = Number.parseInt(text.slice(k + 2, k + 6), 16);
    if (unit >= 0xdc00 && unit <= 0xdfff) return text.slice(k, k + 6);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const low =
        text[k + 6] === "\\" && text[k + 7] === "u" ? Number.parseInt(text.slice(k + 8, k + 12), 16) : 0;
      if (!(low >= 0xdc00 && low <= 0xdfff)) return text.slice(k, k + 6);
      k += 12;
      continue;
    }
    k += 6;
  }
  return undefined;
}

export class LoneSurrogateError extends Error {
  /** The escape as written, e.g. `\ud800`. */
  readonly sequence: string;

  constructor(sequence: string) {
    super(`lone surrogate ${sequence} in a string (RFC 7493 section 2.1: strings must be valid Unicode)`);
    this.name = "LoneSurrogateError";
    this.sequence = sequence;
  }
}

export class NestingTooDeepError extends Error {
  readonly pointer: string;

  constructor(pointer: string) {
    super(`objects and arrays nest deeper than ${MAX_JSON_DEPTH} levels at ${JSON.stringify(pointer)}`);
    this.name = "NestingTooDeepError";
    this.pointer = pointer;
  }
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
  kind: "object";
  /** Where this object's names start in the shared list of names of open objects. */
  first: number;
  /** The names again, once the object has too many for a linear search. */
  index: Set<string> | null;
  expectName: boolean;
}
interface ArrayFrame {
  kind: "array";
  index: number;
}
type Frame = ObjectFrame | ArrayFrame;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
// Most objects have a few members: a linear search of the shared list costs no allocation, where a
// Set per object cost some 100 bytes for each of the 500 000 chunks of a large fingerprint.
const LINEAR_NAMES = 16;

/**
 * The first member name repeated in one object of `text`, or the first container opened past
 * `maxDepth` levels, whichever comes first; null when neither. `text` must be JSON that
 * JSON.parse accepted: the scanner checks no syntax, it only follows nesting and strings.
 * Names are compared after unescaping ("a" and "\u0061" are the same name). No recursion.
 */
export function findMemberViolation(text: string, maxDepth = MAX_JSON_DEPTH): MemberViolation | null {
  const stack: Frame[] = [];
  // The names of every open object, innermost last: an object's are names[first..].
  const names: string[] = [];
  let top: Frame | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (top?.kind === "object" && top.expectName) {
        const raw = text.slice(i + 1, end);
        const name = raw.includes("\\") ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
        if (seen(top, names, name)) return { kind: "duplicate", pointer: pointerOf(stack, names), name };
        names.push(name);
        top.index?.add(name);
        top.expectName = false;
      }
      i = end;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (stack.length === maxDepth) return { kind: "depth", pointer: pointerOf(stack, names) };
      top =
        c === 0x7b
          ? { kind: "object", first: names.length, index: null, expectName: true }
          : { kind: "array", index: 0 };
      stack.push(top);
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      const closed = stack.pop();
      if (closed?.kind === "object") names.length = closed.first;
      top = stack[stack.length - 1];
    } else if (c === 0x2c /* , */ && top) {
      if (top.kind === "object") top.expectName = true;
      else top.index++;
    }
  }
  return null;
}

function seen(frame: ObjectFrame, names: string[], name: string): boolean {
  if (frame.index) return frame.index.has(name);
  if (names.length - frame.first < LINEAR_NAMES) {
    for (let k = frame.first; k < names.length; k++) if (names[k] === name) return true;
    return false;
  }
  frame.index = new Set(names.slice(frame.first));
  return frame.index.has(name);
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
function pointerOf(stack: Frame[], names: string[]): string {
  return stack
    .slice(0, -1)
    .map((frame, depth) => {
      if (frame.kind === "array") return `/${frame.index}`;
      // The member being read is this object's last name: the one before the names of the
      // next object down the stack (arrays hold no names).
      const deeper = stack.slice(depth + 1).find((f): f is ObjectFrame => f.kind === "object");
      const last = names[(deeper ? deeper.first : names.length) - 1]!;
      return `/${last.replace(/~/g, "~0").replace(/\//g, "~1")}`;
    })
    .join("");
}
