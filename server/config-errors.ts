import { z } from "zod";

/**
 * One line per bad variable, naming it and the values it accepts. zod's own wording ("expected
 * number, received NaN", "Too big") says neither the range nor, for lists, which variable; the
 * range is read off the schema itself, so a new setting gets a clear message without writing one.
 */
export function configErrorLines(
  shape: Record<string, z.ZodType>,
  issues: readonly z.core.$ZodIssue[],
): string[] {
  const first = new Map<string, z.core.$ZodIssue>();
  for (const issue of issues) {
    const name = String(issue.path[0]);
    if (!first.has(name)) first.set(name, issue);
  }
  return [...first].map(
    ([name, issue]) => `invalid configuration: ${name}: ${expectation(shape[name], issue)}`,
  );
}

function expectation(schema: z.ZodType | undefined, issue: z.core.$ZodIssue): string {
  // A custom check (a refinement across settings) already says what it expects.
  if (issue.code === "custom") return issue.message;
  const inner = schema && unwrap(schema);
  if (inner instanceof z.ZodNumber) return numberRange(inner);
  const each = issue.path.length > 1 ? "each entry " : "";
  if (issue.code === "invalid_value") return `${each}must be one of ${issue.values.map(String).join(", ")}`;
  if (issue.code === "invalid_format" && issue.format === "url") {
    return `${each}must be an absolute URL such as https://example.com`;
  }
  return issue.message;
}

/** The schema under `.default()` and `.optional()`. */
function unwrap(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodDefault || schema instanceof z.ZodOptional)
    return unwrap(schema.unwrap() as z.ZodType);
  return schema;
}

function numberRange(schema: z.ZodNumber): string {
  const min = schema.minValue ?? Number.MIN_SAFE_INTEGER;
  const max = schema.maxValue ?? Number.MAX_SAFE_INTEGER;
  const kind = schema.isInt ? "a whole number" : "a number";
  if (max === Number.MAX_SAFE_INTEGER) return `must be ${kind} of at least ${min}`;
  return `must be ${kind} from ${min} to ${max}`;
}
