/**
 * A value from an untrusted document, for a failure message: strings quoted (and cut short),
 * anything else by its kind. Never `JSON.stringify` of the value itself, which recurses and
 * overflows the stack on deeply nested arrays.
 */
export function quote(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
  if (value === null || typeof value === "number" || typeof value === "boolean") return String(value);
  return Array.isArray(value) ? "an array" : `a value of type ${typeof value}`;
}
