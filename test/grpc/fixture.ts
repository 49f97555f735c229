import { createHash } from "node:crypto";
import { type Client, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import * as grpc from "@grpc/grpc-js";
import { StampService } from "../../gen/proto/svc/v1/stamp_pb.js";
import type { Listener } from "../../server/events/bus.js";
import { MemoryEventBus } from "../../server/events/memory-bus.js";
import { type GrpcJsClient, grpcJsClient } from "../helpers/grpc-js.js";
import type { RunningService } from "../helpers/service.js";

export const sha256 = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex")}`;
export const sha3 = (text: string) => `sha3-256:${createHash("sha3-256").update(text).digest("hex")}`;

/** The in-process bus, counting its listeners: a finished watch must give its subscription back. */
export class CountingBus extends MemoryEventBus {
  listenerCount = 0;

  override subscribe(listener: Listener): () => void {
    const unsubscribe = super.subscribe(listener);
    this.listenerCount++;
    let subscribed = true;
    return () => {
      if (subscribed) this.listenerCount--;
      subscribed = false;
      unsubscribe();
    };
  }

  /** Resolves once the count reaches `n` (a watch subscribes when its first message is asked for). */
  async waitForListeners(n: number): Promise<void> {
    while (this.listenerCount !== n) await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A Connect client speaking the gRPC protocol, with optional request headers (metadata). */
export function connectClient(
  svc: RunningService,
  headers: Record<string, string> = {},
): Client<typeof StampService> {
  const transport = createGrpcTransport({
    baseUrl: svc.grpcUrl,
    interceptors: [
      (next) => (req) => {
        for (const [name, value] of Object.entries(headers)) req.header.set(name, value);
        return next(req);
      },
    ],
  });
  return createClient(StampService, transport);
}

/** A @grpc/grpc-js client of svc.v1.StampService built from specs/proto. */
export function grpcJsStampClient(svc: RunningService): GrpcJsClient {
  return grpcJsClient("svc/v1/stamp.proto", "svc.v1.StampService", svc.grpcPort);
}

export function metadata(entries: Record<string, string>): grpc.Metadata {
  const md = new grpc.Metadata();
  for (const [name, value] of Object.entries(entries)) md.set(name, value);
  return md;
}
