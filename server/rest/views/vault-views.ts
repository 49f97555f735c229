import type { components } from "../../../gen/openapi/types.js";
import type { HeartbeatGroupRecord, VaultRecord, VaultStats } from "../../vault/vault-repository.js";

type Schemas = components["schemas"];

const iso = (d: Date) => d.toISOString();

/** A vault as its owner sees it (never the key). */
export function vaultView(v: VaultRecord): Schemas["VaultResponse"] {
  return {
    id: v.id,
    state: v.state,
    created_at: iso(v.createdAt),
    deadline: iso(v.deadline),
    last_heartbeat: v.lastHeartbeat && iso(v.lastHeartbeat),
    heartbeat_count: v.heartbeatCount,
    content_uris: v.contentUris,
    allow_manual_release: v.allowManualRelease,
    metadata: v.metadata,
    recipient_public_key: v.recipientPublicKey,
    group_id: v.groupId,
  };
}

export function listItemView(v: VaultRecord): Schemas["VaultListItem"] {
  return { id: v.id, state: v.state, deadline: iso(v.deadline), heartbeat_count: v.heartbeatCount };
}

/** A vault as the public sees it: no owner, key, URIs or metadata. */
export function explorerItemView(v: VaultRecord): Schemas["ExplorerVaultItem"] {
  return {
    id: v.id,
    state: v.state,
    created_at: iso(v.createdAt),
    deadline: iso(v.deadline),
    heartbeat_count: v.heartbeatCount,
  };
}

export function groupView(g: HeartbeatGroupRecord): Schemas["HeartbeatGroup"] {
  return {
    id: g.id,
    name: g.name,
    vault_ids: g.vaultIds,
    interval: g.interval,
    created_at: iso(g.createdAt),
  };
}

export function statsView(s: VaultStats, currency: string): Schemas["ExplorerStats"] {
  return {
    active_vaults: s.active,
    total_vaults: s.total,
    total_heartbeats: s.heartbeats,
    total_releases: s.releases,
    total_burns: s.burns,
    total_fees_collected: s.feesCollected,
    fee_currency: currency,
  };
}
