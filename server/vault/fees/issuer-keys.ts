import type { Config } from "../../config.js";
import type { Logger } from "../../logger.js";
import { devIssuer } from "./dev-issuer.js";

/** The public keys (`ed25519:<hex>`) whose receipts are accepted. */
export type TrustedIssuers = () => string[];

/**
 * FEE_ISSUER_PUBLIC_KEYS when set. Otherwise, outside production, the development issuer's key
 * from DATA_DIR/keys/ (created on first use); production refuses to start without the setting.
 */
export function trustedIssuers(
  config: Pick<Config, "FEE_ISSUER_PUBLIC_KEYS" | "NODE_ENV" | "DATA_DIR">,
  logger: Logger,
): TrustedIssuers {
  const configured = config.FEE_ISSUER_PUBLIC_KEYS ?? [];
  if (configured.length > 0 || config.NODE_ENV === "production") return () => configured;
  let dev: string[] | undefined;
  return () => {
    dev ??= [devIssuer(config.DATA_DIR, logger).publicKey];
    return dev;
  };
}
