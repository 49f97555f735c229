/**
 * Runs `measure` for every candidate over several rounds, flipping the order each round so drift in
 * the machine's load hits all alike. Returns each candidate's runs, in round order.
 */
export async function alternate<Name extends string, Run>(
  names: readonly Name[],
  count: number,
  measure: (name: Name) => Promise<Run>,
): Promise<Record<Name, Run[]>> {
  const runs = Object.fromEntries(names.map((n) => [n, [] as Run[]])) as Record<Name, Run[]>;
  for (let round = 0; round < count; round++) {
    const order = round % 2 ? [...names].reverse() : names;
    for (const name of order) runs[name].push(await measure(name));
  }
  return runs;
}

/** The highest value: the round least disturbed by other work on a shared machine. */
export function best(values: number[]): number {
  return Math.max(...values);
}

/** The lowest value (for times: the round least disturbed). */
export function least(values: number[]): number {
  return Math.min(...values);
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
