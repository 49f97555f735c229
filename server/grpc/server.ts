import { setMaxListeners } from "node:events";
import http2 from "node:http2";
import type { DescFile } from "@bufbuild/protobuf";
import type { ConnectRouter, Interceptor } from "@connectrpc/connect";
import { Code, ConnectError, createContextValues } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { file_grpc_health_v1_health } from "../../gen/proto/grpc/health/v1/health_pb.js";
import { file_grpc_reflection_v1_reflection } from "../../gen/proto/grpc/reflection/v1/reflection_pb.js";
import type { Readiness } from "../health/readiness.js";
import type { Logger } from "../logger.js";
import { withCallerFaultsAsInvalidArgument } from "./caller-faults.js";
import { peerAddressKey } from "./context-keys.js";
import { errorInterceptor } from "./error-interceptor.js";
import { healthRoutes } from "./health-service.js";
import { closeIdleSessions } from "./idle-sessions.js";
import type { GrpcLimits } from "./limits.js";
import { reflectionRoutes } from "./reflection-service.js";
import { withPlainStatusMessages } from "./status-message.js";

export interface GrpcOptions {
  logger: Logger;
  /** The service's readiness, which the health services report. */
  readiness: Readiness;
  /** Application services to serve, with the descriptor files reflection should describe. */
  services: { routes: (router: ConnectRouter) => void; file: DescFile }[];
  interceptors?: Interceptor[];
  /** Outside the error mapping, so they see the status the client gets (metrics). */
  observers?: Interceptor[];
  limits: GrpcLimits;
}

export interface GrpcServer {
  server: http2.Http2Server;
  /**
   * Reports NOT_SERVING, ends streaming calls, stops accepting connections and lets unary calls in
   * flight finish for up to `graceMs` before closing what is left.
   */
  shutdown(graceMs: number): Promise<void>;
}

/** gRPC (and gRPC-Web and Connect) over HTTP/2 cleartext, with health and reflection. */
export function createGrpcServer(options: GrpcOptions): GrpcServer {
  const { readiness, limits } = options;
  const stopping = new AbortController();
  // Every call in flight listens on it (Connect links each call's signal to it): no leak past 10.
  setMaxListeners(0, stopping.signal);
  const files = [
    ...options.services.map((s) => s.file),
    file_grpc_health_v1_health,
    file_grpc_reflection_v1_reflection,
  ];
  const handler = connectNodeAdapter({
    routes(router) {
      for (const s of options.services) s.routes(router);
      healthRoutes(readiness)(router);
      reflectionRoutes(files)(router);
    },
    interceptors: [
      ...(options.observers ?? []),
      errorInterceptor(options.logger),
      ...(options.interceptors ?? []),
    ],
    contextValues: (req) => createContextValues().set(peerAddressKey, req.socket.remoteAddress ?? ""),
    shutdownSignal: stopping.signal,
    readMaxBytes: limits.maxMessageBytes,
  });
  const settings = {
    maxConcurrentStreams: limits.maxConcurrentStreams,
    maxHeaderListSize: limits.maxHeaderBytes,
  };
  const server = http2.createServer({ settings }, (req, res) => {
    withPlainStatusMessages(res);
    withCallerFaultsAsInvalidArgument(res);
    handler(req, res);
  });
  server.maxConnections = limits.maxConnections;
  closeIdleSessions(server, limits.idleTimeoutMs);
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  return {
    server,
    async shutdown(graceMs) {
      readiness.set("stopping");
      // One turn of the event loop lets watchers write NOT_SERVING before their streams end.
      await new Promise((resolve) => setImmediate(resolve));
      // The reason every running call's signal carries: streams still open end with UNAVAILABLE.
      stopping.abort(new ConnectError("server is shutting down", Code.Unavailable));
      const closed = server.listening
        ? new Promise<void>((resolve) => server.close(() => resolve()))
        : Promise.resolve();
      for (const s of sessions) s.close();
      const timer = setTimeout(() => {
        for (const s of sessions) s.destroy();
      }, graceMs);
      await closed;
      clearTimeout(timer);
    },
  };
}
