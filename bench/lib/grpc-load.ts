// Child process of the gRPC benchmarks: generates the load, so the servers under test do not share
// an event loop (or a core) with their client. One HTTP/2 connection per target, as gRPC clients
// keep; `concurrency` callers each keep one call in flight. Commands arrive over IPC; each answer is
// a LoadResult. With `idsFile`, the id of every stamp the server acknowledged is appended there.
import { appendFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { StampService } from "../../gen/proto/svc/v1/stamp_pb.js";

export interface LoadCommand {
  url: string;
  /**
   * create: CreateStamp calls; batch: BatchStamp calls of `batchSize` items; stream: StreamStamps
   * calls, each keeping up to STREAM_WINDOW requests unanswered until `seconds` are up.
   */
  kind: "create" | "batch" | "stream";
  /** Calls in flight at once (stream: StreamStamps calls open at once). */
  concurrency: number;
  seconds: number;
  batchSize?: number;
  idsFile?: string;
}

export interface LoadResult {
  calls: number;
  /** Stamps acknowledged by the server. */
  stamps: number;
  /** From the first call to the last answer (stream: until every open call has drained). */
  seconds: number;
  /** Per call; per stamp for stream (from its request to its response). */
  p50Ms: number;
  p99Ms: number;
}

let counter = 0;
const nextHash = () => `sha256:${(counter++).toString(16).padStart(64, "0")}`;

process.on("message", async (command: LoadCommand | "exit") => {
  if (command === "exit") process.exit(0);
  process.send!(await run(command));
});

type Client = ReturnType<typeof createClient<typeof StampService>>;

async function run(command: LoadCommand): Promise<LoadResult> {
  const client = createClient(StampService, createGrpcTransport({ baseUrl: command.url }));
  const until = performance.now() + command.seconds * 1000;
  const latencies: number[] = [];
  const ids: string[] = [];
  const started = performance.now();
  const caller = command.kind === "stream" ? streamCaller : unaryCaller;
  await Promise.all(
    Array.from({ length: command.concurrency }, () => caller(client, command, until, latencies, ids)),
  );
  const seconds = (performance.now() - started) / 1000;
  if (command.idsFile && ids.length) appendFileSync(command.idsFile, `${ids.join("\n")}\n`);
  latencies.sort((a, b) => a - b);
  const at = (p: number) =>
    Number((latencies[Math.floor((p / 100) * (latencies.length - 1))] ?? 0).toFixed(2));
  const calls = command.kind === "stream" ? command.concurrency : latencies.length;
  return { calls, stamps: ids.length, seconds, p50Ms: at(50), p99Ms: at(99) };
}

async function unaryCaller(
  client: Client,
  command: LoadCommand,
  until: number,
  latencies: number[],
  ids: string[],
): Promise<void> {
  while (performance.now() < until) {
    const t = performance.now();
    if (command.kind === "create") {
      const { stamp } = await client.createStamp({ contentHash: nextHash() });
      if (stamp) ids.push(stamp.id);
    } else {
      const items = Array.from({ length: command.batchSize ?? 1000 }, () => ({ contentHash: nextHash() }));
      const { stamps } = await client.batchStamp({ items });
      for (const s of stamps) ids.push(s.id);
    }
    latencies.push(performance.now() - t);
  }
}

/**
 * Requests a StreamStamps call keeps unanswered, as a pipelining client would: enough to keep the
 * server busy, few enough that latency does not become a queue of seconds.
 */
const STREAM_WINDOW = 64;

async function streamCaller(
  client: Client,
  _command: LoadCommand,
  until: number,
  latencies: number[],
  ids: string[],
): Promise<void> {
  const sentAt: number[] = [];
  let answered = 0;
  let wake: (() => void) | undefined;
  async function* requests() {
    while (performance.now() < until) {
      if (sentAt.length - answered >= STREAM_WINDOW) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        continue;
      }
      sentAt.push(performance.now());
      yield { contentHash: nextHash() };
    }
  }
  for await (const res of client.streamStamps(requests())) {
    answered++;
    wake?.();
    wake = undefined;
    latencies.push(performance.now() - sentAt[res.sequence - 1]!);
    if (res.stamp) ids.push(res.stamp.id);
  }
}
