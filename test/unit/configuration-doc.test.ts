import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { configSchema, loadConfig } from "../../server/config.js";

// docs/configuration.md is where operators look up a setting: it must name every variable the
// schema reads, no variable the schema dropped, and each default as the schema has it.
const rows = new Map(
  readFileSync(new URL("../../docs/configuration.md", import.meta.url), "utf8")
    .split("\n")
    .map((line) => /^\| `([A-Z0-9_]+)` \|([^|]*)\|/.exec(line))
    .filter((match) => match !== null)
    .map((match) => [String(match[1]), String(match[2])] as const),
);
const names = Object.keys(configSchema.shape);
const defaults = loadConfig({}) as Record<string, unknown>;

/** A default as the table writes it: lists comma-separated, an empty proxy list as `none`. */
function written(value: unknown): string {
  if (Array.isArray(value)) return value.length === 0 ? "none" : value.join(",");
  return String(value);
}

describe("docs/configuration.md", () => {
  it.each(names)("has a row for %s", (name) => expect(rows.has(name)).toBe(true));

  it("has no row for a variable the server does not read", () => {
    expect([...rows.keys()].filter((name) => !names.includes(name))).toEqual([]);
  });

  it.each(names.filter((name) => defaults[name] !== undefined))("gives the default of %s", (name) => {
    expect(rows.get(name)).toContain(`\`${written(defaults[name])}\``);
  });
});
