import type { VaultState } from "../../vault/state.js";
import type { BurnReason, VaultMetadata, VaultPatch, VaultRecord } from "../../vault/vault-repository.js";

/** A row of `vaults` with its group's interval, as pg decodes it (timestamptz → Date, json parsed). */
export interface VaultRow {
  id: string;
  account_id: string;
  state: VaultState;
  recipient_public_key: string | null;
  heartbeat_deadline: number;
  allow_manual_release: boolean;
  content_uris: string[];
  metadata: VaultMetadata;
  created_at: Date;
  deadline: Date;
  last_heartbeat: Date | null;
  heartbeat_count: number;
  group_id: string | null;
  group_interval: number | null;
  released_at: Date | null;
  release_reason: string | null;
  retrieved_at: Date | null;
  burned_at: Date | null;
  burn_reason: BurnReason | null;
  burn_note: string | null;
  version: number;
}

/** Every column of a vault but its key, and its group's interval. */
export const vaultColumns = `v.id, v.account_id, v.state, v.recipient_public_key, v.heartbeat_deadline,
  v.allow_manual_release, v.content_uris, v.metadata, v.created_at, v.deadline, v.last_heartbeat,
  v.heartbeat_count, v.group_id, v.released_at, v.release_reason, v.retrieved_at, v.burned_at,
  v.burn_reason, v.burn_note, v.version,
  (SELECT g.interval_seconds FROM vault_groups g WHERE g.id = v.group_id) AS group_interval`;

export function toRecord(row: VaultRow): VaultRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    state: row.state,
    recipientPublicKey: row.recipient_public_key,
    heartbeatDeadline: row.heartbeat_deadline,
    allowManualRelease: row.allow_manual_release,
    contentUris: row.content_uris,
    metadata: row.metadata,
    createdAt: row.created_at,
    deadline: row.deadline,
    lastHeartbeat: row.last_heartbeat,
    heartbeatCount: row.heartbeat_count,
    groupId: row.group_id,
    groupInterval: row.group_interval,
    releasedAt: row.released_at,
    releaseReason: row.release_reason,
    retrievedAt: row.retrieved_at,
    burnedAt: row.burned_at,
    burnReason: row.burn_reason,
    burnNote: row.burn_note,
    version: row.version,
  };
}

/** Each patchable field: its column and how its value is sent (pg sends Dates and null itself). */
const columns: { [K in keyof Required<VaultPatch>]: [string, (v: Required<VaultPatch>[K]) => unknown] } = {
  state: ["state", (v) => v],
  deadline: ["deadline", (v) => v],
  lastHeartbeat: ["last_heartbeat", (v) => v],
  heartbeatCount: ["heartbeat_count", (v) => v],
  // JSON text: pg would send a JavaScript array as a PostgreSQL array.
  contentUris: ["content_uris", (v) => JSON.stringify(v)],
  releasedAt: ["released_at", (v) => v],
  releaseReason: ["release_reason", (v) => v],
  retrievedAt: ["retrieved_at", (v) => v],
  burnedAt: ["burned_at", (v) => v],
  burnReason: ["burn_reason", (v) => v],
  burnNote: ["burn_note", (v) => v],
  eraseKey: ["encrypted_key", () => null],
};

/** `col = $n, …` for the fields a patch sets, numbered after `firstParam - 1` existing parameters. */
export function patchAssignments(patch: VaultPatch, firstParam: number): { sql: string; values: unknown[] } {
  const assignments: string[] = [];
  const values: unknown[] = [];
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    const [column, encode] = columns[field as keyof VaultPatch] as [string, (v: unknown) => unknown];
    values.push(encode(value));
    assignments.push(`${column} = $${firstParam + values.length - 1}`);
  }
  return { sql: assignments.join(", "), values };
}
