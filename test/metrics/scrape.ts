import { expect } from "vitest";

/** One sample of the exposition text: its name, labels and value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples and declared types of a Prometheus text exposition (format 0.0.4). */
export function parseExposition(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split("\n")) {
    const declared = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (declared) types.set(declared[1]!, declared[2]!);
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? "").matchAll(
      /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g,
    )) {
      labels[name!] = value!;
    }
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return { samples, types };
}

/** GET /metrics (or another URL answering the exposition), checked and parsed. */
export async function scrape(url: string): Promise<Metrics> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  const { samples, types } = parseExposition(await res.text());
  return new Metrics(samples, types);
}

export class Metrics {
  constructor(
    readonly samples: Sample[],
    /** Every declared metric (also those without samples yet) and its type. */
    readonly types: Map<string, string>,
  ) {}

  /** The sum of the samples named `name` whose labels include `labels` (0 when there is none). */
  value(name: string, labels: Record<string, string> = {}): number {
    return this.matching(name, labels).reduce((sum, s) => sum + s.value, 0);
  }

  matching(name: string, labels: Record<string, string> = {}): Sample[] {
    return this.samples.filter(
      (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
    );
  }
}
