import { pino } from "pino";
import type { Logger } from "../server/logger.js";

/**
 * A logger for the server modules a CLI command runs (key files, stores): each entry becomes one
 * human line on stderr, `stampd: created a new key file (./data/keys/…)`, instead of a JSON log
 * line; stdout stays for the command's output.
 */
export function cliLogger(level: string): Logger {
  return pino(
    { level, base: undefined, timestamp: false },
    {
      write(line: string) {
        const { msg, file } = JSON.parse(line) as { msg?: string; file?: string };
        process.stderr.write(`stampd: ${msg ?? ""}${file ? ` (${file})` : ""}\n`);
      },
    },
  );
}
