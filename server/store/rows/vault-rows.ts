import { type Decimal, parseMinorUnits } from "../../vault/fees/decimal.js";
import type { VaultState } from "../../vault/state.js";
import type { BurnReason, VaultMetadata, VaultPatch, VaultRecord } from "../../vault/vault-repository.js";
import {
  dateOf,
  dateOrNull,
  type Encoding,
  encodeDateOrNull,
  type Flag,
  flagOf,
  type Json,
  jsonOf,
  type Timestamp,
} from "./values.js";

/** A row of `vaults` (its key left out) with its group's interval. */
export interface VaultRow {
  id: string;
  account_id: string;
  state: VaultState;
  recipient_public_key: string | null;
  heartbeat_deadline: number;
  allow_manual_release: Flag;
  content_uris: Json<string[]>;
  metadata: Json<VaultMetadata>;
  created_at: Timestamp;
  deadline: Timestamp;
  last_heartbeat: Timestamp | null;
  heartbeat_count: number;
  group_id: string | null;
  group_interval: number | null;
  released_at: Timestamp | null;
  release_reason: string | null;
  retrieved_at: Timestamp | null;
  burned_at: Timestamp | null;
  burn_reason: BurnReason | null;
  burn_note: string | null;
  version: number;
}

export const vaultOf = (row: VaultRow): VaultRecord => ({
  id: row.id,
  accountId: row.account_id,
  state: row.state,
  recipientPublicKey: row.recipient_public_key,
  heartbeatDeadline: row.heartbeat_deadline,
  allowManualRelease: flagOf(row.allow_manual_release),
  contentUris: jsonOf(row.content_uris),
  metadata: jsonOf(row.metadata),
  createdAt: dateOf(row.created_at),
  deadline: dateOf(row.deadline),
  lastHeartbeat: dateOrNull(row.last_heartbeat),
  heartbeatCount: row.heartbeat_count,
  groupId: row.group_id,
  groupInterval: row.group_interval,
  releasedAt: dateOrNull(row.released_at),
  releaseReason: row.release_reason,
  retrievedAt: dateOrNull(row.retrieved_at),
  burnedAt: dateOrNull(row.burned_at),
  burnReason: row.burn_reason,
  burnNote: row.burn_note,
  version: row.version,
});

/**
 * A new vault's columns, in the order the PostgreSQL INSERT numbers them. JSON columns are sent as
 * text on both engines: pg would send a JavaScript array as a PostgreSQL array.
 */
export const vaultParams = (vault: VaultRecord, encryptedKey: string, encoding: Encoding) => ({
  id: vault.id,
  account_id: vault.accountId,
  state: vault.state,
  encrypted_key: encryptedKey,
  recipient_public_key: vault.recipientPublicKey,
  heartbeat_deadline: vault.heartbeatDeadline,
  allow_manual_release: encoding.flag(vault.allowManualRelease),
  content_uris: JSON.stringify(vault.contentUris),
  metadata: JSON.stringify(vault.metadata),
  created_at: encoding.date(vault.createdAt),
  deadline: encoding.date(vault.deadline),
  heartbeat_count: vault.heartbeatCount,
  version: vault.version,
});

type Encode<V> = (value: V, encoding: Encoding) => unknown;
const same = <V>(value: V) => value;
const nullableDate: Encode<Date | null> = (value, encoding) => encodeDateOrNull(encoding, value);

/** Each patchable field: its column and how its value is written. */
const patchColumns: { [K in keyof Required<VaultPatch>]: [string, Encode<Required<VaultPatch>[K]>] } = {
  state: ["state", same],
  deadline: ["deadline", (value, encoding) => encoding.date(value)],
  lastHeartbeat: ["last_heartbeat", nullableDate],
  heartbeatCount: ["heartbeat_count", same],
  contentUris: ["content_uris", (value) => JSON.stringify(value)],
  releasedAt: ["released_at", nullableDate],
  releaseReason: ["release_reason", same],
  retrievedAt: ["retrieved_at", nullableDate],
  burnedAt: ["burned_at", nullableDate],
  burnReason: ["burn_reason", same],
  burnNote: ["burn_note", same],
  eraseKey: ["encrypted_key", () => null],
};

/**
 * The SET list of a versioned change: `column = <placeholder>` for each field the patch sets, then
 * the version bump every change makes; `placeholder(n)` names the n-th value (from 1).
 */
export function patchAssignments(
  patch: VaultPatch,
  encoding: Encoding,
  placeholder: (n: number) => string,
): { sql: string; values: unknown[] } {
  const assignments: string[] = [];
  const values: unknown[] = [];
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    const [column, encode] = patchColumns[field as keyof VaultPatch] as [string, Encode<unknown>];
    values.push(encode(value, encoding));
    assignments.push(`${column} = ${placeholder(values.length)}`);
  }
  assignments.push("version = version + 1");
  return { sql: assignments.join(", "), values };
}

/** A currency's running fee total, stored as a count of 10^-18 units (digits, which BigInt reads at any length). */
export function feeTotalOf(currency: string, units: string | null | undefined): Decimal {
  const total = parseMinorUnits(units ?? "0");
  if (!total) throw new Error(`fee total of ${currency} is not a count of units: ${units}`);
  return total;
}

/** Thrown inside a vault write's transaction to roll it back, as that write's outcome. */
export class Rollback extends Error {
  constructor(readonly outcome: "stale" | "receipt_used" | "proof_used") {
    super(outcome);
  }
}

/** Runs a transaction; a Rollback becomes its outcome, anything else propagates. */
export async function outcomeOf<O extends Rollback["outcome"]>(
  transaction: () => void | Promise<void>,
): Promise<"applied" | O> {
  try {
    await transaction();
    return "applied";
  } catch (err) {
    if (err instanceof Rollback) return err.outcome as O;
    throw err;
  }
}
