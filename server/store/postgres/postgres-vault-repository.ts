import type pg from "pg";
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
import { postgresEncoding } from "../rows/values.js";
import {
  feeTotalOf,
  outcomeOf,
  patchAssignments,
  Rollback,
  type VaultRow,
  vaultOf,
  vaultParams,
} from "../rows/vault-rows.js";
import { transaction } from "./transaction.js";

/** Every column of a vault but its key, and its group's interval. */
const vaultColumns = `v.id, v.account_id, v.state, v.recipient_public_key, v.heartbeat_deadline,
  v.allow_manual_release, v.content_uris, v.metadata, v.created_at, v.deadline, v.last_heartbeat,
  v.heartbeat_count, v.group_id, v.released_at, v.release_reason, v.retrieved_at, v.burned_at,
  v.burn_reason, v.burn_note, v.version,
  (SELECT g.interval_seconds FROM vault_groups g WHERE g.id = v.group_id) AS group_interval`;

/**
 * Vaults in PostgreSQL, shared by every instance. Owner writes are conditional on `version` (a
 * concurrent writer of the same row makes the UPDATE wait, then match nothing: `stale`). Claims lock
 * the due rows with FOR UPDATE SKIP LOCKED, so concurrent schedulers split the work and never move
 * a vault twice.
 */
export class PostgresVaultRepository implements VaultRepository {
  constructor(private readonly pool: pg.Pool) {}

