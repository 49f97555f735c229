import type { Command } from "commander";
import { configSchema, loadConfig } from "../../server/config.js";

/**
 * Settings whose whole value is secret (AT_REST_KEY, any future *_SECRET, *_PASSWORD, *_TOKEN or
 * *_KEY), and commands that print one (AT_REST_KEY_COMMAND: its line may carry a token for the
 * secret manager). Paths of key files and public keys are not secrets: showing them tells the
 * operator which keys are in use.
 */
const secretNames = /(^|_)(KEY|SECRET|PASSWORD|TOKEN|KEY_COMMAND)$/;
/** Query parameters that carry credentials by convention (e.g. `?api_key=`, `?access_token=`). */
const secretParams = /key|secret|password|token|auth|sig/i;
/** An Ethereum JSON-RPC provider's URL carries its API key in the path (`…/v3/<key>`). */
const pathIsSecret = new Set(["ETHEREUM_RPC_URL"]);
const MASK = "****";

/** Masks a URL's credentials, keeping the rest readable for an operator checking where it points. */
function maskUrl(value: string, maskPath: boolean): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  if (url.password) url.password = MASK;
  if (maskPath && url.pathname !== "/") url.pathname = `/${MASK}`;
  for (const name of [...url.searchParams.keys()]) {
    if (secretParams.test(name)) url.searchParams.set(name, MASK);
  }
  return url.toString();
}

function mask(name: string, value: unknown): unknown {
  if (secretNames.test(name)) return MASK;
  if (typeof value === "string" && /^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    return maskUrl(value, pathIsSecret.has(name));
  }
  if (Array.isArray(value)) return value.map((item) => mask(name, item));
  return value;
}

export function maskedConfig(env: Record<string, string | undefined> = process.env): Record<string, unknown> {
  const config = loadConfig(env) as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(configSchema.shape).map((name) => {
      const value = config[name];
      return [name, value === undefined ? null : mask(name, value)];
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
