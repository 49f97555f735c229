import fc from "fast-check";

/**
 * The fuzzers' source of choices: a seeded stream (splitmix32) that picks operations and
 * mutations and seeds the value generators (fast-check, json-schema-faker), so that one run seed
 * replays the same requests in the same order.
 */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** The next 32 random bits, as an unsigned integer. */
  next(): number {
    this.state = (this.state + 0x9e3779b9) >>> 0;
    let z = this.state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  }

  /** An integer in [0, max). */
  int(max: number): number {
    return Math.floor((this.next() / 2 ** 32) * max);
  }

  chance(probability: number): boolean {
    return this.next() / 2 ** 32 < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** One value of a fast-check arbitrary, reproducibly (fast-check's own bias toward edge cases applies). */
  draw<T>(arbitrary: fc.Arbitrary<T>): T {
    return fc.sample(arbitrary, { seed: this.next() | 0, numRuns: 1 })[0]!;
  }

  /** An independent stream for one request, so request `i` of a run does not depend on how many draws earlier ones made. */
  static forItem(runSeed: number, index: number): Rng {
    return new Rng(new Rng(runSeed ^ Math.imul(index + 1, 0x27d4eb2d)).next());
  }
}

/** Strings that break naive text handling: NUL, lone surrogates, bidi overrides, traversal, markup. */
export const nastyStrings = [
  "",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "\udfff\ud800",
  "x\ud83d",
  "\ufeff",
  "\u202e\u0644\u0627",
  "e\u0301\u0301\u0301",
  "💥🧨",
  "\r\n\r\n",
  "../../../../etc/passwd",
  "..%2F..%2F",
  "%00",
  "<script>alert(1)</script>",
  "' OR 1=1 --",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log4j-style lookup, as text on purpose.
  "${jndi:ldap://x}",
  "{{7*7}}",
  "null",
  "true",
  "-1",
  "1e309",
  "NaN",
  " ",
] as const;

/** Any text, weighted toward the nasty cases. */
export const anyText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...nastyStrings),
  fc.string({ unit: "binary", maxLength: 64 }),
  fc.string({ unit: "grapheme", maxLength: 64 }),
  fc.string({ maxLength: 64 }),
);

/** JSON values of every type, small. */
export const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  anyText,
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.integer(), { maxKeys: 3 }),
);
