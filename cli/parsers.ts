import { InvalidArgumentError } from "commander";
import { anchorTypes } from "../gen/openapi/enums.js";

/** Option value parsers: a bad value is a usage error (exit 2) before anything is sent. */

export function integerBetween(min: number, max: number): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (!Number.isInteger(number) || number < min || number > max)
      throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}`);
    return number;
  };
}

/** `log,rfc3161`: checked here against the spec's anchor types, sent as the API takes it. */
export function anchorList(value: string): string {
  const unknown = value
    .split(",")
    .map((type) => type.trim())
    .filter((type) => !(anchorTypes as readonly string[]).includes(type));
  if (unknown.length)
    throw new InvalidArgumentError(`unknown anchor type ${unknown.join(", ")} (${anchorTypes.join(", ")})`);
  return value;
}

const secondsPer: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** `90`, `90s`, `15m`, `12h`, `30d` as seconds. */
export function duration(value: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(value.trim());
  if (!match) throw new InvalidArgumentError("expected a duration such as 3600, 90m, 12h or 30d");
  return Number(match[1]) * secondsPer[match[2] || "s"]!;
}

/** Repeated `--metadata key=value` options collected into one object. */
export function keyValue(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const at = value.indexOf("=");
  if (at < 1) throw new InvalidArgumentError("expected key=value");
  return { ...previous, [value.slice(0, at)]: value.slice(at + 1) };
}

/** Repeated options collected into a list. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
