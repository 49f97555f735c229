import { create } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  file_svc_v1_stamp,
  type HealthCheckRequest,
  HealthCheckResponseSchema,
  StampService,
  HealthCheckResponse_ServingStatus as Status,
} from "../../gen/proto/svc/v1/stamp_pb.js";
import { healthServiceNames } from "./health-service.js";
import type { ServingState } from "./serving-state.js";

/** svc.v1.StampService. */
export function stampService(state: ServingState) {
  return {
    file: file_svc_v1_stamp,
    routes: (router: ConnectRouter) =>
      router.service(StampService, {
        healthCheck(req: HealthCheckRequest) {
          if (!healthServiceNames.has(req.service)) {
            throw new ConnectError(`unknown service "${req.service}"`, Code.NotFound);
          }
          const status = state.status === "serving" ? Status.SERVING : Status.NOT_SERVING;
          return create(HealthCheckResponseSchema, { status });
        },
      }),
  };
}
