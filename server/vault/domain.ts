import { type Config, ConfigError } from "../config.js";
import type { AppContext } from "../context.js";
import { ExplorerService } from "../explorer/explorer-service.js";
import type { Logger } from "../logger.js";
import type { VaultDeps } from "./deps.js";
import { devIssuerKeyPath } from "./fees/dev-issuer.js";
import { trustedIssuers } from "./fees/issuer-keys.js";
import { ReceiptChecker } from "./fees/receipt-check.js";
import { feeSchedule } from "./fees/schedule.js";
import { VaultScheduler } from "./scheduler.js";
import { VaultLocks } from "./vault-locks.js";
import { VaultService } from "./vault-service.js";

export interface VaultDomain {
  /** The vault's operations for transports. */
  service: VaultService;
  /** Expiry, deadline warnings and retention, on a timer. */
  scheduler: VaultScheduler;
  /** The public read-only view of every account's vaults (GET /explorer, the dashboard). */
  explorer: ExplorerService;
  /** What every vault operation works with. */
  deps: VaultDeps;
}

export type VaultPorts = Pick<AppContext, "config" | "logger" | "clock" | "store" | "events">;

/** Assembles the vault from configuration; refuses settings that would make it unusable. */
export function createVaultDomain({ config, logger, clock, store, events }: VaultPorts): VaultDomain {
  checkVaultConfig(config, logger);
  const fees = feeSchedule(config);
  const receipts = new ReceiptChecker(fees, trustedIssuers(config, logger), clock, config);
  const locks = new VaultLocks();
  const deps: VaultDeps = { settings: config, clock, repo: store.vaults, events, fees, receipts, locks };
  return {
    deps,
    service: new VaultService(deps),
    explorer: new ExplorerService(deps),
    scheduler: new VaultScheduler(
      deps,
      logger.child({ component: "vault-scheduler" }),
      config.VAULT_SCHEDULER_INTERVAL_MS,
    ),
  };
}

/**
 * Production must name who issues fee receipts and who receives the fees: without them no
 * heartbeat could be paid and every vault would expire. Elsewhere the development issuer stands in.
 */
function checkVaultConfig(config: Config, logger: Logger): void {
  if (config.VAULT_MIN_DEADLINE_SECONDS > config.VAULT_MAX_DEADLINE_SECONDS) {
    throw new ConfigError(
      "invalid configuration: VAULT_MIN_DEADLINE_SECONDS: must not exceed VAULT_MAX_DEADLINE_SECONDS",
    );
  }
  if (config.NODE_ENV === "production") {
    for (const name of ["FEE_ISSUER_PUBLIC_KEYS", "VAULT_FEE_RECIPIENT"] as const) {
      if (!config[name]?.length)
        throw new ConfigError(`invalid configuration: ${name}: required in production`);
    }
  } else if (!config.FEE_ISSUER_PUBLIC_KEYS?.length) {
    logger.warn(
      { keyFile: devIssuerKeyPath(config.DATA_DIR) },
      "fee receipts are checked against the DEVELOPMENT issuer key (anyone with this file can pay fees); set FEE_ISSUER_PUBLIC_KEYS in production",
    );
  }
}
