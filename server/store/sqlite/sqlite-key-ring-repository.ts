import type Database from "better-sqlite3";
import type {
  KeyRingRepository,
  RingClock,
  RingKeyKind,
  SigningStates,
  StoredRingKey,
} from "../../keys/key-ring-repository.js";
import { type RingChanges, type RingPlan, ringChangesOn } from "../../keys/ring-changes.js";
import {
  type RingKeyRow,
  ringKeyColumns,
  ringKeyOf,
  ringKeyParams,
  ringOrder,
  type SigningStateRow,
  signingStateColumns,
  signingStateOf,
} from "../rows/key-ring-rows.js";
import { sqliteEncoding } from "../rows/values.js";
import { preparedOnFirstUse } from "./statements.js";

/** The key ring in SQLite; statements are prepared on first use (after migrate()). */
export class SqliteKeyRingRepository implements KeyRingRepository {
  private readonly sql: () => ReturnType<typeof prepare>;
  private readonly changeAtOnce: Database.Transaction<
    (now: RingClock, plan: RingPlan) => { ring: StoredRingKey[]; changes?: RingChanges; at: Date }
  >;

  constructor(db: Database.Database) {
    this.sql = preparedOnFirstUse(db, prepare);
    // Run IMMEDIATE: the write lock is held from BEGIN, so the time is read after every stamp
    // commit before it; a signer's read after its own commit either sees the change or began
    // before it (server/keys/key-ring.ts, `vouches`).
    this.changeAtOnce = db.transaction((now: RingClock, plan: RingPlan) => {
      const at = now();
      const ring = (this.sql().list.all() as RingKeyRow[]).map(ringKeyOf);
      const changes = plan(ring, at);
      for (const r of changes?.retire ?? [])
        this.sql().retire.run(sqliteEncoding.date(r.notAfter), r.kind, r.keyId);
      for (const key of changes?.add ?? []) this.sql().insert.run(ringKeyParams(key, sqliteEncoding));
      for (const r of changes?.revoke ?? []) {
        this.sql().revoke.run(sqliteEncoding.date(r.revokedAt), r.reason, r.kind, r.keyId);
      }
      return { ring, changes, at };
    });
    ({ rotate: this.rotate, revoke: this.revoke } = ringChangesOn(async (now, plan) =>
      this.changeAtOnce.immediate(now, plan),
    ));
  }

  async list(): Promise<StoredRingKey[]> {
    return (this.sql().list.all() as RingKeyRow[]).map(ringKeyOf);
  }

  async register(key: StoredRingKey): Promise<boolean> {
    return this.sql().insert.run(ringKeyParams(key, sqliteEncoding)).changes === 1;
  }

  readonly rotate: KeyRingRepository["rotate"];
  readonly revoke: KeyRingRepository["revoke"];

  async signingStates(): Promise<SigningStates> {
    return { keys: (this.sql().signingStates.all() as SigningStateRow[]).map(signingStateOf) };
  }

  async sealPrivateKey(kind: RingKeyKind, keyId: string, sealed: Buffer): Promise<boolean> {
    return this.sql().seal.run(sealed, kind, keyId).changes === 1;
  }

  async check(name: string): Promise<Buffer | undefined> {
    return (this.sql().check.get(name) as { value: Buffer } | undefined)?.value;
  }

  async saveCheck(name: string, value: Buffer): Promise<void> {
    this.sql().saveCheck.run(name, value);
  }
}

function prepare(db: Database.Database) {
  return {
    list: db.prepare(`SELECT * FROM key_ring ${ringOrder}`),
    // OR IGNORE: a second active key of a kind (another instance registered first) inserts nothing.
    insert: db.prepare(
      `INSERT OR IGNORE INTO key_ring (${ringKeyColumns})
       VALUES (@kind, @key_id, @public_key, @origin, @sealed_private_key, @not_before, @not_after, @state,
               @revoked_at, @revocation_reason)`,
    ),
    signingStates: db.prepare(`SELECT ${signingStateColumns} FROM key_ring WHERE kind <> 'tsa'`),
    retire: db.prepare("UPDATE key_ring SET state = 'retired', not_after = ? WHERE kind = ? AND key_id = ?"),
    revoke: db.prepare(
      `UPDATE key_ring SET state = 'revoked', revoked_at = ?, revocation_reason = ?
       WHERE kind = ? AND key_id = ?`,
    ),
    seal: db.prepare(
      "UPDATE key_ring SET sealed_private_key = ? WHERE kind = ? AND key_id = ? AND sealed_private_key IS NULL",
    ),
    check: db.prepare("SELECT value FROM key_checks WHERE name = ?"),
    saveCheck: db.prepare("INSERT OR IGNORE INTO key_checks (name, value) VALUES (?, ?)"),
  };
}
