import type { AnchorRepository } from "../anchors/anchor-repository.js";
import type { AuthRepository } from "../auth/auth-repository.js";
import type { Clock } from "../clock.js";
import type { IdempotencyRepository } from "../idempotency/idempotency-repository.js";
import type { IdentityRepository } from "../identities/identity-repository.js";
import type { KeyRingRepository } from "../keys/key-ring-repository.js";
import type { LogRepository } from "../log/log-repository.js";
import type { LogTileRepository } from "../log/log-tile-repository.js";
import type { ProofRepository } from "../proofs/proof-repository.js";
import type { StampLogRepository } from "../sigstore/stamp-log-repository.js";
import type { StampRepository } from "../stamps/stamp-repository.js";
import type { VaultRepository } from "../vault/vault-repository.js";
import type { StoreAvailability } from "./store-availability.js";

/**
 * The storage interface every domain uses. Two implementations pass one shared test suite:
 * SQLite (the embedded default, `sqlite/`) and PostgreSQL (scale-out). Each domain adds its
 * repository to this interface; methods are async so both engines fit behind it.
 */
export interface Store {
  readonly kind: "sqlite" | "postgres";
  /** Applies pending schema migrations; safe to call on every start. */
  migrate(): Promise<void>;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** What of the store does not answer now, and its recovery (readiness reads it). */
  readonly availability: StoreAvailability;
  /**
   * The database's clock, for stores whose database keeps one every instance shares (PostgreSQL);
   * set by migrate(). Absent: the process clock is the deployment's clock (SQLite).
   */
  readonly clock?: Clock;
  /** Accounts and API keys. */
  readonly auth: AuthRepository;
  /** Stamps (hashes and signed stamp documents, never content). */
  readonly stamps: StampRepository;
  /** Signing identities, private keys sealed at rest. */
  readonly identities: IdentityRepository;
  /** Vaults, heartbeat groups, consumed fee receipts and retrieval proofs. */
  readonly vaults: VaultRepository;
  /** Idempotency-Key records of any operation that declares the header. */
  readonly idempotency: IdempotencyRepository;
  /** Merkle batches of stamps and each stamp's leaf proof. */
  readonly proofs: ProofRepository;
  /** The transparency log over batch roots and its signed checkpoints. */
  readonly log: LogRepository;
  /** The log as C2SP tiles: the files of the tiled log by path. */
  readonly logTiles: LogTileRepository;
  /** The stamp log: the `hashedrekord` entries of Sigstore bundles and their checkpoints. */
  readonly stampLog: StampLogRepository;
  /** The stamp log as C2SP tiles. */
  readonly stampLogTiles: LogTileRepository;
  /** Anchor records of batches (log, rfc3161, bitcoin, ethereum). */
  readonly anchors: AnchorRepository;
  /** The deployment's key ring and the at-rest key's check value (server/keys/key-ring.ts). */
  readonly keyRing: KeyRingRepository;
}
