import type busboy from "busboy";

/**
 * What busboy's multipart parser is told of its body (the callback of streamsearch, whose contract
 * this follows): the bytes before a boundary (`data[start..end]`, possibly none) and whether a
 * boundary ends them. `isDataSafe` false: `data` is this search's own buffer, to be copied before
 * the next push.
 */
type OnData = (
  isMatch: boolean,
  data: Buffer | undefined,
  start: number,
  end: number,
  isDataSafe: boolean,
) => void;

/** The fields of streamsearch 1.1's search that busboy 1.6 creates, read to take its place. */
interface Streamsearch {
  _needle: Buffer;
  _cb: OnData;
  _lookbehind: Buffer;
  _lookbehindSize: number;
  matches: number;
}

/**
 * Busboy's boundary search, with Buffer.indexOf (native) in place of streamsearch's
 * Boyer-Moore-Horspool in JavaScript, which took 15-19 % of the server's time on a 1 GiB upload
 * (bench/README.md, "5. upload"). Busboy itself still parses everything else (part headers,
 * limits, errors), so its answers do not change. Leaves the parser as it is when busboy is not the
 * version this was written for.
 */
export function searchBoundaryNatively(parser: busboy.Busboy): void {
  const holder = parser as unknown as { _bparser?: unknown };
  if (isStreamsearch(holder._bparser)) holder._bparser = BoundarySearch.replacing(holder._bparser);
}

function isStreamsearch(value: unknown): value is Streamsearch {
  const s = value as Partial<Streamsearch> | undefined;
  return (
    Buffer.isBuffer(s?._needle) &&
    typeof s._cb === "function" &&
    Buffer.isBuffer(s._lookbehind) &&
    typeof s._lookbehindSize === "number" &&
    typeof s.matches === "number"
  );
}

/**
 * Finds a needle in a stream of chunks, as streamsearch does: the bytes between matches go to
 * `onData` as slices of the chunk pushed when they are in it, and the chunk's last bytes that
 * could start a match are held back (copied) until the next chunk decides.
 */
export class BoundarySearch {
  matches = 0;
  /** A proper prefix of the needle: the end of the last chunk, that may begin a match. */
  private readonly held: Buffer;
  private heldSize = 0;

  constructor(
    private readonly needle: Buffer,
    private readonly onData: OnData,
  ) {
    this.held = Buffer.allocUnsafe(needle.length);
  }

  /** Continues where a streamsearch search is (busboy pushes a CRLF into it as it is made). */
  static replacing(old: Streamsearch): BoundarySearch {
    const search = new BoundarySearch(old._needle, old._cb);
    search.matches = old.matches;
    search.heldSize = old._lookbehind.copy(search.held, 0, 0, old._lookbehindSize);
    return search;
  }

  push(chunk: Buffer, pos = 0): number {
    const end = chunk.length;
    if (this.heldSize > 0) pos = this.afterHeld(chunk, pos);
    const needleLength = this.needle.length;
    while (pos < end) {
      const at = chunk.indexOf(this.needle, pos);
      if (at === -1) break;
      this.matches++;
      // As streamsearch: a match at the very start of a chunk carries no data.
      if (at > 0) this.onData(true, chunk, pos, at, true);
      else this.onData(true, undefined, 0, 0, true);
      pos = at + needleLength;
    }
    if (pos < end) this.holdTail(chunk, pos);
    return end;
  }

  reset(): void {
    this.matches = 0;
    this.heldSize = 0;
  }

  /** The held bytes are data after all: the stream ended. */
  destroy(): void {
    if (this.heldSize > 0) this.onData(false, this.held, 0, this.heldSize, false);
    this.reset();
  }

  /**
   * Decides the held bytes with the new chunk: a match that starts in them (the earliest), or
   * a longer partial match held again, or data. Returns where the chunk's own search starts.
   */
  private afterHeld(chunk: Buffer, pos: number): number {
    const held = this.held;
    const heldSize = this.heldSize;
    const needle = this.needle;
    const available = chunk.length - pos;
    for (let from = 0; from < heldSize; from++) {
      const inHeld = heldSize - from;
      if (held.compare(needle, 0, inHeld, from, heldSize) !== 0) continue;
      const wanted = needle.length - inHeld;
      const seen = Math.min(wanted, available);
      if (chunk.compare(needle, inHeld, inHeld + seen, pos, pos + seen) !== 0) continue;
      if (seen === wanted) {
        this.heldSize = 0;
        this.matches++;
        if (from > 0) this.onData(true, held, 0, from, false);
        else this.onData(true, undefined, 0, 0, true);
        return pos + wanted;
      }
      // Still a prefix of the needle at the chunk's end: hold it, with the chunk, for the next.
      if (from > 0) this.onData(false, held, 0, from, false);
      held.copyWithin(0, from, heldSize);
      this.heldSize = inHeld + chunk.copy(held, inHeld, pos);
      return chunk.length;
    }
    this.heldSize = 0;
    this.onData(false, held, 0, heldSize, false);
    return pos;
  }

  /** Passes on the chunk from `pos`, holding back its end where it could begin a match. */
  private holdTail(chunk: Buffer, pos: number): void {
    const end = chunk.length;
    const needle = this.needle;
    let from = end;
    for (let at = chunk.indexOf(needle[0]!, Math.max(pos, end - needle.length + 1)); at !== -1; ) {
      if (chunk.compare(needle, 0, end - at, at, end) === 0) {
        from = at;
        break;
      }
      at = at + 1 < end ? chunk.indexOf(needle[0]!, at + 1) : -1;
    }
    if (from > pos) this.onData(false, chunk, pos, from, true);
    this.heldSize = chunk.copy(this.held, 0, from, end);
  }
}
