import type Database from "better-sqlite3";
import type {
  KeyRingRepository,
  Revocation,
  RingKeyKind,
  StoredRingKey,
} from "../../keys/key-ring-repository.js";
import {
  type RingKeyRow,
  ringKeyColumns,
  ringKeyOf,
  ringKeyParams,
  ringOrder,
} from "../rows/key-ring-rows.js";
import { sqliteEncoding } from "../rows/values.js";
import { preparedOnFirstUse } from "./statements.js";

/** The key ring in SQLite; statements are prepared on first use (after migrate()). */
export class SqliteKeyRingRepository implements KeyRingRepository {
  private readonly sql: () => ReturnType<typeof prepare>;
  private readonly rotateAtOnce: (next: StoredRingKey, retiredUntil: Date) => StoredRingKey | undefined;

  constructor(db: Database.Database) {
    this.sql = preparedOnFirstUse(db, prepare);
    this.rotateAtOnce = db.transaction((next: StoredRingKey, retiredUntil: Date) => {
      const active = this.sql().active.get(next.kind) as RingKeyRow | undefined;
      if (active) this.sql().retire.run(sqliteEncoding.date(retiredUntil), active.kind, active.key_id);
      this.sql().insert.run(ringKeyParams(next, sqliteEncoding));
      return active && { ...ringKeyOf(active), state: "retired" as const, notAfter: retiredUntil };
    });
  }

  async list(): Promise<StoredRingKey[]> {
    return (this.sql().list.all() as RingKeyRow[]).map(ringKeyOf);
  }

  async register(key: StoredRingKey): Promise<boolean> {
    return this.sql().insert.run(ringKeyParams(key, sqliteEncoding)).changes === 1;
  }

  async rotate(next: StoredRingKey, retiredUntil: Date): Promise<StoredRingKey | undefined> {
    return this.rotateAtOnce(next, retiredUntil);
  }

  async revoke(kind: RingKeyKind, keyId: string, revocation: Revocation): Promise<boolean> {
    const at = sqliteEncoding.date(revocation.at);
    return this.sql().revoke.run(at, revocation.reason, kind, keyId).changes === 1;
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
    active: db.prepare("SELECT * FROM key_ring WHERE kind = ? AND state = 'active'"),
    retire: db.prepare("UPDATE key_ring SET state = 'retired', not_after = ? WHERE kind = ? AND key_id = ?"),
    revoke: db.prepare(
      `UPDATE key_ring SET state = 'revoked', revoked_at = ?, revocation_reason = ?
       WHERE kind = ? AND key_id = ? AND state <> 'active'`,
    ),
    seal: db.prepare(
      "UPDATE key_ring SET sealed_private_key = ? WHERE kind = ? AND key_id = ? AND sealed_private_key IS NULL",
    ),
    check: db.prepare("SELECT value FROM key_checks WHERE name = ?"),
    saveCheck: db.prepare("INSERT OR IGNORE INTO key_checks (name, value) VALUES (?, ?)"),
  };
}
