import { randomBytes } from "node:crypto";
import { setMaxListeners } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import type WebSocket from "ws";
import { StampService } from "../../gen/proto/svc/v1/stamp_pb.js";
import type { RestCalls, StampResponse } from "../../test/helpers/rest-calls.js";
import type { Recorder } from "./recorder.js";
import { openPinger, openSubscriber, type StreamCounts, watchAll } from "./streams.js";

export interface TrafficTarget {
  rest: RestCalls;
  grpcUrl: string;
  wsUrl: string;
  key: string;
  vaultIds: string[];
  mintReceipt: () => string;
}

/** Calls per second of each operation at scale 1 (about 42 calls and 36 stamps a second). */
const rates = {
  "rest.stamp": 8,
  "rest.get": 8,
  "rest.verify": 3,
  "rest.verify_json": 2,
  "rest.hash": 4,
  "rest.heartbeat": 4,
  "grpc.create": 8,
  "grpc.batch": 1,
  "ws.ping": 4,
} as const;

const batchItems = 20;
const subscribers = 4;
/** Streams are reopened now and then: per-connection state must be released, not only held. */
const churnMs = { subscriber: 30_000, watch: 60_000 };

const sha256Hash = () => `sha256:${randomBytes(32).toString("hex")}`;
const document = () => randomBytes(512 + Math.floor(Math.random() * 3584));

/**
 * Mixed traffic against one server: paced REST, gRPC and WebSocket calls (an open loop, so a slow
 * server is measured, not hidden by fewer calls), plus long-lived streams that are reopened now and
 * then: WebSocket subscribers to every stamp event and a gRPC WatchStamps call.
 */
export class Traffic {
  readonly counts: StreamCounts = { wsEvents: 0, wsConnections: 0, watchMessages: 0, watchCalls: 0 };
  private running = true;
  private readonly tasks: Promise<void>[] = [];
  private readonly recent: StampResponse[] = [];
  private readonly abort = new AbortController();
  private readonly sockets = new Set<WebSocket>();
  private readonly grpc;
  private readonly headers;

  constructor(
    private readonly target: TrafficTarget,
    private readonly recorder: Recorder,
    private readonly scale: number,
  ) {
    this.grpc = createClient(StampService, createGrpcTransport({ baseUrl: target.grpcUrl }));
    this.headers = { authorization: `Bearer ${target.key}` };
    // Every paced lane and stream waits on this one signal.
    setMaxListeners(100, this.abort.signal);
  }

  async start(): Promise<void> {
    for (let i = 0; i < subscribers; i++) this.tasks.push(this.subscriberLane());
    this.tasks.push(this.watchLane());
    const pinger = await openPinger(this.target.wsUrl, this.target.key);
    this.sockets.add(pinger.socket);
    const ops: Record<keyof typeof rates, () => Promise<unknown>> = {
      "rest.stamp": () => this.stamp(),
      "rest.get": () => this.target.rest.getStamp(this.pick().stamp_id),
      "rest.verify": () => this.target.rest.verifyStamp(this.pick().stamp_id),
      "rest.verify_json": () => this.target.rest.verifyDocument(this.pick().stamp_json),
      "rest.hash": () => this.target.rest.hash(document()),
      "rest.heartbeat": () => this.target.rest.heartbeat(this.pickVault(), this.target.mintReceipt()),
      "grpc.create": () => this.grpc.createStamp({ contentHash: sha256Hash() }, { headers: this.headers }),
      "grpc.batch": () => this.batch(),
      "ws.ping": () => pinger.ping(),
    };
    // The first stamp exists before anything reads stamps.
    await this.stamp();
    for (const [op, perSecond] of Object.entries(rates)) {
      this.tasks.push(this.paced(op, perSecond * this.scale, ops[op as keyof typeof rates]));
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    this.abort.abort();
    for (const socket of this.sockets) socket.close();
    await Promise.all(this.tasks);
  }

  private async stamp(): Promise<void> {
    const stamp = await this.target.rest.stamp(document());
    this.recent.push(stamp);
    if (this.recent.length > 200) this.recent.shift();
  }

  private async batch(): Promise<void> {
    const items = Array.from({ length: batchItems }, () => ({ contentHash: sha256Hash() }));
    const res = await this.grpc.batchStamp({ items }, { headers: this.headers });
    if (res.successCount !== batchItems) throw new Error(`BatchStamp made ${res.successCount}/${batchItems}`);
  }

  private pick(): StampResponse {
    return this.recent[Math.floor(Math.random() * this.recent.length)]!;
  }

  private pickVault(): string {
    return this.target.vaultIds[Math.floor(Math.random() * this.target.vaultIds.length)]!;
  }

  /** Calls `op` `perSecond` times a second; a call slower than its slot delays the next one only. */
  private async paced(op: string, perSecond: number, call: () => Promise<unknown>): Promise<void> {
    const gapMs = 1000 / perSecond;
    let next = performance.now();
    while (this.running) {
      await this.recorder.time(op, call);
      next = Math.max(next + gapMs, performance.now());
      await this.pause(next - performance.now());
    }
  }

  private async subscriberLane(): Promise<void> {
    while (this.running) {
      const ok = await this.recorder.guard("ws.subscribe", async () => {
        const socket = await openSubscriber(this.target.wsUrl, this.target.key, this.counts);
        this.sockets.add(socket);
        const closed = new Promise<string>((resolve) => socket.once("close", (code) => resolve(`${code}`)));
        const churn = this.pause(churnMs.subscriber * (0.5 + Math.random())).then(() => "churn");
        const outcome = await Promise.race([churn, closed]);
        this.sockets.delete(socket);
        socket.close();
        if (outcome !== "churn" && this.running) throw new Error(`subscriber closed with ${outcome}`);
      });
      if (!ok) await this.pause(1000);
    }
  }

  private async watchLane(): Promise<void> {
    while (this.running) {
      // A controller of its own rather than AbortSignal.any(): Node 20 may collect the combined
      // signal and never end the round.
      const round = new AbortController();
      const end = () => round.abort();
      const timer = setTimeout(end, churnMs.watch);
      this.abort.signal.addEventListener("abort", end, { once: true });
      const ok = await this.recorder.guard("grpc.watch", () =>
        watchAll(this.grpc, this.headers, round.signal, this.counts),
      );
      clearTimeout(timer);
      this.abort.signal.removeEventListener("abort", end);
      if (!ok) await this.pause(1000);
    }
  }

  /** Waits `ms`, or less when the traffic stops. */
  private async pause(ms: number): Promise<void> {
    if (ms <= 0) return;
    await sleep(ms, undefined, { signal: this.abort.signal }).catch(() => {});
  }
}
