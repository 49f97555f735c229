import type { VaultState } from "../../vault/state.js";
import type { BurnReason, VaultMetadata, VaultPatch, VaultRecord } from "../../vault/vault-repository.js";

/** A row of `vaults` joined with its group's interval, as SQLite returns it. */
export interface VaultRow {
  id: string;
  account_id: string;
  state: VaultState;
  recipient_public_key: string | null;
  heartbeat_deadline: number;
  allow_manual_release: 0 | 1;
  content_uris: string;
  metadata: string;
  created_at: string;
  deadline: string;
  last_heartbeat: string | null;
  heartbeat_count: number;
  group_id: string | null;
  group_interval: number | null;
  released_at: string | null;
  release_reason: string | null;
  retrieved_at: string | null;
  burned_at: string | null;
  burn_reason: BurnReason | null;
  burn_note: string | null;
  version: number;
}

const date = (v: string | null) => (v === null ? null : new Date(v));

export function toRecord(row: VaultRow): VaultRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    state: row.state,
    recipientPublicKey: row.recipient_public_key,
    heartbeatDeadline: row.heartbeat_deadline,
    allowManualRelease: row.allow_manual_release === 1,
    contentUris: JSON.parse(row.content_uris) as string[],
    metadata: JSON.parse(row.metadata) as VaultMetadata,
    createdAt: new Date(row.created_at),
    deadline: new Date(row.deadline),
    lastHeartbeat: date(row.last_heartbeat),
    heartbeatCount: row.heartbeat_count,
    groupId: row.group_id,
    groupInterval: row.group_interval,
    releasedAt: date(row.released_at),
    releaseReason: row.release_reason,
    retrievedAt: date(row.retrieved_at),
    burnedAt: date(row.burned_at),
    burnReason: row.burn_reason,
    burnNote: row.burn_note,
    version: row.version,
  };
}

type Column = keyof VaultRow | "encrypted_key";

/** Each patchable field: its column and how its value is written. */
const columns: { [K in keyof Required<VaultPatch>]: [Column, (v: Required<VaultPatch>[K]) => unknown] } = {
  state: ["state", (v) => v],
  deadline: ["deadline", (v) => v.toISOString()],
  lastHeartbeat: ["last_heartbeat", (v) => v?.toISOString() ?? null],
  heartbeatCount: ["heartbeat_count", (v) => v],
  contentUris: ["content_uris", (v) => JSON.stringify(v)],
  releasedAt: ["released_at", (v) => v?.toISOString() ?? null],
  releaseReason: ["release_reason", (v) => v],
  retrievedAt: ["retrieved_at", (v) => v?.toISOString() ?? null],
  burnedAt: ["burned_at", (v) => v?.toISOString() ?? null],
  burnReason: ["burn_reason", (v) => v],
  burnNote: ["burn_note", (v) => v],
  eraseKey: ["encrypted_key", () => null],
};

/** `col = @col, …` and its parameters for the fields a patch sets. */
export function patchAssignments(patch: VaultPatch): { sql: string; params: Record<string, unknown> } {
  const assignments: string[] = [];
  const params: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    const [column, encode] = columns[field as keyof VaultPatch] as [Column, (v: unknown) => unknown];
    assignments.push(`${column} = @${column}`);
    params[column] = encode(value);
  }
  return { sql: assignments.join(", "), params };
}
