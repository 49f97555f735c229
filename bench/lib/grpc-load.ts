// Child process of bench/grpc.bench.ts: generates the gRPC load, so the servers under test do not
// share an event loop (or a core) with their client. One HTTP/2 connection per target, as gRPC
// clients do; `concurrency` callers each keep one call in flight. Commands arrive over IPC.
import { performance } from "node:perf_hooks";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { StampService } from "../../gen/proto/svc/v1/stamp_pb.js";

export interface LoadCommand {
  url: string;
  /** create: CreateStamp calls; batch: BatchStamp calls of `batchSize` items. */
  kind: "create" | "batch";
  concurrency: number;
  seconds: number;
  batchSize: number;
}

export interface LoadResult {
  calls: number;
  stamps: number;
  seconds: number;
  p50Ms: number;
  p99Ms: number;
}

let counter = 0;
const nextHash = () => `sha256:${(counter++).toString(16).padStart(64, "0")}`;

process.on("message", async (command: LoadCommand | "exit") => {
  if (command === "exit") process.exit(0);
  process.send!(await run(command));
});

async function run(command: LoadCommand): Promise<LoadResult> {
  const client = createClient(StampService, createGrpcTransport({ baseUrl: command.url }));
  const call =
    command.kind === "create"
      ? async () => ((await client.createStamp({ contentHash: nextHash() })).stamp ? 1 : 0)
      : async () => {
          const items = Array.from({ length: command.batchSize }, () => ({ contentHash: nextHash() }));
          return (await client.batchStamp({ items })).successCount;
        };
  const latencies: number[] = [];
  let stamps = 0;
  const started = performance.now();
  const until = started + command.seconds * 1000;
  const caller = async () => {
    while (performance.now() < until) {
      const t = performance.now();
      const created = await call();
      latencies.push(performance.now() - t);
      stamps += created;
    }
  };
  await Promise.all(Array.from({ length: command.concurrency }, caller));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (p: number) => Number(latencies[Math.floor((p / 100) * (latencies.length - 1))]!.toFixed(2));
  return { calls: latencies.length, stamps, seconds, p50Ms: at(50), p99Ms: at(99) };
}
