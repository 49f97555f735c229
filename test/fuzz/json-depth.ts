/**
 * How deep objects and arrays nest in a parsed JSON value (the value itself is level 1; a scalar
 * is 0). Iterative: the fuzzers nest 100 000 levels, past what a recursive walk survives. The
 * fuzzers' own measure of the spec's nesting bounds, not the server's scanner.
 */
export function depthOf(value: unknown): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [node, level] = pending.pop()!;
    if (typeof node !== "object" || node === null) continue;
    deepest = Math.max(deepest, level);
    for (const child of Object.values(node)) pending.push([child, level + 1]);
  }
  return deepest;
}

/** The spec's bound on every JSON body and message (info.description, Conventions; Envelope). */
export const MAX_JSON_DEPTH = 64;
