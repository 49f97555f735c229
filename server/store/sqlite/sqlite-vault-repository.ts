import type Database from "better-sqlite3";
import { decimal, formatDecimal, toMinorUnits } from "../../vault/fees/decimal.js";
import type { VaultState } from "../../vault/state.js";
import type {
  ClaimRequest,
  FeePayment,
  HeartbeatGroupRecord,
  RetrieveOutcome,
  UsedProof,
  VaultChange,
  VaultPage,
  VaultRecord,
  VaultRepository,
  VaultStats,
  WriteOutcome,
} from "../../vault/vault-repository.js";
import { sqliteEncoding } from "../rows/values.js";
import {
  feeTotalOf,
  outcomeOf,
  patchAssignments,
  Rollback,
  type VaultRow,
  vaultOf,
  vaultParams,
} from "../rows/vault-rows.js";
import { preparedOnFirstUse, StatementCache } from "./statements.js";

const selectVault = `SELECT v.*, g.interval_seconds AS group_interval
  FROM vaults v LEFT JOIN vault_groups g ON g.id = v.group_id`;

// A receipt recorded by its bare id, before ids were kept per issuer (FeePayment.legacyReceiptId).
const LEGACY_RECEIPT = "SELECT 1 FROM fee_receipts WHERE id = ?";

/**
 * Vaults in SQLite. One process writes (better-sqlite3 is synchronous), so a transaction or a
 * single UPDATE … RETURNING is atomic; writes are still conditional on `version` so that the
 * domain's read-check-write is safe against a concurrent instance on the same file.
 */
export class SqliteVaultRepository implements VaultRepository {
  private readonly sql: () => ReturnType<typeof prepare>;
  /** Statements whose text depends on the call (patches, claims). */
  private readonly dynamic: StatementCache<string>;

  constructor(private readonly db: Database.Database) {
    this.sql = preparedOnFirstUse(db, prepare);
    this.dynamic = new StatementCache(db, (text) => text);
  }

  async insert(
    vault: VaultRecord,
    encryptedKey: string,
    payment?: FeePayment,
  ): Promise<"applied" | "receipt_used"> {
    return this.transaction<"receipt_used">(() => {
      if (payment) this.recordPayment(payment);
      this.sql().insert.run(vaultParams(vault, encryptedKey, sqliteEncoding));
    });
  }

  async find(id: string): Promise<VaultRecord | undefined> {
    const row = this.sql().find.get(id) as VaultRow | undefined;
    return row && vaultOf(row);
  }

  async update(changes: VaultChange[], payment?: FeePayment): Promise<WriteOutcome> {
    const outcome = await this.transaction<"stale" | "receipt_used">(() => {
      if (payment) this.recordPayment(payment);
      for (const change of changes) this.applyChange(change);
    });
    if (outcome === "applied" && changes.some((c) => c.set.eraseKey)) this.eraseFromWal();
    return outcome;
  }

  async retrieve(change: VaultChange, proof: UsedProof): Promise<RetrieveOutcome> {
    let encryptedKey = "";
    const outcome = await this.transaction<"stale" | "proof_used">(() => {
      const fresh = this.sql().useProof.run(proof.digest, proof.expiresAt.toISOString()).changes === 1;
      if (!fresh) throw new Rollback("proof_used");
      this.applyChange(change);
      encryptedKey = (this.sql().readKey.get(change.id) as { encrypted_key: string }).encrypted_key;
    });
    return outcome === "applied" ? { outcome, encryptedKey } : { outcome };
  }

  async insertGroup(
    group: HeartbeatGroupRecord,
    members: { id: string; version: number }[],
  ): Promise<"applied" | "stale"> {
    return this.transaction<"stale">(() => {
      this.sql().insertGroup.run(
        group.id,
        group.accountId,
        group.name,
        group.interval,
        group.createdAt.toISOString(),
      );
      for (const m of members) {
        if (this.sql().joinGroup.run(group.id, m.id, m.version).changes !== 1) throw new Rollback("stale");
      }
    });
  }

