/**
 * The spellings of a boolean that form senders use: HTML checkboxes send `on`, Python's
 * `requests` sends `True`, shells and config files `1`, `yes`. Each is read case-insensitively as
 * the JSON boolean it means; anything else is left as sent, for the schema to refuse.
 */
const spellings: Record<string, "true" | "false"> = {
  true: "true",
  "1": "true",
  yes: "true",
  on: "true",
  false: "false",
  "0": "false",
  no: "false",
  off: "false",
};

/** `value` as `"true"` or `"false"` when it spells one, else unchanged. */
export function formBoolean(value: string): string {
  return spellings[value.toLowerCase()] ?? value;
}

/** Rewrites the named entries of `values` that spell a boolean, in place. */
export function normalizeBooleans(values: Record<string, unknown>, names: Iterable<string>): void {
  for (const name of names) {
    const value = values[name];
    if (typeof value === "string") values[name] = formBoolean(value);
  }
}
