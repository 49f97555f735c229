// A gRPC baseline, in a process of its own: a bare connect-node server of the same svc.v1 proto
// whose CreateStamp and BatchStamp echo the request as a Stamp, with no auth, limits, signing or
// storage. Prints `ready {"grpc":<port>}`.
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { create } from "@bufbuild/protobuf";
import { timestampNow } from "@bufbuild/protobuf/wkt";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import {
  type CreateStampRequest,
  type Stamp,
  StampSchema,
  StampService,
  StampStatus,
} from "../../gen/proto/svc/v1/stamp_pb.js";
import { announceReady } from "./processes.js";

let counter = 0;

function echo(req: CreateStampRequest): Stamp {
  return create(StampSchema, {
    id: `stp_${String(counter++).padStart(26, "0")}`,
    contentHash: req.contentHash,
    algorithm: req.algorithm,
    timestamp: timestampNow(),
    status: StampStatus.PENDING,
    description: req.description,
    metadata: req.metadata,
  });
}

const server = http2.createServer(
  connectNodeAdapter({
    routes: (router) =>
      router.service(StampService, {
        createStamp: (req) => ({ stamp: echo(req) }),
        batchStamp: (req) => {
          const stamps = req.items.map(echo);
          return { stamps, successCount: stamps.length, failedCount: 0 };
        },
      }),
  }),
);
server.listen(0, "127.0.0.1", () => announceReady({ grpc: (server.address() as AddressInfo).port }));
process.on("SIGTERM", () => process.exit(0));
