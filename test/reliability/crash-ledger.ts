import type { StampDocument } from "../../server/stamps/stamp-repository.js";

/** A stamp the server acknowledged (a 201, or a BatchStamp answer), as the client saw it. */
export interface AckedStamp {
  id: string;
  via: "rest" | "grpc";
  iteration: number;
  /** `<algorithm>:<hex>` of what was stamped. */
  contentHash: string;
  /** The creation time the client was told (RFC 3339). */
  createdAt: string;
  /** The signed document as returned (REST only: gRPC's Stamp message does not carry it). */
  stampJson?: StampDocument;
}

/** What the client knows about a vault it heartbeats. */
export interface VaultRecord {
  id: string;
  /** Heartbeats the server acknowledged (200). */
  acked: number;
  /** Heartbeats sent, whatever became of them: acknowledged ones plus those cut by the kill. */
  sent: number;
  /** The latest deadline the server acknowledged (creation, then each heartbeat's next_deadline). */
  deadline: string;
}

/** A vault left without heartbeats so that its deadline passes while the server is down. */
export interface SleeperRecord {
  id: string;
  deadline: string;
  /** released_at as first seen after the expiry, which must never change again. */
  expiredAt?: string;
}

/** Everything acknowledged across the iterations of one store's run. */
export class Ledger {
  readonly stamps = new Map<string, AckedStamp>();
  readonly vaults = new Map<string, VaultRecord>();
  readonly sleepers = new Map<string, SleeperRecord>();

  stampsOf(iteration: number): AckedStamp[] {
    return [...this.stamps.values()].filter((s) => s.iteration === iteration);
  }

  /** Keeps the later of two deadlines (heartbeats may be acknowledged out of order). */
  ackHeartbeat(vaultId: string, nextDeadline: string): void {
    const vault = this.vaults.get(vaultId)!;
    vault.acked++;
    if (Date.parse(nextDeadline) > Date.parse(vault.deadline)) vault.deadline = nextDeadline;
  }
}