  async list(filter: {
    accountId?: string;
    state?: VaultState;
    limit: number;
    offset: number;
  }): Promise<VaultPage> {
    const params = { account: filter.accountId ?? null, state: filter.state ?? null };
    const rows = this.sql().list.all({ ...params, limit: filter.limit, offset: filter.offset }) as VaultRow[];
    const { total } = this.sql().count.get(params) as { total: number };
    return { items: rows.map(vaultOf), total };
  }

  async stats(currency: string): Promise<VaultStats> {
    const counts = this.sql().stats.get() as Omit<VaultStats, "feesCollected">;
    return { ...counts, feesCollected: formatDecimal(this.feeTotal(currency)) };
  }

  async countByState(): Promise<Partial<Record<VaultState, number>>> {
    const rows = this.sql().countByState.all() as { state: VaultState; n: number }[];
    return Object.fromEntries(rows.map((r) => [r.state, r.n]));
  }

  async claimExpired(claim: ClaimRequest): Promise<VaultRecord[]> {
    return this.claim(
      `UPDATE vaults SET state = @to, released_at = deadline, version = version + 1
       WHERE id IN (SELECT id FROM vaults WHERE state IN (SELECT value FROM json_each(@from))
         AND deadline <= @now ${idFilter(claim)} ORDER BY deadline LIMIT @limit)`,
      claim,
    );
  }

  async claimRetentionBurns(claim: ClaimRequest & { releasedBefore: Date }): Promise<VaultRecord[]> {
    const burned = this.claim(
      `UPDATE vaults SET state = @to, encrypted_key = NULL, burned_at = @now,
         burn_reason = 'retention_expired', version = version + 1
       WHERE id IN (SELECT id FROM vaults WHERE state IN (SELECT value FROM json_each(@from))
         AND retrieved_at IS NULL AND released_at <= @releasedBefore ${idFilter(claim)}
         ORDER BY released_at LIMIT @limit)`,
      claim,
      { releasedBefore: claim.releasedBefore.toISOString() },
    );
    if (burned.length > 0) this.eraseFromWal();
    return burned;
  }

  async claimWarnings(claim: { now: Date; warnUntil: Date; limit: number }): Promise<VaultRecord[]> {
    return this.claim(
      `UPDATE vaults SET warned_deadline = deadline
       WHERE id IN (SELECT id FROM vaults WHERE state = 'active' AND deadline > @now
         AND deadline <= @warnUntil AND (warned_deadline IS NULL OR warned_deadline <> deadline)
         ORDER BY deadline LIMIT @limit)`,
      { now: claim.now, limit: claim.limit, from: [], to: "active" },
      { warnUntil: claim.warnUntil.toISOString() },
    );
  }

  async purgeProofs(now: Date): Promise<void> {
    this.sql().purgeProofs.run(now.toISOString());
  }

  /** Runs an UPDATE … WHERE id IN (…) and reads back the rows it changed, in one transaction. */
  private claim(update: string, claim: ClaimRequest, extra: Record<string, string> = {}): VaultRecord[] {
    return this.db.transaction(() => {
      const ids = this.dynamic
        .get(`${update} RETURNING id`)
        .all({
          from: JSON.stringify(claim.from),
          to: claim.to,
          now: claim.now.toISOString(),
          limit: claim.limit,
          ids: JSON.stringify(claim.ids ?? []),
          ...extra,
        })
        .map((r) => (r as { id: string }).id);
      return ids.map((id) => vaultOf(this.sql().find.get(id) as VaultRow));
    })();
  }

  private applyChange(change: VaultChange): void {
    const { sql, values } = patchAssignments(change.set, sqliteEncoding, () => "?");
    const result = this.dynamic
      .get(`UPDATE vaults SET ${sql} WHERE id = ? AND version = ?`)
      .run(...values, change.id, change.version);
    if (result.changes !== 1) throw new Rollback("stale");
  }

