import type { Command } from "commander";
import { configSchema, loadConfig } from "../../server/config.js";

/** Settings whose values are secret; `stampd config` prints them masked. */
const secretNames = /KEY|SECRET|PASSWORD|TOKEN/;

/** Masks a URL's password, keeping the rest readable for an operator checking where it points. */
function maskUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.password) url.password = "****";
    return url.toString();
  } catch {
    return value;
  }
}

export function maskedConfig(env: Record<string, string | undefined> = process.env): Record<string, unknown> {
  const config = loadConfig(env) as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(configSchema.shape).map((name) => {
      const value = config[name];
      if (value === undefined) return [name, null];
      if (secretNames.test(name)) return [name, "****"];
      if (typeof value === "string" && name.endsWith("_URL")) return [name, maskUrl(value)];
      return [name, value];
    }),
  );
}

export function registerConfig(program: Command): void {
  program
    .command("config")
    .description("print the effective configuration (from the environment and defaults), secrets masked")
    .action(() => {
      console.log(JSON.stringify(maskedConfig(), null, 2));
    });
}
