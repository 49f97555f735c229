import type { Store } from "../store.js";
import { StoreAvailability } from "../store-availability.js";
import { DatabaseClock } from "./database-clock.js";
import { GuardedPool, type PoolDeadlines } from "./guarded-pool.js";
import { migrate } from "./migrate.js";
import { PostgresAnchorRepository } from "./postgres-anchor-repository.js";
import { PostgresAuthRepository } from "./postgres-auth-repository.js";
import { PostgresIdempotencyRepository } from "./postgres-idempotency-repository.js";
import { PostgresIdentityRepository } from "./postgres-identity-repository.js";
import { PostgresKeyRingRepository } from "./postgres-key-ring-repository.js";
import { PostgresLogRepository } from "./postgres-log-repository.js";
import { PostgresLogTileRepository, stampLogTables } from "./postgres-log-tile-repository.js";
import { PostgresProofRepository } from "./postgres-proof-repository.js";
import { PostgresStampLogRepository } from "./postgres-stamp-log-repository.js";
import { PostgresStampRepository } from "./postgres-stamp-repository.js";
import { PostgresVaultRepository } from "./postgres-vault-repository.js";

/** STORE_TIMEOUT_MS and STORE_RETRY_AFTER_SECONDS's defaults (server/config.ts). */
const defaultDeadlines: PoolDeadlines = { timeoutMs: 5000, retryAfterSeconds: 2 };

/**
 * The scale-out store: one PostgreSQL database shared by every instance, through a `pg` connection
 * pool. `DATABASE_URL` is a libpq-style URL; its `options` parameter may set the schema
 * (`?options=-c%20search_path%3Dstampd`), so several deployments can share one database.
 */
export class PostgresStore implements Store {
  readonly kind = "postgres" as const;
  readonly pool: GuardedPool;
  readonly auth: PostgresAuthRepository;
  readonly stamps: PostgresStampRepository;
  readonly identities: PostgresIdentityRepository;
  readonly vaults: PostgresVaultRepository;
  readonly idempotency: PostgresIdempotencyRepository;
  readonly proofs: PostgresProofRepository;
  readonly log: PostgresLogRepository;
  readonly logTiles: PostgresLogTileRepository;
  readonly stampLog: PostgresStampLogRepository;
  readonly stampLogTiles: PostgresLogTileRepository;
  readonly anchors: PostgresAnchorRepository;
  readonly keyRing: PostgresKeyRingRepository;
  readonly availability = new StoreAvailability();
  private databaseClock: DatabaseClock | undefined;

  constructor(
    private readonly url: string,
    private readonly deadlines: PoolDeadlines = defaultDeadlines,
  ) {
    this.pool = new GuardedPool(url, this.availability, deadlines);
    this.auth = new PostgresAuthRepository(this.pool);
    this.stamps = new PostgresStampRepository(this.pool);
    this.identities = new PostgresIdentityRepository(this.pool);
    this.vaults = new PostgresVaultRepository(this.pool);
    this.idempotency = new PostgresIdempotencyRepository(this.pool);
    this.proofs = new PostgresProofRepository(this.pool);
    this.log = new PostgresLogRepository(this.pool);
    this.logTiles = new PostgresLogTileRepository(this.pool);
    this.stampLog = new PostgresStampLogRepository(this.pool);
    this.stampLogTiles = new PostgresLogTileRepository(this.pool, stampLogTables);
    this.anchors = new PostgresAnchorRepository(this.pool);
    this.keyRing = new PostgresKeyRingRepository(this.pool);
  }

  /** The database's clock (see DatabaseClock); set by migrate(), which every start runs first. */
  get clock(): DatabaseClock | undefined {
    return this.databaseClock;
  }

  async migrate(): Promise<void> {
    await migrate(this.url, this.deadlines.timeoutMs);
    this.databaseClock ??= await DatabaseClock.start(this.pool);
  }

  async ping(): Promise<void> {
    await this.pool.query("SELECT 1");
  }

  async close(): Promise<void> {
    await this.stamps.writes.drain();
    this.databaseClock?.stop();
    this.availability.stop();
    if (!this.pool.ending) await this.pool.end();
  }
}
