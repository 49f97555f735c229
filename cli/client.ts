import { type Command, InvalidArgumentError, Option } from "commander";
import {
  type ClientOptions,
  createClient,
  RateLimitError,
  type RetryNotice,
  type StampdClient,
} from "../sdk/src/index.js";

/** The server's defaults (server/config.ts: PORT 8080, GRPC_PORT 50051) on this machine. */
export const DEFAULT_URL = "http://127.0.0.1:8080";
const DEFAULT_GRPC_PORT = "50051";
/** Seconds one request may take, upload included: generous, since a document may be 1 GiB. */
const DEFAULT_TIMEOUT_SECONDS = 600;

/** The options of every command that talks to a server. */
export interface RemoteFlags {
  url: string;
  apiKey?: string;
  timeout: number;
  json?: boolean;
}

/**
 * A server address: `localhost:8080` or `10.0.0.5` without a scheme is taken as http (as curl
 * does); only http and https are accepted.
 */
export function baseUrl(value: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new InvalidArgumentError("expected an address such as http://localhost:8080");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new InvalidArgumentError(`unsupported scheme ${url.protocol} (http or https)`);
  return withScheme;
}

export function positiveInteger(value: string): number {
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number <= 0)
    throw new InvalidArgumentError("expected a whole number > 0");
  return number;
}

/**
 * Adds `--url`, `--api-key`, `--timeout` and `--json`. The key's option shows no default, so help
 * never prints a key taken from the environment.
 */
export function withRemoteOptions(command: Command): Command {
  return command
    .addOption(
      new Option("--url <base-url>", "REST address of the server (no scheme: http)")
        .env("STAMPD_URL")
        .argParser(baseUrl)
        .default(DEFAULT_URL),
    )
    .addOption(new Option("--api-key <key>", "API key (svc_live_… or svc_test_…)").env("STAMPD_API_KEY"))
    .addOption(
      new Option("--timeout <seconds>", "seconds one request may take, upload included")
        .argParser(positiveInteger)
        .default(DEFAULT_TIMEOUT_SECONDS),
    )
    .option("--json", "print the API's response as JSON on stdout, and nothing else there");
}

/**
 * The gRPC address of the server at `url` (`--url`, `STAMPD_URL`) when none is given: the same
 * host and scheme on the server's default gRPC port, so one variable points every command at a
 * deployment that keeps the default ports.
 */
export function grpcUrlOf(url: string): string {
  const grpc = new URL(url);
  grpc.port = DEFAULT_GRPC_PORT;
  return grpc.origin;
}

/**
 * The SDK client for the flags; `fetch` counts upload bytes when a progress bar is shown,
 * `WebSocket` lets `stamps.waitFor` follow events instead of polling (Node 20 has no global one).
 * Every wait between two attempts is said on stderr (`waitLine`): no limit is waited out in silence.
 */
export function clientFor(
  flags: RemoteFlags,
  extra: { fetch?: typeof globalThis.fetch; grpcUrl?: string; WebSocket?: ClientOptions["WebSocket"] } = {},
): StampdClient {
  return createClient({
    baseUrl: flags.url,
    apiKey: flags.apiKey,
    timeout: flags.timeout * 1000,
    onRetry: (notice) => console.error(waitLine(notice)),
    ...extra,
  });
}

/**
 * The line a wait gets: `stampd: rate limited (anonymous tier): waiting 4 s; a key raises the
 * limit`, or for a server error or a lost connection `stampd: <what> : retrying in 2 s`.
 */
export function waitLine({ error, delayMs }: RetryNotice): string {
  const seconds = `${Math.ceil(delayMs / 1000)} s`;
  if (error instanceof RateLimitError) {
    const tier = error.tier ?? "unknown";
    const hint = tier === "anonymous" ? "; a key raises the limit (--api-key, STAMPD_API_KEY)" : "";
    return `stampd: rate limited (${tier} tier): waiting ${seconds}${hint}`;
  }
  const what = error.status === undefined ? "cannot reach the server" : `the server answered ${error.status}`;
  return `stampd: ${what}: retrying in ${seconds}`;
}

/** Prints `value` as JSON with `--json`, else the human text. */
export function print(flags: { json?: boolean }, value: unknown, human: () => string): void {
  console.log(flags.json ? JSON.stringify(value, null, 2) : human());
}
