import { create } from "@bufbuild/protobuf";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  Health,
  type HealthCheckRequest,
  type HealthCheckResponse,
  HealthCheckResponseSchema,
  HealthCheckResponse_ServingStatus as Status,
} from "../../gen/proto/grpc/health/v1/health_pb.js";
import { StampService } from "../../gen/proto/svc/v1/stamp_pb.js";
import type { Readiness } from "../health/readiness.js";
import { quoted } from "./quoted.js";

/** The names grpc.health.v1 answers for: "" is the whole server. */
export const healthServiceNames = new Set(["", StampService.typeName]);

/** NOT_FOUND for a name health does not answer for, quoting at most the start of it. */
export function unknownService(name: string): ConnectError {
  return new ConnectError(`unknown service ${quoted(name)}`, Code.NotFound);
}

const toProto = (ready: boolean) => (ready ? Status.SERVING : Status.NOT_SERVING);

/**
 * The standard grpc.health.v1.Health service (Check and Watch), for orchestrators' probes: SERVING
 * exactly while the service is ready (not while starting, nor while its store does not answer, nor
 * once a graceful shutdown began).
 */
export function healthRoutes(readiness: Readiness) {
  return (router: ConnectRouter) =>
    router.service(Health, {
      check(req: HealthCheckRequest): HealthCheckResponse {
        if (!healthServiceNames.has(req.service)) {
          throw unknownService(req.service);
        }
        return create(HealthCheckResponseSchema, { status: toProto(readiness.ready) });
      },
      async *watch(req: HealthCheckRequest, ctx: HandlerContext) {
        // The health protocol answers an unknown name with SERVICE_UNKNOWN on Watch, not an error.
        if (!healthServiceNames.has(req.service)) {
          yield create(HealthCheckResponseSchema, { status: Status.SERVICE_UNKNOWN });
          return;
        }
        // starting, stopping and unavailable are all NOT_SERVING: Watch sends changes of it only.
        let last: boolean | undefined;
        for await (const status of readiness.watch(ctx.signal)) {
          const ready = status === "ready";
          if (ready === last) continue;
          last = ready;
          yield create(HealthCheckResponseSchema, { status: toProto(ready) });
        }
      },
    });
}
