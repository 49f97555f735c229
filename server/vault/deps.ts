import type { Clock } from "../clock.js";
import type { Config } from "../config.js";
import type { EventBus } from "../events/bus.js";
import type { ReceiptChecker } from "./fees/receipt-check.js";
import type { FeeSchedule } from "./fees/schedule.js";
import type { VaultLocks } from "./vault-locks.js";
import type { VaultRepository } from "./vault-repository.js";

export type VaultSettings = Pick<
  Config,
  | "MAX_BATCH_HEARTBEAT"
  | "MAX_PAGE_SIZE"
  | "VAULT_MIN_DEADLINE_SECONDS"
  | "VAULT_MAX_DEADLINE_SECONDS"
  | "VAULT_WARNING_LEAD_SECONDS"
  | "VAULT_RETENTION_SECONDS"
>;

/** What every vault operation works with; assembled once by createVaultDomain(). */
export interface VaultDeps {
  settings: VaultSettings;
  clock: Clock;
  repo: VaultRepository;
  events: EventBus;
  fees: FeeSchedule;
  receipts: ReceiptChecker;
  /** Per-vault turns for this process's heartbeats (vault-locks.ts). */
  locks: VaultLocks;
}
