import { randomBytes } from "node:crypto";
import { Metadata } from "@grpc/grpc-js";
import { type GrpcJsClient, grpcJsClient, unary } from "../helpers/grpc-js.js";
import type { RestCalls } from "../helpers/rest-calls.js";
import type { Ledger } from "./crash-ledger.js";
import type { SeededRandom } from "./seeded-random.js";

export interface LoadTarget {
  rest: RestCalls;
  grpcPort: number;
  key: string;
  mintReceipt: () => string;
}

interface GrpcStamp {
  id: string;
  content_hash: string;
  timestamp: { seconds: string; nanos: number };
}

const lanes = { restStamps: 3, grpcBatches: 1, heartbeats: 3 };
const batchItems = 25;

const timestampOf = ({ seconds, nanos }: GrpcStamp["timestamp"]) =>
  new Date(Number(seconds) * 1000 + Math.floor(nanos / 1e6)).toISOString();

/**
 * A stamping and heartbeat load that runs until the server is killed: REST uploads, gRPC
 * BatchStamp calls (through @grpc/grpc-js) and vault heartbeats, each lane sending its next request
 * as soon as the last one is answered. Every answer received in full is written to the ledger as
 * acknowledged, whenever it arrives (an answer written just before the kill still counts). A failure
 * that happens before the kill is a finding; after it, failures are what a kill does.
 */
export class CrashLoad {
  readonly failures: string[] = [];
  private killedAt = Number.POSITIVE_INFINITY;
  private readonly grpc: GrpcJsClient;
  private readonly done: Promise<void>;

  constructor(
    private readonly target: LoadTarget,
    private readonly ledger: Ledger,
    private readonly iteration: number,
    private readonly random: SeededRandom,
  ) {
    this.grpc = grpcJsClient("svc/v1/stamp.proto", "svc.v1.StampService", target.grpcPort);
    const all = [
      ...Array.from({ length: lanes.restStamps }, () => this.lane("POST /stamps", () => this.restStamp())),
      ...Array.from({ length: lanes.grpcBatches }, () => this.lane("BatchStamp", () => this.grpcBatch())),
      ...Array.from({ length: lanes.heartbeats }, () => this.lane("heartbeat", () => this.heartbeat())),
    ];
    this.done = Promise.all(all).then(() => this.grpc.close());
  }

  /** Call right before sending SIGKILL; resolves when every lane has seen the server go. */
  killing(): Promise<void> {
    this.killedAt = Date.now();
    return this.done;
  }

  private async lane(name: string, call: () => Promise<void>): Promise<void> {
    while (Date.now() < this.killedAt) {
      try {
        await call();
      } catch (err) {
        const at = Date.now();
        if (at < this.killedAt)
          this.failures.push(`${name} failed before the kill: ${(err as Error).message}`);
        return;
      }
    }
  }

  private async restStamp(): Promise<void> {
    const content = randomBytes(this.random.int(64, 4096));
    const stamp = await this.target.rest.stamp(content);
    this.ledger.stamps.set(stamp.stamp_id, {
      id: stamp.stamp_id,
      via: "rest",
      iteration: this.iteration,
      contentHash: `${stamp.hash_algorithm}:${stamp.document_hash}`,
      createdAt: stamp.created_at,
      stampJson: stamp.stamp_json,
    });
  }

  private async grpcBatch(): Promise<void> {
    const items = Array.from({ length: batchItems }, () => ({
      content_hash: `sha256:${randomBytes(32).toString("hex")}`,
    }));
    const metadata = new Metadata();
    metadata.set("authorization", `Bearer ${this.target.key}`);
    const res = await unary<{ stamps: GrpcStamp[]; success_count: number }>(
      this.grpc,
      "BatchStamp",
      { items },
      metadata,
    );
    if (res.success_count !== batchItems) throw new Error(`BatchStamp made ${res.success_count} stamps`);
    for (const stamp of res.stamps) {
      this.ledger.stamps.set(stamp.id, {
        id: stamp.id,
        via: "grpc",
        iteration: this.iteration,
        contentHash: stamp.content_hash,
        createdAt: timestampOf(stamp.timestamp),
      });
    }
  }

  private async heartbeat(): Promise<void> {
    const vault = this.random.pick([...this.ledger.vaults.values()]);
    vault.sent++;
    const receipt = await this.target.rest.heartbeat(vault.id, this.target.mintReceipt());
    this.ledger.ackHeartbeat(vault.id, receipt.next_deadline);
  }
}
