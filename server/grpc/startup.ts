import type { DescMethod } from "@bufbuild/protobuf";
import type { Interceptor } from "@connectrpc/connect";
import { Code, ConnectError } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { Health } from "../../gen/proto/grpc/health/v1/health_pb.js";
import { ServerReflection } from "../../gen/proto/grpc/reflection/v1/reflection_pb.js";
import { StampService } from "../../gen/proto/svc/v1/stamp_pb.js";
import type { Readiness } from "../health/readiness.js";
import { healthRoutes } from "./health-service.js";
import { stampHealthCheck } from "./stamp-service.js";

/** The calls answered while starting: the health checks, which report NOT_SERVING until ready. */
const answeredWhileStarting = new Set<DescMethod>([
  Health.method.check,
  Health.method.watch,
  StampService.method.healthCheck,
]);

/** UNAVAILABLE is the status gRPC clients treat as "retry", as REST's 503 with Retry-After. */
const refuseWhileStarting: Interceptor = (next) => async (req) => {
  if (answeredWhileStarting.has(req.method)) return next(req);
  throw new ConnectError("the service is starting; retry shortly", Code.Unavailable);
};

export interface StartupOptions {
  /** The listener's: a Watch opened while starting is still ended by a shutdown. */
  shutdownSignal: AbortSignal;
  readMaxBytes: number;
}

/**
 * What the gRPC listener answers before the application exists, while migrations run (as
 * rest/startup.ts does for REST): grpc.health.v1 Check and Watch and StampService/HealthCheck read
 * the shared Readiness, so they say NOT_SERVING exactly while GET /ready says `starting`; every
 * other call of StampService and reflection is UNAVAILABLE. `GrpcListener.handOver` replaces it.
 */
export function grpcStartupResponder(readiness: Readiness, options: StartupOptions) {
  return connectNodeAdapter({
    routes(router) {
      healthRoutes(readiness)(router);
      router.service(StampService, { healthCheck: (req) => stampHealthCheck(readiness, req) });
      router.service(ServerReflection, {});
    },
    interceptors: [refuseWhileStarting],
    shutdownSignal: options.shutdownSignal,
    readMaxBytes: options.readMaxBytes,
  });
}
