import { pino } from "pino";
import type { Config } from "./config.js";

export type Logger = pino.Logger;

/** Secrets never reach the log: these paths are censored wherever they appear. */
const redact = [
  "req.headers.authorization",
  'req.headers["x-api-key"]',
  "encrypted_key",
  "*.encrypted_key",
  "fee_receipt",
  "*.fee_receipt",
  "proof_of_identity",
  "*.proof_of_identity",
];

export function createLogger(config: Pick<Config, "LOG_LEVEL">): Logger {
  return pino({ level: config.LOG_LEVEL, redact: { paths: redact, censor: "[redacted]" } });
}
