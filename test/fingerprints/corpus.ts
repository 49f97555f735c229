import fc from "fast-check";
import { createFingerprinter } from "../../server/fingerprints/fingerprinter.js";
import type { DecompositionMethod, FingerprintDocument } from "../../server/fingerprints/types.js";

export const METHODS: DecompositionMethod[] = ["hierarchical", "flat", "content_addressed", "semantic"];

/** Fingerprints `bytes` fed in pieces that end at `splits` (offsets, any order), or in one piece. */
export function fingerprint(
  bytes: Uint8Array,
  method: DecompositionMethod,
  splits: number[] = [],
): FingerprintDocument {
  const fp = createFingerprinter(method);
  const cuts = [...new Set(splits.map((s) => Math.min(s, bytes.length)))].sort((a, b) => a - b);
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    fp.update(bytes.subarray(at, cut));
    at = cut;
  }
  return fp.finish();
}

const WORDS = (
  "stamp proof chunk merkle record ledger shadow scale prime witness anchor archive river light paper " +
  "the of and to in is that for it as with was be by on not this are or from at which but have an they"
).split(" ");

/**
 * Deterministic prose of `size` bytes: words, sentences, paragraphs and now and then a Markdown
 * heading. Different seeds give unrelated texts over the same vocabulary.
 */
export function wordText(seed: number, size: number): Uint8Array {
  const out = Buffer.alloc(size);
  // xorshift32 needs a non-zero state; distinct seeds below 2^32 - 1 give distinct states.
  let state = ((seed >>> 0) % 0xffffffff) + 1;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
  let at = 0;
  while (at < size) {
    const roll = next() % 1000;
    let piece = WORDS[next() % WORDS.length]!;
    piece += roll < 70 ? ". " : roll < 75 ? ", " : " ";
    if (roll < 6) piece += "\n\n";
    if (roll < 1) piece += `## Part ${next() % 100}\n\n`;
    at += out.write(piece, at);
  }
  return new Uint8Array(out);
}

/** Text with structure: paragraphs, headings, lists, long lines, CRLF, form feeds. */
export const structuredText = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        "\n\n",
        "\n",
        "\r\n\r\n",
        "\n# Title\n",
        "\n## Section\n\n",
        "\n\f\n",
        "- item\n",
        ". ",
        "? ",
        "#",
      ),
      fc.constantFrom(...WORDS).map((w) => `${w} `),
      fc.string({ minLength: 0, maxLength: 40 }),
    ),
    { maxLength: 3000 },
  )
  .map((parts) => new TextEncoder().encode(parts.join("")));

/** Any input: structured text, arbitrary bytes (often binary), or long runs of one byte. */
export const anyInput = fc.oneof(
  structuredText,
  fc.uint8Array({ maxLength: 60_000 }),
  fc
    .tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 100_000 }))
    .map(([b, n]) => new Uint8Array(n).fill(b)),
);

/** Split offsets for feeding an input of up to 100 000 bytes in pieces. */
export const splitsArb = fc.array(fc.integer({ min: 0, max: 100_000 }), { maxLength: 12 });
