import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Logger } from "../logger.js";

/**
 * The content of a secret file, creating it with `create()` (mode 0600, folder 0700) when it does
 * not exist. Exclusive creation: of two processes starting at once, one writes and both read it.
 */
export function readOrCreateKeyFile(path: string, create: () => string, logger: Logger): string {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    writeFileSync(path, create(), { flag: "wx", mode: 0o600 });
    logger.info({ file: path }, "created a new key file");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  return readKeyFile(path, logger);
}

/** Reads an existing secret file, warning when others than its owner may read it. */
export function readKeyFile(path: string, logger: Logger): string {
  if ((statSync(path).mode & 0o077) !== 0) {
    logger.warn({ file: path }, "key file is accessible to group or others; chmod 600 it");
  }
  return readFileSync(path, "utf8");
}
