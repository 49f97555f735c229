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
import { type Http1Handler, http1RequestHandler } from "./http1-handler.js";
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
  /** CORS_ORIGINS: the origins whose pages may call the services over HTTP/1.1 (`http1`). */
  corsOrigins: string[];
}

/** What the rest of the service uses of the listener: its socket and its graceful shutdown. */
export interface GrpcServer extends Pick<GrpcListener, "server" | "shutdown"> {
  /**
   * The application services' Connect and gRPC-Web calls over HTTP/1.1, for the REST listener
   * (http1-handler.ts), sharing this listener's interceptors, per-client call bound and shutdown.
   */
  http1: Http1Handler;
}

/**
 * gRPC (and gRPC-Web and Connect) over HTTP/2 cleartext, with health and reflection, handed to
 * `options.listener` when main.ts already listens with one answering as starting; and the same
 * application services over HTTP/1.1 (Connect and gRPC-Web) for the REST listener to serve.
 */
export function createGrpcServer(options: GrpcOptions): GrpcServer {
  const { readiness, limits } = options;
  const listener = options.listener ?? new GrpcListener(limits, readiness);
  const files = [
    ...options.services.map((s) => s.file),
    file_grpc_health_v1_health,
    file_grpc_reflection_v1_reflection,
  ];
  const services = options.services.map((s) => s.spec);
  const shared = {
    interceptors: [
      ...(options.observers ?? []),
      errorInterceptor(options.logger),
      ...(options.interceptors ?? []),
    ],
    contextValues: (req: { socket: { remoteAddress?: string } }) =>
      createContextValues().set(peerAddressKey, req.socket.remoteAddress ?? ""),
    shutdownSignal: listener.shutdownSignal,
    readMaxBytes: limits.maxMessageBytes,
    openCalls: new OpenCalls(limits.callsPerClient),
    callIdleTimeoutMs: limits.callIdleTimeoutMs,
  };
  const handler = grpcRequestHandler({
    ...shared,
    services,
    routes(router) {
      healthRoutes(readiness)(router);
      reflectionRoutes(files)(router);
    },
  });
  listener.handOver(handler);
  const http1 = http1RequestHandler({ ...shared, services, corsOrigins: options.corsOrigins });
  return { server: listener.server, shutdown: (graceMs) => listener.shutdown(graceMs), http1 };
}
