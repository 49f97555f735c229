const NEWLINE = 0x0a;
const SPACE = 0x20;
const TAB = 0x09;
const CR = 0x0d;
const FORM_FEED = 0x0c;
const HASH = 0x23;
const MAX_HEADING_LEVEL = 6;

const isLineSpace = (b: number) => b === SPACE || b === TAB || b === CR;

/**
 * Whether the bytes of the current line before `end` are all blanks (space, tab, CR). Reaching
 * the start of `bytes` without a newline defers to `blankBefore`, what came before them.
 */
export function blankSinceLineStart(bytes: Uint8Array, end: number, blankBefore: boolean): boolean {
  for (let i = end - 1; i >= 0; i--) {
    const b = bytes[i]!;
    if (b === NEWLINE) return true;
    if (!isLineSpace(b)) return false;
  }
  return blankBefore;
}

/**
 * Whether a section starts at line start `at`: a form feed, or an ATX heading (1 to 6 `#` then a
 * space, tab, CR, newline or the end of the document). Undefined while the bytes that decide it
 * have not arrived yet (only when not `final`).
 */
export function sectionStartsAt(bytes: Uint8Array, at: number, final: boolean): boolean | undefined {
  let i = at;
  if (i < bytes.length && bytes[i] === FORM_FEED) return true;
  while (i < bytes.length && bytes[i] === HASH && i - at < MAX_HEADING_LEVEL) i++;
  if (i === at) return i < bytes.length || final ? false : undefined;
  if (i === bytes.length) return final ? true : undefined;
  const b = bytes[i]!;
  return isLineSpace(b) || b === NEWLINE;
}

/**
 * Where to cut a window that reached `max` bytes without a paragraph break: after the last
 * sentence end (`.`, `!` or `?` followed by a space or newline), else after the last newline, else
 * after the last space, at `min` bytes or more; else at `max`.
 */
export function fallbackCut(bytes: Uint8Array, min: number, max: number): number {
  let line = 0;
  let space = 0;
  for (let at = max; at >= min; at--) {
    const last = bytes[at - 1]!;
    if (last === NEWLINE || last === SPACE) {
      const before = bytes[at - 2];
      if (before === 0x2e || before === 0x21 || before === 0x3f) return at;
      if (last === NEWLINE) line ||= at;
      else space ||= at;
    }
  }
  return line || space || max;
}
