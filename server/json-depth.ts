/**
 * Whether objects and arrays in a parsed JSON value nest deeper than `max` levels (`value` itself
 * is level 1). Iterative, so a hostile nesting is measured without exhausting the stack; callers
 * check it before anything walks the value recursively (JSON.stringify, schema validators).
 */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop()!;
    if (typeof node !== "object" || node === null) continue;
    if (depth > max) return true;
    for (const child of Object.values(node)) pending.push([child, depth + 1]);
  }
  return false;
}