  async insert(
    vault: VaultRecord,
    encryptedKey: string,
    payment?: FeePayment,
  ): Promise<"applied" | "receipt_used"> {
    return this.transaction<"receipt_used">(async (client) => {
      if (payment) await recordPayment(client, payment);
      await client.query(
        `INSERT INTO vaults (id, account_id, state, encrypted_key, recipient_public_key, heartbeat_deadline,
           allow_manual_release, content_uris, metadata, created_at, deadline, heartbeat_count, version)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
        Object.values(vaultParams(vault, encryptedKey, postgresEncoding)),
      );
    });
  }

  async find(id: string): Promise<VaultRecord | undefined> {
    const { rows } = await this.pool.query<VaultRow>(`SELECT ${vaultColumns} FROM vaults v WHERE v.id = $1`, [
      id,
    ]);
    return rows[0] && vaultOf(rows[0]);
  }

  async update(changes: VaultChange[], payment?: FeePayment): Promise<WriteOutcome> {
    return this.transaction<"stale" | "receipt_used">(async (client) => {
      if (payment) await recordPayment(client, payment);
      // Rows locked in id order: two writers of overlapping sets cannot each hold what the other waits for.
      const byId = [...changes].sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
      for (const change of byId) await applyChange(client, change);
    });
  }

  async retrieve(change: VaultChange, proof: UsedProof): Promise<RetrieveOutcome> {
    let encryptedKey = "";
    const outcome = await this.transaction<"stale" | "proof_used">(async (client) => {
      const used = await client.query(
        "INSERT INTO vault_used_proofs (digest, expires_at) VALUES ($1, $2) ON CONFLICT (digest) DO NOTHING",
        [proof.digest, proof.expiresAt],
      );
      if (used.rowCount !== 1) throw new Rollback("proof_used");
      encryptedKey = await applyChange(client, change, "encrypted_key");
    });
    return outcome === "applied" ? { outcome, encryptedKey } : { outcome };
  }

  async insertGroup(
    group: HeartbeatGroupRecord,
    members: { id: string; version: number }[],
  ): Promise<"applied" | "stale"> {
    return this.transaction<"stale">(async (client) => {
      await client.query(
        "INSERT INTO vault_groups (id, account_id, name, interval_seconds, created_at) VALUES ($1, $2, $3, $4, $5)",
        [group.id, group.accountId, group.name, group.interval, group.createdAt],
      );
      for (const m of members) {
        const joined = await client.query(
          `UPDATE vaults SET group_id = $1, version = version + 1
           WHERE id = $2 AND version = $3 AND group_id IS NULL`,
          [group.id, m.id, m.version],
        );
        if (joined.rowCount !== 1) throw new Rollback("stale");
      }
    });
  }

  async list(filter: {
    accountId?: string;
    state?: VaultState;
    limit: number;
    offset: number;
  }): Promise<VaultPage> {
    const matches = "($1::text IS NULL OR v.account_id = $1) AND ($2::text IS NULL OR v.state = $2)";
    const params = [filter.accountId ?? null, filter.state ?? null];
    const [page, count] = await Promise.all([
      this.pool.query<VaultRow>(
        `SELECT ${vaultColumns} FROM vaults v WHERE ${matches}
         ORDER BY v.created_at DESC, v.id DESC LIMIT $3 OFFSET $4`,
        [...params, filter.limit, filter.offset],
      ),
      this.pool.query<{ total: number }>(
        `SELECT count(*)::int AS total FROM vaults v WHERE ${matches}`,
        params,
      ),
    ]);
    return { items: page.rows.map(vaultOf), total: count.rows[0]!.total };
  }

  async stats(currency: string): Promise<VaultStats> {
    const { rows } = await this.pool.query<Omit<VaultStats, "feesCollected"> & { fees: string | null }>(
      `SELECT count(*) FILTER (WHERE state = 'active')::int AS active, count(*)::int AS total,
         coalesce(sum(heartbeat_count), 0)::float8 AS heartbeats, -- exact below 2^53
         count(*) FILTER (WHERE released_at IS NOT NULL)::int AS releases,
         count(*) FILTER (WHERE state = 'burned')::int AS burns,
         (SELECT units::text FROM fee_totals WHERE currency = $1) AS fees
       FROM vaults`,
      [currency],
    );
    const { fees, ...counts } = rows[0]!;
    // NUMERIC(1000, 0) prints digits only.
    return { ...counts, feesCollected: formatDecimal(feeTotalOf(currency, fees)) };
  }

  async countByState(): Promise<Partial<Record<VaultState, number>>> {
    const { rows } = await this.pool.query<{ state: VaultState; n: number }>(
      "SELECT state, count(*)::int AS n FROM vaults GROUP BY state",
    );
    return Object.fromEntries(rows.map((r) => [r.state, r.n]));
  }

  async claimExpired(claim: ClaimRequest): Promise<VaultRecord[]> {
    return this.claim(
      "state = $1, released_at = v.deadline",
      `state = ANY($2) AND deadline <= $3 ${idFilter(claim, 5)} ORDER BY deadline LIMIT $4`,
      [claim.to, claim.from, claim.now, claim.limit, ...idValues(claim)],
    );
  }

  async claimRetentionBurns(claim: ClaimRequest & { releasedBefore: Date }): Promise<VaultRecord[]> {
    return this.claim(
      "state = $1, encrypted_key = NULL, burned_at = $3, burn_reason = 'retention_expired'",
      `state = ANY($2) AND retrieved_at IS NULL AND released_at <= $5 ${idFilter(claim, 6)}
       ORDER BY released_at LIMIT $4`,
      [claim.to, claim.from, claim.now, claim.limit, claim.releasedBefore, ...idValues(claim)],
    );
  }

  async claimWarnings(claim: { now: Date; warnUntil: Date; limit: number }): Promise<VaultRecord[]> {
    return this.claim(
      "warned_deadline = v.deadline",
      `state = $1 AND deadline > $2 AND deadline <= $3 AND warned_deadline IS DISTINCT FROM deadline
       ORDER BY deadline LIMIT $4`,
      ["active", claim.now, claim.warnUntil, claim.limit],
      false,
    );
  }

  async purgeProofs(now: Date): Promise<void> {
    await this.pool.query("DELETE FROM vault_used_proofs WHERE expires_at < $1", [now]);
  }

  /**
   * Locks the due rows (skipping rows another instance holds), moves them and returns them, in one
   * statement. The lock re-checks `due` against the row's latest version, so a vault changed by a
   * concurrent commit is left out. The version grows for state changes, not for a warning mark.
   */
  private async claim(
    set: string,
    due: string,
    values: unknown[],
    bumpVersion = true,
  ): Promise<VaultRecord[]> {
    const version = bumpVersion ? ", version = v.version + 1" : "";
    const { rows } = await this.pool.query<VaultRow>(
      `WITH due AS (SELECT id FROM vaults WHERE ${due} FOR UPDATE SKIP LOCKED),
         moved AS (UPDATE vaults v SET ${set}${version} FROM due WHERE v.id = due.id RETURNING ${vaultColumns})
       SELECT * FROM moved ORDER BY deadline, id`,
      values,
    );
    return rows.map(vaultOf);
  }

  private transaction<O extends Rollback["outcome"]>(
    work: (client: pg.PoolClient) => Promise<void>,
  ): Promise<"applied" | O> {
    return outcomeOf(() => transaction(this.pool, work));
  }
}

function idFilter(claim: ClaimRequest, param: number): string {
  return claim.ids ? `AND id = ANY($${param})` : "";
}

function idValues(claim: ClaimRequest): unknown[] {
  return claim.ids ? [claim.ids] : [];
}

/** Applies one versioned change, or rolls the transaction back as stale; returns `returning`'s value. */
async function applyChange(client: pg.PoolClient, change: VaultChange, returning = "id"): Promise<string> {
  const { sql, values } = patchAssignments(change.set, postgresEncoding, (n) => `$${n + 2}`);
  const { rows } = await client.query<{ value: string }>(
    `UPDATE vaults SET ${sql} WHERE id = $1 AND version = $2 RETURNING ${returning} AS value`,
    [change.id, change.version, ...values],
  );
  if (rows.length !== 1) throw new Rollback("stale");
  return rows[0]!.value;
}

/**
 * Consumes the receipt (its id is the primary key) and adds its amount, in 10^-18 units, to the
 * exact running total: the addition is in the upsert, so concurrent instances lose no update.
 */
async function recordPayment(client: pg.PoolClient, p: FeePayment): Promise<void> {
  // A receipt recorded by its bare id, before ids were kept per issuer (FeePayment.legacyReceiptId).
  if (p.legacyReceiptId !== undefined) {
    const legacy = await client.query("SELECT 1 FROM fee_receipts WHERE id = $1", [p.legacyReceiptId]);
    if (legacy.rowCount) throw new Rollback("receipt_used");
  }
  const used = await client.query(
    `INSERT INTO fee_receipts (id, amount, currency, recipient, used_at, used_for) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (id) DO NOTHING`,
    [p.receiptId, p.amount, p.currency, p.recipient, p.usedAt, p.usedFor],
  );
  if (used.rowCount !== 1) throw new Rollback("receipt_used");
  await client.query(
    `INSERT INTO fee_totals (currency, units) VALUES ($1, $2::numeric)
     ON CONFLICT (currency) DO UPDATE SET units = fee_totals.units + excluded.units`,
    [p.currency, toMinorUnits(decimal(p.amount)).toString()],
  );
}
