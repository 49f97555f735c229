// The app the connect-web test loads from its own origin (connect-web.test.ts), bundled by esbuild
// for the browser as an app's bundler would: a StampService client of the REST port's Connect or
// gRPC-Web endpoint, sending an API key in `authorization`.
import { type Client, createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { StampService } from "../../gen/proto/svc/v1/stamp_pb.js";

export type Protocol = "connect" | "grpc-web";

export function stampClient(protocol: Protocol, baseUrl: string, key: string): Client<typeof StampService> {
  const transport = (protocol === "connect" ? createConnectTransport : createGrpcWebTransport)({
    baseUrl,
    interceptors: [
      (next) => (req) => {
        req.header.set("authorization", `Bearer ${key}`);
        return next(req);
      },
    ],
  });
  return createClient(StampService, transport);
}
