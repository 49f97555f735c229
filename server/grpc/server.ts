import type { DescFile } from "@bufbuild/protobuf";
import type { Interceptor, ServiceImplSpec } from "@connectrpc/connect";
import { createContextValues } from "@connectrpc/connect";
import { file_grpc_health_v1_health } from "../../gen/proto/grpc/health/v1/health_pb.js";
import { file_grpc_reflection_v1_reflection } from "../../gen/proto/grpc/reflection/v1/reflection_pb.js";
import type { Readiness } from "../health/readiness.js";
import type { Logger } from "../logger.js";
import { peerAddressKey } from "./context-keys.js";
import { errorInterceptor } from "./error-interceptor.js";
import { healthRoutes } from "./health-service.js";
import type { GrpcLimits } from "./limits.js";
import { GrpcListener } from "./listener.js";
import { OpenCalls } from "./open-calls.js";
import { reflectionRoutes } from "./reflection-service.js";
import { grpcRequestHandler } from "./request-handler.js";

export interface GrpcOptions {
  logger: Logger;
  /** The service's readiness, which the health services report. */
  readiness: Readiness;
  /** Application services to serve, with the descriptor files reflection should describe. */
  services: { spec: ServiceImplSpec; file: DescFile }[];
  interceptors?: Interceptor[];
  /** Outside the error mapping, so they see the status the client gets (metrics). */
  observers?: Interceptor[];
  limits: GrpcLimits;
  /** A listener already answering as starting (main.ts); without one a new one is made. */
  listener?: GrpcListener;
}

/** What the rest of the service uses of the listener: its socket and its graceful shutdown. */
export type GrpcServer = Pick<GrpcListener, "server" | "shutdown">;

/**
 * gRPC (and gRPC-Web and Connect) over HTTP/2 cleartext, with health and reflection, handed to
 * `options.listener` when main.ts already listens with one answering as starting.
 */
export function createGrpcServer(options: GrpcOptions): GrpcServer {
  const { readiness, limits } = options;
  const listener = options.listener ?? new GrpcListener(limits, readiness);
  const files = [
    ...options.services.map((s) => s.file),
    file_grpc_health_v1_health,
    file_grpc_reflection_v1_reflection,
  ];
  const handler = grpcRequestHandler({
    services: options.services.map((s) => s.spec),
    routes(router) {
      healthRoutes(readiness)(router);
      reflectionRoutes(files)(router);
    },
    interceptors: [
      ...(options.observers ?? []),
      errorInterceptor(options.logger),
      ...(options.interceptors ?? []),
    ],
    contextValues: (req) => createContextValues().set(peerAddressKey, req.socket.remoteAddress ?? ""),
    shutdownSignal: listener.shutdownSignal,
    readMaxBytes: limits.maxMessageBytes,
    openCalls: new OpenCalls(limits.callsPerClient),
    callIdleTimeoutMs: limits.callIdleTimeoutMs,
  });
  listener.handOver(handler);
  return listener;
}
