import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config.js";
import { defaultKeyFiles, runKeyCommand } from "../keys/service-keys.js";

/** A key file as a backup stores it: its name in `keys/`, its bytes and where it came from. */
export interface KeyFile {
  name: string;
  content: Buffer;
  /** Set when the key did not come from DATA_DIR/keys/ (a configured file or variable). */
  source?: string;
}

type KeyConfig = Pick<Config, "DATA_DIR" | "SERVICE_SIGNING_KEY_FILE" | "AT_REST_KEY_FILE" | "AT_REST_KEY"> &
  Partial<Pick<Config, "AT_REST_KEY_COMMAND" | "AT_REST_KEY_COMMAND_TIMEOUT_SECONDS">>;

/**
 * The keys the server uses: every file of DATA_DIR/keys/ (signing, at-rest, TSA, development fee
 * issuer), with the keys the configuration names elsewhere taking the place of the default files,
 * as they do in the server (server/keys/service-keys.ts). So a restored data folder runs with the
 * same keys without those settings.
 */
export function collectKeyFiles(config: KeyConfig): KeyFile[] {
  const dir = join(config.DATA_DIR, "keys");
  const files = new Map<string, KeyFile>(
    regularFiles(dir).map((name) => [name, { name, content: readFileSync(join(dir, name)) }]),
  );
  const put = (name: string, content: Buffer, source: string) => files.set(name, { name, content, source });
  if (config.SERVICE_SIGNING_KEY_FILE) {
    const path = config.SERVICE_SIGNING_KEY_FILE;
    put(defaultKeyFiles.signing, readConfigured(path), `SERVICE_SIGNING_KEY_FILE=${path}`);
  }
  if (config.AT_REST_KEY_FILE) {
    const path = config.AT_REST_KEY_FILE;
    put(defaultKeyFiles.atRest, readConfigured(path), `AT_REST_KEY_FILE=${path}`);
  } else if (config.AT_REST_KEY) {
    put(defaultKeyFiles.atRest, Buffer.from(`${config.AT_REST_KEY}\n`), "AT_REST_KEY");
  } else if (config.AT_REST_KEY_COMMAND) {
    // Run as the server runs it: without the key the ring's sealed keys cannot be opened.
    const key = runKeyCommand(config.AT_REST_KEY_COMMAND, config.AT_REST_KEY_COMMAND_TIMEOUT_SECONDS ?? 30);
    put(defaultKeyFiles.atRest, Buffer.from(`${key.trim()}\n`), "AT_REST_KEY_COMMAND");
  }
  return [...files.values()].sort((a, b) => a.name.localeCompare(b.name));
}

function regularFiles(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
}

function readConfigured(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new Error(`cannot read the key file ${path}: ${(err as Error).message}`);
  }
}
