import pg from "pg";
import type { Store } from "../store.js";
import { StoreAvailability } from "../store-availability.js";
import { DatabaseClock } from "./database-clock.js";
import { migrate } from "./migrate.js";
import { PostgresAnchorRepository } from "./postgres-anchor-repository.js";
import { PostgresAuthRepository } from "./postgres-auth-repository.js";
import { PostgresIdempotencyRepository } from "./postgres-idempotency-repository.js";
import { PostgresIdentityRepository } from "./postgres-identity-repository.js";
import { PostgresKeyRingRepository } from "./postgres-key-ring-repository.js";
import { PostgresLogRepository } from "./postgres-log-repository.js";
import { PostgresLogTileRepository } from "./postgres-log-tile-repository.js";
import { PostgresProofRepository } from "./postgres-proof-repository.js";
import { PostgresStampRepository } from "./postgres-stamp-repository.js";
import { PostgresVaultRepository } from "./postgres-vault-repository.js";

/**
 * The scale-out store: one PostgreSQL database shared by every instance, through a `pg` connection
 * pool. `DATABASE_URL` is a libpq-style URL; its `options` parameter may set the schema
 * (`?options=-c%20search_path%3Dstampd`), so several deployments can share one database.
 */
export class PostgresStore implements Store {
  readonly kind = "postgres" as const;
  readonly pool: pg.Pool;
  readonly auth: PostgresAuthRepository;
  readonly stamps: PostgresStampRepository;
  readonly identities: PostgresIdentityRepository;
  readonly vaults: PostgresVaultRepository;
  readonly idempotency: PostgresIdempotencyRepository;
  readonly proofs: PostgresProofRepository;
  readonly log: PostgresLogRepository;
  readonly logTiles: PostgresLogTileRepository;
  readonly anchors: PostgresAnchorRepository;
  readonly keyRing: PostgresKeyRingRepository;
  readonly availability = new StoreAvailability();
  private databaseClock: DatabaseClock | undefined;

  constructor(url: string) {
    this.pool = new pg.Pool({ connectionString: url });
    // An idle connection the server drops emits here; without a listener it would crash the
    // process. The pool replaces it, and the next query on it reports any lasting outage.
    this.pool.on("error", () => {});
    this.auth = new PostgresAuthRepository(this.pool);
    this.stamps = new PostgresStampRepository(this.pool);
    this.identities = new PostgresIdentityRepository(this.pool);
    this.vaults = new PostgresVaultRepository(this.pool);
    this.idempotency = new PostgresIdempotencyRepository(this.pool);
    this.proofs = new PostgresProofRepository(this.pool);
    this.log = new PostgresLogRepository(this.pool);
    this.logTiles = new PostgresLogTileRepository(this.pool);
    this.anchors = new PostgresAnchorRepository(this.pool);
    this.keyRing = new PostgresKeyRingRepository(this.pool);
  }

  /** The database's clock (see DatabaseClock); set by migrate(), which every start runs first. */
  get clock(): DatabaseClock | undefined {
    return this.databaseClock;
  }

  async migrate(): Promise<void> {
    await migrate(this.pool);
    this.databaseClock ??= await DatabaseClock.start(this.pool);
  }

  async ping(): Promise<void> {
    await this.pool.query("SELECT 1");
  }

  async close(): Promise<void> {
    await this.stamps.writes.drain();
    this.databaseClock?.stop();
    if (!this.pool.ending) await this.pool.end();
  }
}