  private recordPayment(p: FeePayment): void {
    if (p.legacyReceiptId !== undefined && this.dynamic.get(LEGACY_RECEIPT).get(p.legacyReceiptId)) {
      throw new Rollback("receipt_used");
    }
    const used = this.sql().insertReceipt.run(
      p.receiptId,
      p.amount,
      p.currency,
      p.recipient,
      p.usedAt.toISOString(),
      p.usedFor,
    );
    if (used.changes !== 1) throw new Rollback("receipt_used");
    const total = this.feeTotal(p.currency).units + toMinorUnits(decimal(p.amount));
    this.sql().upsertTotal.run(p.currency, total.toString());
  }

  private feeTotal(currency: string) {
    const row = this.sql().feeTotal.get(currency) as { units: string } | undefined;
    return feeTotalOf(currency, row?.units);
  }

  /**
   * After a burn: secure_delete has zeroed the key's freed bytes in the pages, but the WAL still
   * holds earlier copies of those pages. A TRUNCATE checkpoint writes the pages back into the
   * database file and truncates the WAL to zero bytes. Should another process hold a read
   * transaction at that moment, SQLite cannot truncate; the next burn's checkpoint does it
   * (SECURITY.md, "Erasure").
   */
  private eraseFromWal(): void {
    this.db.pragma("wal_checkpoint(TRUNCATE)");
  }

  private transaction<O extends Rollback["outcome"]>(work: () => void): Promise<"applied" | O> {
    return outcomeOf(() => this.db.transaction(work)());
  }
}

function idFilter(claim: ClaimRequest): string {
  return claim.ids ? "AND id IN (SELECT value FROM json_each(@ids))" : "";
}

function prepare(db: Database.Database) {
  return {
    insert: db.prepare(
      `INSERT INTO vaults (id, account_id, state, encrypted_key, recipient_public_key, heartbeat_deadline,
         allow_manual_release, content_uris, metadata, created_at, deadline, heartbeat_count, version)
       VALUES (@id, @account_id, @state, @encrypted_key, @recipient_public_key, @heartbeat_deadline,
         @allow_manual_release, @content_uris, @metadata, @created_at, @deadline, @heartbeat_count, @version)`,
    ),
    find: db.prepare(`${selectVault} WHERE v.id = ?`),
    readKey: db.prepare("SELECT encrypted_key FROM vaults WHERE id = ?"),
    list: db.prepare(
      `${selectVault} WHERE (@account IS NULL OR v.account_id = @account) AND (@state IS NULL OR v.state = @state)
       ORDER BY v.created_at DESC, v.id DESC LIMIT @limit OFFSET @offset`,
    ),
    count: db.prepare(
      `SELECT count(*) AS total FROM vaults
       WHERE (@account IS NULL OR account_id = @account) AND (@state IS NULL OR state = @state)`,
    ),
    countByState: db.prepare("SELECT state, count(*) AS n FROM vaults GROUP BY state"),
    stats: db.prepare(
      `SELECT count(*) FILTER (WHERE state = 'active') AS active, count(*) AS total,
         coalesce(sum(heartbeat_count), 0) AS heartbeats,
         count(*) FILTER (WHERE released_at IS NOT NULL) AS releases,
         count(*) FILTER (WHERE state = 'burned') AS burns
       FROM vaults`,
    ),
    insertGroup: db.prepare(
      "INSERT INTO vault_groups (id, account_id, name, interval_seconds, created_at) VALUES (?, ?, ?, ?, ?)",
    ),
    joinGroup: db.prepare(
      "UPDATE vaults SET group_id = ?, version = version + 1 WHERE id = ? AND version = ? AND group_id IS NULL",
    ),
    insertReceipt: db.prepare(
      `INSERT INTO fee_receipts (id, amount, currency, recipient, used_at, used_for) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO NOTHING`,
    ),
    feeTotal: db.prepare("SELECT units FROM fee_totals WHERE currency = ?"),
    upsertTotal: db.prepare(
      "INSERT INTO fee_totals (currency, units) VALUES (?, ?) ON CONFLICT (currency) DO UPDATE SET units = excluded.units",
    ),
    useProof: db.prepare(
      "INSERT INTO vault_used_proofs (digest, expires_at) VALUES (?, ?) ON CONFLICT (digest) DO NOTHING",
    ),
    purgeProofs: db.prepare("DELETE FROM vault_used_proofs WHERE expires_at < ?"),
  };
}
